import { describe, expect, it } from '@jest/globals';
import { ReconcileRun } from './run.ts';

describe('a reconcile run, its id and signal made on first read', () => {
  it('should make its signal aborted with the first reason when it was aborted before the read', () => {
    const run = new ReconcileRun();
    const first = new Error('first');
    run.abort(first);
    run.abort(new Error('second'));
    expect([run.signal.aborted, run.signal.reason]).toEqual([true, first]);
    expect(run.signal).toBe(run.signal);
  });

  it('should abort a signal read before, once, with the first reason', () => {
    const run = new ReconcileRun();
    const { signal } = run;
    const reasons: unknown[] = [];
    signal.addEventListener('abort', () => reasons.push(signal.reason));
    expect(signal.aborted).toBe(false);
    run.abort('stopped');
    run.abort('timed out');
    expect([reasons, run.signal]).toEqual([['stopped'], signal]);
  });

  it('should give each run an id of its own, the same at each read', () => {
    const [a, b] = [new ReconcileRun(), new ReconcileRun()];
    expect(a.id).toBe(a.id);
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^[0-9a-z]+-[0-9a-z]+$/);
  });
});

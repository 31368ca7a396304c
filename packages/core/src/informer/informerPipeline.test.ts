import { describe, expect, it } from '@jest/globals';
import { scan, from, lastValueFrom } from 'rxjs';
import { IndexerError } from '../errors.ts';
import { informerStep, initialInformerState, initialInformerStep, type InformerInput, type InformerStep } from './informerPipeline.ts';
import type { KubeObject } from '../types.ts';
import { testObject as obj } from '@rxinformer/testing';

const steps = (inputs: InformerInput<KubeObject>[], from0 = initialInformerState<KubeObject>()): InformerStep<KubeObject>[] => {
  const out: InformerStep<KubeObject>[] = [];
  inputs.reduce((s, input) => {
    const next = informerStep(s, input);
    out.push(next);
    return next.state;
  }, from0);
  return out;
};
const apply = (inputs: InformerInput<KubeObject>[], from0 = initialInformerState<KubeObject>()) => steps(inputs, from0).at(-1)!.state;
const listed: InformerInput<KubeObject>[] = [
  { type: 'STATUS', status: { phase: 'listing', relistCount: 0, hasSynced: false } },
  { type: 'LIST', items: [obj('a', '1')], resourceVersion: '10' },
  { type: 'STATUS', status: { phase: 'watching', relistCount: 0, hasSynced: true, lastSyncResourceVersion: '10' } },
];

describe('informerStep', () => {
  it('should say what each input changed: deltas once, with the end of the first list, or the status', () => {
    const changes = steps(listed).map((s) => s.change);
    expect(changes.map((c) => c.type)).toEqual(['status', 'deltas', 'status']);
    expect(changes[1]).toMatchObject({ type: 'deltas', initialListEnd: true, errors: [] });
    expect(changes[1].type === 'deltas' && changes[1].deltas.map((d) => d.key)).toEqual(['default/a']);
    const later = steps([{ type: 'MODIFIED', object: obj('a', '12') }], apply(listed)).map((s) => s.change);
    expect(later).toEqual([expect.objectContaining({ type: 'deltas', initialListEnd: false })]);
  });

  it('should hold only what is known: no change of the last input survives into the state', () => {
    const state = apply(listed);
    expect(Object.keys(state).sort()).toEqual(['resourceVersion', 'status', 'store', 'synced']);
    expect(state).toMatchObject({ resourceVersion: '10', synced: true, status: { phase: 'watching' } });
  });

  it('should stop without a backoff delay or list progress, and leave the cache as it is', () => {
    const backingOff = apply([
      ...listed,
      { type: 'STATUS', status: { phase: 'backingOff', relistCount: 0, hasSynced: true, backoffMs: 800 } },
    ]);
    const stopped = informerStep(backingOff, { type: 'stopped' });
    expect(stopped.change).toEqual({ type: 'status' });
    expect(stopped.state.status).toEqual({ phase: 'stopped', relistCount: 0, hasSynced: true });
    expect(stopped.state.store).toBe(backingOff.store);
  });

  it('should add indexes to the cache, or say in its change that it refused them and why, adding none', () => {
    const state = apply(listed);
    const byName = (o: KubeObject) => [o.metadata?.name ?? ''];
    const added = informerStep(state, { type: 'addIndexers', indexers: { byName } });
    expect(added.change).toEqual({ type: 'indexersAdded', indexers: { byName } });
    expect(added.state.store.indexKeys('byName', 'a')).toEqual(['default/a']);
    const indexers = {
      ok: byName,
      bad: () => {
        throw new Error('boom');
      },
    };
    const refused = informerStep(added.state, { type: 'addIndexers', indexers });
    expect(refused.change).toEqual({ type: 'indexersRefused', indexers, error: expect.any(IndexerError) });
    expect(refused.state).toBe(added.state);
  });

  it('should be a reducer for scan', async () => {
    const last = await lastValueFrom(
      from(listed).pipe(scan((s, input) => informerStep(s.state, input), initialInformerStep<KubeObject>())),
    );
    expect(last.state.synced).toBe(true);
    expect(last.state.status.phase).toBe('watching');
  });
});

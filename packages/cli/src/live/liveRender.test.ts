import { describe, expect, it } from '@jest/globals';
import type { KubeObject, ReflectorStatus } from '@rxinformer/core';
import { countersLine, eventLine, progressText, reflectorText, renderScreen, summaryLines, type LiveSnapshot } from './liveRender.ts';
import type { LiveEvent } from './liveState.ts';

const wall = Date.parse('2025-01-01T00:10:00Z');
const event = (type: LiveEvent['type'], name: string, at: number, phase = 'Running'): LiveEvent => ({
  type,
  key: `default/${name}`,
  at,
  initial: false,
  object: {
    kind: 'Pod',
    metadata: { name, namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' },
    status: { phase },
  } as KubeObject,
});
const snapshot = (status: Partial<ReflectorStatus> = {}): LiveSnapshot => ({
  title: 'pods in all namespaces',
  source: 'simulator http://127.0.0.1:1',
  cached: 2,
  eventsPerSecond: 12.34,
  counts: { ADDED: 3, MODIFIED: 4, DELETED: 1, 'DELETED?': 1, unchanged: 0 },
  status: { phase: 'watching', relistCount: 1, hasSynced: true, ...status },
  errors: 2,
  handlers: [{ name: 'view', metrics: { depth: 0, lagMs: 3, delivered: 9, errors: 0 } }],
  uptimeMs: 4200,
});
const ESCAPE = /\u001b/;

describe('renderScreen', () => {
  const rows = Array.from({ length: 50 }, (_, i) =>
    event(i % 5 === 0 ? 'DELETED' : 'MODIFIED', `web-${String(i).padStart(6, '0')}`, 10_000 - i * 100),
  );

  it('should fit the terminal: at most rows lines, each at most columns wide, no escape codes', () => {
    for (const size of [
      { rows: 24, columns: 80 },
      { rows: 10, columns: 40 },
      { rows: 3, columns: 20 },
      { rows: 60, columns: 200 },
    ]) {
      const lines = renderScreen(snapshot(), rows, size, 10_000, wall);
      expect(lines.length).toBeLessThanOrEqual(size.rows);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(size.columns);
      expect(lines.join('\n')).not.toMatch(ESCAPE);
    }
  });

  it('should show the counters, then the table newest event first', () => {
    const lines = renderScreen(snapshot(), rows, { rows: 24, columns: 120 }, 10_000, wall);
    expect(lines[0]).toContain('pods in all namespaces');
    expect(lines[1]).toBe('cached 2   events/s 12.3   relists 1   errors 2   up 4.2s');
    expect(lines[2]).toBe('events: added 3  modified 4  deleted 1  tombstones 1');
    expect(lines).toContain('handler view lag=3ms depth=0 delivered=9 errors=0');
    const header = lines.findIndex((l) => l.startsWith('NAMESPACE'));
    expect(lines[header]).toMatch(/^NAMESPACE\s+NAME\s+STATUS\s+AGE\s+LAST EVENT$/);
    expect(lines[header + 1]).toMatch(/^default\s+web-000000\s+<deleted>\s+10m\s+DELETED 0ms ago$/);
    expect(lines[header + 2]).toMatch(/^default\s+web-000001\s+Running\s+10m\s+MODIFIED 100ms ago$/);
    expect(lines).toHaveLength(24);
  });

  it('should show the note under the title', () => {
    const lines = renderScreen(
      { ...snapshot(), note: 'kubectl --kubeconfig /tmp/k get pods -A -w' },
      [],
      { rows: 24, columns: 120 },
      0,
      wall,
    );
    expect(lines[1]).toBe('kubectl --kubeconfig /tmp/k get pods -A -w');
  });

  it('should show list progress while listing', () => {
    const lines = renderScreen(
      snapshot({ phase: 'listing', relistCount: 0, hasSynced: false, listProgress: { pages: 3, items: 1500 } }),
      [],
      { rows: 24, columns: 120 },
      0,
      wall,
    );
    expect(lines).toContain('initial list: 3 pages, 1500 objects so far…');
  });
});

describe('eventLine', () => {
  it('should print kubectl -w style columns: event, namespace, name, status, age', () => {
    expect(eventLine(event('MODIFIED', 'web-1', 0), wall)).toMatch(/^MODIFIED\s+default\s+web-1\s+Running\s+10m$/);
    expect(eventLine(event('DELETED?', 'web-1', 0), wall)).toMatch(/^DELETED\?\s+default\s+web-1\s+<deleted>\s+10m$/);
  });
});

describe('progressText', () => {
  it('should describe the initial list and relists only while listing', () => {
    expect(progressText({ phase: 'listing', relistCount: 0, hasSynced: false, listProgress: { pages: 0, items: 0 } })).toBe(
      'initial list: loading…',
    );
    expect(progressText({ phase: 'listing', relistCount: 2, hasSynced: true, listProgress: { pages: 1, items: 500 } })).toBe(
      'relist #2: 1 page, 500 objects so far…',
    );
    expect(progressText({ phase: 'listing', relistCount: 0, hasSynced: true })).toBeUndefined();
    expect(progressText({ phase: 'watching', relistCount: 0, hasSynced: true, listProgress: { pages: 1, items: 1 } })).toBeUndefined();
  });
});

describe('reflectorText', () => {
  it('should show the phase, the backoff delay and the last error', () => {
    const e = new Error('boom');
    expect(reflectorText({ phase: 'backingOff', backoffMs: 1600, relistCount: 0, hasSynced: true, lastError: e })).toBe(
      'backingOff (retry in 1.6s), last error: Error: boom',
    );
  });
});

describe('countersLine', () => {
  it('should put every counter on one plain line', () => {
    const line = countersLine(snapshot({ lastError: new Error('a\nb') }));
    expect(line).toBe(
      '[4.2s] cached=2 | events/s=12.3 | added=3 modified=4 deleted=2 | relists=1 errors=2 | reflector=watching, last error: Error: a b | handler view lag=3ms depth=0 delivered=9 errors=0',
    );
  });
});

describe('summaryLines', () => {
  it('should report objects, events by type, relists and errors', () => {
    expect(
      summaryLines({
        durationMs: 3000,
        cached: 5,
        counts: { ADDED: 6, MODIFIED: 2, DELETED: 1, 'DELETED?': 0, unchanged: 4 },
        relists: 1,
        errors: 2,
        errorNames: ['SocketError', 'KubeApiError'],
        handlerErrors: 0,
        faults: 1,
      }),
    ).toEqual([
      'summary: ran 3.0s, 5 objects cached',
      'events: ADDED=6 MODIFIED=2 DELETED=1 DELETED(final state unknown)=0 unchanged-on-relist=4',
      'relists=1 reflector errors=2 (SocketError, KubeApiError) handler errors=0 faults injected=1',
    ]);
  });
});

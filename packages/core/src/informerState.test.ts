import { describe, expect, it } from '@jest/globals';
import { scan, from, lastValueFrom } from 'rxjs';
import { createDeltaReducer } from './deltaStore.ts';
import { IndexerError } from './errors.ts';
import { informerStep, initialInformerState, type InformerInput, type InformerState } from './informerState.ts';
import type { KubeObject } from './types.ts';
import { testObject as obj } from '@rxinformer/testing';

const step = informerStep<KubeObject>(createDeltaReducer());
const apply = (inputs: InformerInput<KubeObject>[], from0 = initialInformerState<KubeObject>()) =>
  inputs.reduce<InformerState<KubeObject>>(step, from0);
const listed: InformerInput<KubeObject>[] = [
  { type: 'run', restarted: false },
  { type: 'status', status: { phase: 'listing', relistCount: 0, hasSynced: false } },
  { type: 'replace', items: [obj('a', '1')], resourceVersion: '10' },
  { type: 'status', status: { phase: 'watching', relistCount: 0, hasSynced: true, lastSyncResourceVersion: '10' } },
];

describe('informerStep', () => {
  it('should flag only the state whose deltas complete the first list, and count every input', () => {
    const states: InformerState<KubeObject>[] = [];
    listed.reduce((s, input) => {
      const next = step(s, input);
      states.push(next);
      return next;
    }, initialInformerState<KubeObject>());
    expect(states.map((s) => s.initialListEnd)).toEqual([false, false, true, false]);
    expect(states.map((s) => s.seq)).toEqual([1, 2, 3, 4]);
    expect(states[2].cache.deltas.map((d) => d.key)).toEqual(['default/a']);
    expect(states[3].cache.deltas).toEqual([]); // a status delivers no delta twice
  });

  it('should count a restarted run on top of the earlier runs, synced, at the last version until its list lands', () => {
    const watched = apply([...listed, { type: 'modified', object: obj('a', '12') }, { type: 'stopped' }]);
    const restarted = apply(
      [
        { type: 'run', restarted: true },
        { type: 'status', status: { phase: 'listing', relistCount: 0, hasSynced: false } },
      ],
      watched,
    );
    expect(restarted.status).toEqual({ phase: 'listing', relistCount: 1, hasSynced: true, lastSyncResourceVersion: '12' });
  });

  it('should stop without a backoff delay or list progress, and leave the cache as it is', () => {
    const backingOff = apply([
      ...listed,
      { type: 'status', status: { phase: 'backingOff', relistCount: 0, hasSynced: true, backoffMs: 800 } },
    ]);
    const stopped = step(backingOff, { type: 'stopped' });
    expect(stopped.status).toEqual({ phase: 'stopped', relistCount: 0, hasSynced: true });
    expect(stopped.cache.store).toBe(backingOff.cache.store);
  });

  it('should add indexes to the cache, or record the input it refused and why, adding none', () => {
    const state = apply(listed);
    const byName = (o: KubeObject) => [o.metadata?.name ?? ''];
    const added = step(state, { type: 'addIndexers', indexers: { byName } });
    expect(added.cache.store.indexKeys('byName', 'a')).toEqual(['default/a']);
    const bad: InformerInput<KubeObject> = {
      type: 'addIndexers',
      indexers: {
        ok: byName,
        bad: () => {
          throw new Error('boom');
        },
      },
    };
    const refused = step(added, bad);
    expect(refused.refused?.input).toBe(bad);
    expect(refused.refused?.error).toBeInstanceOf(IndexerError);
    expect(refused.cache.store).toBe(added.cache.store);
  });

  it('should be a reducer for scan', async () => {
    const last = await lastValueFrom(from(listed).pipe(scan(step, initialInformerState<KubeObject>())));
    expect(last.cache.synced).toBe(true);
    expect(last.status.phase).toBe('watching');
  });
});

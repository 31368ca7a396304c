import { describe, expect, it } from '@jest/globals';
import { NEVER, of, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { reflector } from './reflector.ts';
import type { KubeObject, ReflectorEvent, ReflectorStatus } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler } from '@rxinformer/testing';
import { ev } from '../../test/reflectorHarness.ts';

const statusesOf = (events: ReflectorEvent<KubeObject>[]): ReflectorStatus[] =>
  events.flatMap((e) => (e.type === 'STATUS' ? [e.status] : []));

/** Subscribes to `r` from `from` to `to` (virtual ms), collecting what it emits. */
function runBetween<T extends KubeObject>(
  ts: TestScheduler,
  r: Observable<ReflectorEvent<T>>,
  from: number,
  to: number,
): ReflectorEvent<T>[] {
  const events: ReflectorEvent<T>[] = [];
  ts.schedule(() => {
    const sub = r.subscribe((e) => events.push(e));
    ts.schedule(() => sub.unsubscribe(), to - from);
  }, from);
  return events;
}

describe('reflector across runs', () => {
  it('should carry its accounting into the next subscription after a sync: a relist, consistent, counted, synced at the last version', () => {
    const ts = testScheduler();
    ts.run(({ cold, flush }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(of(page([obj('a', '1')], '10')), of(page([obj('a', '12')], '20')));
      lw.scriptWatch(cold('-a', { a: ev('MODIFIED', obj('a', '12')) }), NEVER);
      const r = reflector(lw, { useStreamingList: false, initialListResourceVersion: '0', random: () => 0 });
      const first = runBetween(ts, r, 0, 10);
      const second = runBetween(ts, r, 20, 30);
      flush();
      // The first run lists from the server's cache; the run after its sync reads consistently.
      expect(lw.listCalls.map((c) => c.resourceVersion)).toEqual(['0', undefined]);
      expect(first.filter((e) => e.type === 'MODIFIED')).toHaveLength(1);
      expect(statusesOf(second)[0]).toEqual({
        phase: 'listing',
        relistCount: 1,
        hasSynced: true,
        lastSyncResourceVersion: '12',
        listProgress: { pages: 0, items: 0 },
      });
      expect(statusesOf(second).at(-1)).toMatchObject({ phase: 'connecting', relistCount: 1, lastSyncResourceVersion: '20' });
    });
  });

  it('should start afresh after a run that never synced', () => {
    const ts = testScheduler();
    ts.run(({ flush }) => {
      const lw = fakeListerWatcher();
      lw.scriptList(NEVER, of(page([obj('a', '1')], '10')));
      lw.scriptWatch(NEVER);
      const r = reflector(lw, { useStreamingList: false, initialListResourceVersion: '0', random: () => 0 });
      runBetween(ts, r, 0, 10);
      const second = runBetween(ts, r, 20, 30);
      flush();
      expect(lw.listCalls.map((c) => c.resourceVersion)).toEqual(['0', '0']);
      expect(statusesOf(second)[0]).toEqual({ phase: 'listing', relistCount: 0, hasSynced: false, listProgress: { pages: 0, items: 0 } });
    });
  });
});

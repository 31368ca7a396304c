import { describe, expect, it } from '@jest/globals';
import type { KubeObject, SharedInformer } from '@rxinformer/core';
import { flushTo, testObject, testScheduler } from '@rxinformer/testing';
import {
  ReadYourWritesTimeoutError,
  WriteTracker,
  newerResourceVersion,
  type ReadYourWritesStats,
  type TrackedWrite,
} from './readYourWrites.ts';

/** An informer of which the tracker reads only the cache: `cache` by key. */
function fakeInformer(cache: Map<string, KubeObject>): SharedInformer<KubeObject> {
  return { getStore: () => ({ get: (key: string) => cache.get(key) }) } as unknown as SharedInformer<KubeObject>;
}

/** A write of pod `key` answered at `resourceVersion`. */
const at = (key: string, resourceVersion: string): TrackedWrite => ({ resource: 'pods', key, resourceVersion });
/** A delete of pod `key` (of `uid`, when the answer named it). */
const gone = (key: string, uid?: string): TrackedWrite => ({ resource: 'pods', key, deleted: true, uid });
/** Pod `name` at `rv` with `uid`, marked for deletion when `deleting`. */
const podOf = (name: string, rv: string, uid: string, deleting = false): KubeObject => ({
  ...testObject(name, rv),
  metadata: { ...testObject(name, rv).metadata, uid, ...(deleting && { deletionTimestamp: '2026-11-29T07:35:36Z' }) },
});

/** A tracker with a 100 ms timeout on virtual time, the keys it releases and its counts. */
function setup() {
  const ts = testScheduler();
  const cache = new Map<string, KubeObject>();
  const informer = fakeInformer(cache);
  const released: string[] = [];
  const stats: ReadYourWritesStats = { holds: 0, released: 0, timeouts: 0, heldMs: 0, pending: 0 };
  const timedOut: ReadYourWritesTimeoutError[] = [];
  const tracker = new WriteTracker(
    100,
    ts,
    (key) => released.push(`${key}@${ts.now()}`),
    (e) => timedOut.push(e),
    stats,
  );
  /** The informer's cache changed and it delivered the event. */
  const deliver = (name: string, rv: string) => {
    const obj = testObject(name, rv);
    cache.set(`default/${name}`, obj);
    tracker.observe(informer, `default/${name}`, obj);
  };
  /** Moves the virtual clock to `ms`, running what is due. */
  const advanceTo = (ms: number) => {
    ts.schedule(() => undefined, ms - ts.now());
    flushTo(ts, ms);
  };
  return { ts, cache, informer, released, stats, timedOut, tracker, deliver, advanceTo };
}

describe('newerResourceVersion', () => {
  it.each([
    ['10', '9', true],
    ['9', '10', false],
    ['123', '122', true],
    ['5', '5', false],
    ['abc', '1', false],
    ['2', '01', false],
    [undefined, '1', false],
    ['18446744073709551617', '18446744073709551616', true],
  ])('should compare %s > %s as decimal integers only: %s', (a, b, want) => {
    expect(newerResourceVersion(a, b)).toBe(want);
  });
});

describe('WriteTracker', () => {
  it('should hold a key until its informer delivers the written resourceVersion, then add it again', () => {
    const { advanceTo, released, stats, tracker, informer, deliver } = setup();
    deliver('a', '5');
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true); // the cache still holds 5
    advanceTo(30);
    deliver('a', '6');
    expect(released).toEqual([]); // added once the event's own adds had their turn
    advanceTo(30);
    expect(released).toEqual(['default/a@30']);
    expect(tracker.holds('default/a')).toBe(false);
    expect(stats).toEqual({ holds: 1, released: 1, timeouts: 0, heldMs: 30, pending: 0 });
  });

  it('should not hold when the write was shown before the reconcile ended, nor add the key again', () => {
    const { released, stats, tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    deliver('a', '6');
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(false);
    expect([released, stats.pending]).toEqual([[], 0]);
  });

  it('should count a newer integer resourceVersion as shown, but not an opaque different one', () => {
    const { tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/b', informer, at('default/b', 'x1'));
    tracker.commit('default/a');
    tracker.commit('default/b');
    deliver('a', '8');
    deliver('b', 'x2');
    expect([tracker.holds('default/a'), tracker.holds('default/b')]).toEqual([false, true]);
  });

  it('should hold until every write of the key is shown, across informers', () => {
    const { tracker, informer, released, deliver, advanceTo } = setup();
    const owned = new Map<string, KubeObject>();
    const ownedInformer = fakeInformer(owned);
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/a', ownedInformer, at('default/child', '7'));
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    deliver('a', '6');
    expect(released).toEqual([]);
    owned.set('default/child', testObject('child', '7'));
    tracker.observe(ownedInformer, 'default/child', owned.get('default/child'));
    advanceTo(0);
    expect(released).toEqual(['default/a@0']);
  });

  it('should not add a key again whose reconcile the ending event started', () => {
    const { advanceTo, released, stats, tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    deliver('a', '6');
    expect(tracker.holds('default/a')).toBe(false); // the event's own add reconciles it
    advanceTo(10);
    expect([released, stats.released]).toEqual([[], 1]);
  });

  it('should end the hold after the timeout, counted and reported with the writes not shown, and reconcile the key anyway', () => {
    const { advanceTo, released, stats, timedOut, tracker, informer, deliver } = setup();
    deliver('b', '3'); // never marked for deletion in the cache
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/a', informer, gone('default/b'));
    tracker.commit('default/a');
    advanceTo(40);
    expect(tracker.holds('default/a')).toBe(true);
    advanceTo(100);
    expect(released).toEqual(['default/a@100']);
    expect(stats).toEqual({ holds: 1, released: 0, timeouts: 1, heldMs: 60, pending: 0 });
    expect(tracker.holds('default/a')).toBe(false);
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]).toMatchObject({ key: 'default/a', timeoutMs: 100, writes: [at('default/a', '6'), gone('default/b')] });
    expect(timedOut[0].message).toBe(
      'the caches did not show the writes of the reconcile of "default/a" within 100 ms (pods default/a at resourceVersion 6, pods default/b deleted): reconciled on the cache as it is',
    );
  });

  it("should take a delete delivered after the write as shown, not a lagging one of the object's older state", () => {
    const { tracker, informer, cache } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.commit('default/a');
    cache.delete('default/a');
    tracker.observe(informer, 'default/a', undefined, testObject('a', '4')); // the namesake before a recreate
    expect(tracker.holds('default/a')).toBe(true);
    tracker.observe(informer, 'default/a', undefined, testObject('a', '7'));
    expect(tracker.holds('default/a')).toBe(false);
  });

  it('should take a deleting write as shown once the cache lacks the key', () => {
    const { tracker, informer, cache, deliver } = setup();
    deliver('a', '5');
    tracker.record('default/a', informer, gone('default/a'));
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    cache.delete('default/a');
    expect(tracker.holds('default/a')).toBe(false);
  });

  it('should not hold for a delete whose deletion the informer delivered before the answer came (a pod deleted at once)', () => {
    const { tracker, informer, cache, released, stats, deliver } = setup();
    deliver('p', '221');
    cache.delete('default/p'); // the watch's MODIFIED (deletionTimestamp) and DELETED came first…
    tracker.observe(informer, 'default/p', undefined, podOf('p', '223', 'u', true));
    tracker.record('default/a', informer, gone('default/p', 'u')); // …then the answer: the pod, marked, rv 223
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(false);
    expect([released, stats.pending, stats.holds]).toEqual([[], 0, 0]);
  });

  it('should take a delete as shown once the cached object is marked for deletion, going', () => {
    const { tracker, informer, cache, advanceTo, released, stats } = setup();
    cache.set('default/p', podOf('p', '5', 'u'));
    tracker.record('default/a', informer, gone('default/p', 'u'));
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    const marked = podOf('p', '6', 'u', true); // finalizers or a grace period hold it
    cache.set('default/p', marked);
    tracker.observe(informer, 'default/p', marked);
    advanceTo(0);
    expect([released, stats.released, stats.timeouts]).toEqual([['default/a@0'], 1, 0]);
  });

  it("should end a delete's hold on the deletion of its own uid, not on a namesake's", () => {
    const { tracker, informer, cache } = setup();
    cache.set('default/p', podOf('p', '5', 'new'));
    tracker.record('default/a', informer, gone('default/p', 'new'));
    tracker.commit('default/a');
    cache.delete('default/p');
    tracker.observe(informer, 'default/p', undefined, podOf('p', '4', 'old')); // a lagging watch: the namesake before
    cache.set('default/p', podOf('p', '5', 'new'));
    expect(tracker.holds('default/a')).toBe(true);
    cache.delete('default/p');
    tracker.observe(informer, 'default/p', undefined, podOf('p', '7', 'new'));
    expect(tracker.holds('default/a')).toBe(false);
  });

  it('should cancel its timers and pending holds when disposed', () => {
    const { ts, released, stats, tracker, informer } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.commit('default/a');
    expect(stats.pending).toBe(1);
    tracker.dispose();
    flushTo(ts, 500);
    expect([released, stats.pending, stats.timeouts]).toEqual([[], 0, 0]);
  });
});

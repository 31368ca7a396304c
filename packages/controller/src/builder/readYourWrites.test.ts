import { describe, expect, it } from '@jest/globals';
import type { KubeObject, SharedInformer } from '@rxinformer/core';
import { flushTo, testObject, testScheduler } from '@rxinformer/testing';
import { WriteTracker, newerResourceVersion, type ReadYourWritesStats } from './readYourWrites.ts';

/** An informer of which the tracker reads only the cache: `cache` by key. */
function fakeInformer(cache: Map<string, KubeObject>): SharedInformer<KubeObject> {
  return { getStore: () => ({ get: (key: string) => cache.get(key) }) } as unknown as SharedInformer<KubeObject>;
}

/** A tracker with a 100 ms timeout on virtual time, the keys it releases and its counts. */
function setup() {
  const ts = testScheduler();
  const cache = new Map<string, KubeObject>();
  const informer = fakeInformer(cache);
  const released: string[] = [];
  const stats: ReadYourWritesStats = { holds: 0, released: 0, timeouts: 0, heldMs: 0, pending: 0 };
  const tracker = new WriteTracker(100, ts, (key) => released.push(`${key}@${ts.now()}`), stats);
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
  return { ts, cache, informer, released, stats, tracker, deliver, advanceTo };
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
    tracker.record('default/a', informer, 'default/a', '6');
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
    tracker.record('default/a', informer, 'default/a', '6');
    deliver('a', '6');
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(false);
    expect([released, stats.pending]).toEqual([[], 0]);
  });

  it('should count a newer integer resourceVersion as shown, but not an opaque different one', () => {
    const { tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, 'default/a', '6');
    tracker.record('default/b', informer, 'default/b', 'x1');
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
    tracker.record('default/a', informer, 'default/a', '6');
    tracker.record('default/a', ownedInformer, 'default/child', '7');
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
    tracker.record('default/a', informer, 'default/a', '6');
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    deliver('a', '6');
    expect(tracker.holds('default/a')).toBe(false); // the event's own add reconciles it
    advanceTo(10);
    expect([released, stats.released]).toEqual([[], 1]);
  });

  it('should end the hold after the timeout, counted, and reconcile the key anyway', () => {
    const { advanceTo, released, stats, tracker, informer } = setup();
    tracker.record('default/a', informer, 'default/a', '6');
    tracker.commit('default/a');
    advanceTo(40);
    expect(tracker.holds('default/a')).toBe(true);
    advanceTo(100);
    expect(released).toEqual(['default/a@100']);
    expect(stats).toEqual({ holds: 1, released: 0, timeouts: 1, heldMs: 60, pending: 0 });
    expect(tracker.holds('default/a')).toBe(false);
  });

  it("should take a delete delivered after the write as shown, not a lagging one of the object's older state", () => {
    const { tracker, informer, cache } = setup();
    tracker.record('default/a', informer, 'default/a', '6');
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
    tracker.record('default/a', informer, 'default/a', undefined);
    tracker.commit('default/a');
    expect(tracker.holds('default/a')).toBe(true);
    cache.delete('default/a');
    expect(tracker.holds('default/a')).toBe(false);
  });

  it('should cancel its timers and pending holds when disposed', () => {
    const { ts, released, stats, tracker, informer } = setup();
    tracker.record('default/a', informer, 'default/a', '6');
    tracker.commit('default/a');
    expect(stats.pending).toBe(1);
    tracker.dispose();
    flushTo(ts, 500);
    expect([released, stats.pending, stats.timeouts]).toEqual([[], 0, 0]);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { KubeObject, SharedInformer } from '@rxinformer/core';
import { testObject } from '@rxinformer/testing';
import { ReadYourWritesTimeoutError, WriteTracker, newerResourceVersion, type TrackedWrite } from './readYourWrites.ts';

/** An informer of which the tracker reads the cache and the store's last synced resourceVersion. */
interface FakeInformer {
  informer: SharedInformer<KubeObject>;
  cache: Map<string, KubeObject>;
  rv: { value: string | undefined };
}

function fakeInformer(): FakeInformer {
  const cache = new Map<string, KubeObject>();
  const rv = { value: undefined as string | undefined };
  const informer = {
    getStore: () => ({ get: (key: string) => cache.get(key) }),
    get lastSyncResourceVersion() {
      return rv.value;
    },
  } as unknown as SharedInformer<KubeObject>;
  return { informer, cache, rv };
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

/** A tracker over one fake informer, and the keys it said were shown. */
function setup() {
  const fake = fakeInformer();
  const { informer, cache } = fake;
  const shown: string[] = [];
  const tracker = new WriteTracker((key) => shown.push(key));
  /** The informer's cache changed to `obj` and its handler delivered the change. */
  const change = (obj: KubeObject) => {
    const key = `default/${obj.metadata!.name}`;
    cache.set(key, obj);
    tracker.seen(informer, key, obj);
  };
  const deliver = (name: string, rv: string) => change(testObject(name, rv));
  /** The informer deleted `name`, last known as `lastKnown`. */
  const remove = (name: string, lastKnown?: KubeObject) => {
    cache.delete(`default/${name}`);
    tracker.seen(informer, `default/${name}`, undefined, lastKnown);
  };
  return { ...fake, shown, tracker, change, deliver, remove };
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
  it('should not be ready for a key until its informer shows the written resourceVersion, then say it is shown', () => {
    const { shown, tracker, informer, deliver } = setup();
    deliver('a', '5');
    tracker.record('default/a', informer, at('default/a', '6'));
    expect(tracker.ready('default/a')).toBe(false); // the cache still holds 5
    deliver('a', '6');
    expect(shown).toEqual(['default/a']);
    expect(tracker.ready('default/a')).toBe(true);
  });

  it('should be ready when the write was shown before the reconcile ended, and for a key that wrote nothing', () => {
    const { tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    deliver('a', '6');
    expect([tracker.ready('default/a'), tracker.ready('default/other')]).toEqual([true, true]);
  });

  it('should count a newer integer resourceVersion as shown, but not an opaque different one', () => {
    const { tracker, informer, deliver } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/b', informer, at('default/b', 'x1'));
    deliver('a', '8');
    deliver('b', 'x2');
    expect([tracker.ready('default/a'), tracker.ready('default/b')]).toEqual([true, false]);
  });

  it("should be ready once the informer's store is at the write's resourceVersion or later, as Kubernetes 1.36 checks", () => {
    const { tracker, informer, rv } = setup();
    tracker.record('default/a', informer, at('default/child', '6')); // the child left the informer's scope: no event of it comes
    rv.value = '5';
    expect(tracker.ready('default/a')).toBe(false);
    rv.value = '7'; // a later event of another object, or a bookmark
    expect(tracker.ready('default/a')).toBe(true);
  });

  it('should wait for every write of the key, across informers', () => {
    const { tracker, informer, shown, deliver } = setup();
    const owned = fakeInformer();
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/a', owned.informer, at('default/child', '7'));
    deliver('a', '6');
    expect([shown, tracker.ready('default/a')]).toEqual([[], false]);
    owned.cache.set('default/child', testObject('child', '7'));
    tracker.seen(owned.informer, 'default/child', testObject('child', '7'));
    expect(shown).toEqual(['default/a']);
  });

  it('should forget the writes of a cleared key and answer those not shown, for the timeout report', () => {
    const { tracker, informer, shown, deliver } = setup();
    deliver('b', '3');
    tracker.record('default/a', informer, at('default/a', '6'));
    tracker.record('default/a', informer, gone('default/b'));
    expect(tracker.clear('default/a')).toEqual([at('default/a', '6'), gone('default/b')]);
    expect(tracker.ready('default/a')).toBe(true);
    deliver('a', '6');
    expect(shown).toEqual([]);
    const error = new ReadYourWritesTimeoutError('default/a', 100, [at('default/a', '6'), gone('default/b')]);
    expect(error.message).toBe(
      'the caches did not show the writes of the reconcile of "default/a" within 100 ms (pods default/a at resourceVersion 6, pods default/b deleted): reconciled on the cache as it is',
    );
  });

  it("should take a delete delivered after the write as shown, not a lagging one of the object's older state", () => {
    const { tracker, informer, shown, remove } = setup();
    tracker.record('default/a', informer, at('default/a', '6'));
    remove('a', testObject('a', '4')); // the namesake before a recreate
    expect(shown).toEqual([]);
    remove('a', testObject('a', '7'));
    expect(shown).toEqual(['default/a']);
  });

  it('should take a deleting write as shown once the cache lacks the key', () => {
    const { tracker, informer, cache, deliver } = setup();
    deliver('a', '5');
    tracker.record('default/a', informer, gone('default/a'));
    expect(tracker.ready('default/a')).toBe(false);
    cache.delete('default/a');
    expect(tracker.ready('default/a')).toBe(true);
  });

  it('should be ready for a delete whose deletion the informer delivered before the answer came (a pod deleted at once)', () => {
    const { tracker, informer, deliver, remove } = setup();
    deliver('p', '221');
    remove('p', podOf('p', '223', 'u', true)); // the watch's MODIFIED (deletionTimestamp) and DELETED came first…
    tracker.record('default/a', informer, gone('default/p', 'u')); // …then the answer: the pod, marked, rv 223
    expect(tracker.ready('default/a')).toBe(true);
  });

  it('should take a delete as shown once the cached object is marked for deletion, going', () => {
    const { tracker, informer, cache, shown, change } = setup();
    cache.set('default/p', podOf('p', '5', 'u'));
    tracker.record('default/a', informer, gone('default/p', 'u'));
    expect(tracker.ready('default/a')).toBe(false);
    change(podOf('p', '6', 'u', true)); // finalizers or a grace period hold it
    expect(shown).toEqual(['default/a']);
  });

  it("should take a delete as shown on the deletion of its own uid, not on a namesake's", () => {
    const { tracker, informer, cache, shown, remove } = setup();
    cache.set('default/p', podOf('p', '5', 'new'));
    tracker.record('default/a', informer, gone('default/p', 'new'));
    remove('p', podOf('p', '4', 'old')); // a lagging watch: the namesake before
    cache.set('default/p', podOf('p', '5', 'new'));
    expect([shown, tracker.ready('default/a')]).toEqual([[], false]);
    remove('p', podOf('p', '7', 'new'));
    expect(shown).toEqual(['default/a']);
  });

  it('should forget every write when disposed', () => {
    const { tracker, informer, shown, deliver } = setup();
    tracker.record('default/b', informer, at('default/b', '9'));
    tracker.dispose();
    deliver('b', '9');
    expect([shown, tracker.ready('default/b')]).toEqual([[], true]);
  });
});

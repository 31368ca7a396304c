import { afterEach, describe, expect, it } from '@jest/globals';
import { of, Subject } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { createSharedInformer } from '../informer/sharedInformer.ts';
import { enqueueKeys, toKeys } from './enqueueKeys.ts';
import { objectOf, type Delta, type KubeObject, type Store, type WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler, until, PAGED } from '@rxinformer/testing';

const running: { shutdown(): void }[] = [];
afterEach(() => running.splice(0).forEach((i) => i.shutdown()));

/** A started informer that has listed `a` and `b` and watches `watch`, shut down after the test. */
async function syncedInformer(watch: Subject<WatchEvent>, keyFunc?: (o: KubeObject) => string) {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([obj('a', '1'), obj('b', '2')], '5')));
  lw.scriptWatch(watch);
  const informer = createSharedInformer(lw, { reflector: PAGED, ...(keyFunc && { keyFunc }) });
  running.push(informer);
  informer.start();
  await until(() => informer.hasSynced());
  return informer;
}

describe('enqueueKeys', () => {
  it('should hand a queue added after the informer synced every cached key, then each change, where events$ misses the cache', async () => {
    const watch = new Subject<WatchEvent>();
    const informer = await syncedInformer(watch);
    const fromHandler: string[] = [];
    const fromEvents: string[] = [];
    informer.addEventHandler(enqueueKeys({ add: (k: string) => fromHandler.push(k) }));
    informer.events$.pipe(toKeys()).subscribe((k) => fromEvents.push(k)); // the trap: no replay
    await until(() => fromHandler.length === 2);
    watch.next({ type: 'ADDED', object: obj('c', '6') });
    watch.next({ type: 'DELETED', object: obj('a', '7') });
    await until(() => fromHandler.length === 4);
    expect(fromHandler.slice(0, 2).sort()).toEqual(['default/a', 'default/b']); // the cache, in its order
    expect(fromHandler.slice(2)).toEqual(['default/c', 'default/a']);
    expect(fromEvents).toEqual(['default/c', 'default/a']);
  });

  it("should add the informer's own keys, a custom keyFunc's, as the cache holds them", async () => {
    const watch = new Subject<WatchEvent>();
    const informer = await syncedInformer(watch, (o) => `pods:${o.metadata?.name}`);
    const added: string[] = [];
    informer.addEventHandler(enqueueKeys({ add: (k: string) => added.push(k) }));
    watch.next({ type: 'MODIFIED', object: obj('b', '6') });
    await until(() => added.length === 3);
    expect(added.slice(0, 2).sort()).toEqual(['pods:a', 'pods:b']);
    expect(added[2]).toBe('pods:b');
    expect(added.every((k) => informer.getStore().get(k) !== undefined)).toBe(true);
  });

  it('should add the keys keysOf maps an object to, a deletion by its last known object', async () => {
    const watch = new Subject<WatchEvent>();
    const informer = await syncedInformer(watch);
    const added: string[] = [];
    const ownerOf = (o: KubeObject) => (o.metadata?.name === 'b' ? [] : [`owner-of-${o.metadata?.name}`, 'all']);
    informer.addEventHandler(enqueueKeys({ add: (k: string) => added.push(k) }, ownerOf));
    watch.next({ type: 'MODIFIED', object: obj('b', '6') });
    watch.next({ type: 'DELETED', object: obj('a', '7') });
    await until(() => added.length === 4);
    expect(added).toEqual(['owner-of-a', 'all', 'owner-of-a', 'all']);
  });

  it('should refuse a queue without add and a keysOf that is not a function', () => {
    expect(() => enqueueKeys({} as never)).toThrow(InvalidOptionsError);
    expect(() => enqueueKeys({ add: () => {} }, 'owner' as never)).toThrow('keysOf must be a function');
  });
});

describe('toKeys', () => {
  const store = {} as Store;
  const delta = (type: Delta['type'], key: string, object: KubeObject = { metadata: { name: key } }): Delta =>
    type === 'Deleted'
      ? { type, key, deleted: { key, lastKnown: object, finalStateUnknown: true }, store }
      : type === 'Added'
        ? { type, key, object, isInInitialList: false, store }
        : type === 'Sync'
          ? { type, key, object, store }
          : { type, key, object, oldObject: object, store };

  it('should map every delta to its key, tombstones included', () =>
    testScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', 'ns/a'),
        u: delta('Updated', 'ns/a'),
        t: delta('Deleted', 'ns/b'),
        s: delta('Sync', 'ns/c'),
      };
      expectObservable(cold('a-u-t-s|', values).pipe(toKeys())).toBe('a-a-b-c|', { a: 'ns/a', b: 'ns/b', c: 'ns/c' });
    }));

  it('should map deltas to other keys, several or none', () =>
    testScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: delta('Added', 'ns/a', { metadata: { name: 'a', ownerReferences: [{ name: 'x' }, { name: 'y' }] } }),
        b: delta('Added', 'ns/b'),
      };
      const owners = (d: Delta) => (objectOf(d)?.metadata?.ownerReferences as { name: string }[] | undefined)?.map((o) => o.name);
      expectObservable(cold('a---b|', values).pipe(toKeys(owners))).toBe('(xy)-|', { x: 'x', y: 'y' });
    }));
});

/**
 * The shared informer with a snapshot store: a first informer lists and saves; a second one over
 * the same store starts from the snapshot, resumes the watch from its resource version, and on a
 * 410 relists and delivers only the differences. Virtual time (`virtualClock`), so the store's
 * promises settle between the scheduler's steps; a real memory store.
 */
import { describe, expect, it } from '@jest/globals';
import { NEVER, from, map, merge, of, timer, type Observable } from 'rxjs';
import { createSharedInformer, type SharedInformer } from './sharedInformer.ts';
import { memorySnapshotStore, type SnapshotStore } from '../snapshot/snapshotStore.ts';
import { snapshotIdentity, snapshotKey } from '../snapshot/snapshotIdentity.ts';
import { SnapshotRejectedError, SecretsSnapshotError } from '../snapshot/snapshotErrors.ts';
import { WATCH_OPENED, type DeletedObject, type KubeObject, type WatchItem } from '../types.ts';
import { fakeListerWatcher, page, PAGED, testObject as obj, virtualClock } from '@rxinformer/testing';
import type { TestScheduler } from 'rxjs/testing';

const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const identity = snapshotIdentity({ server: 'https://test:6443', resource: pods });
const key = snapshotKey(identity);
const v = (o: KubeObject | undefined) => `${o?.metadata?.name}@${o?.metadata?.resourceVersion}`;

/** A watch that sends each item at its virtual time (ms after it was opened), and stays open. */
function at(ts: TestScheduler, ...items: [number, WatchItem][]): Observable<WatchItem> {
  return merge(...items.map(([ms, item]) => timer(ms, ts).pipe(map(() => item))), NEVER);
}
const added = (object: KubeObject): WatchItem => ({ type: 'ADDED', object });

/** A handler that writes down each call, in words. */
function recorder() {
  const calls: string[] = [];
  const handler = {
    onAdd: (o: KubeObject, initial: boolean, _key: string, fromSnapshot?: boolean) =>
      void calls.push(`add ${v(o)}${initial ? ' initial' : ''}${fromSnapshot ? ' snapshot' : ''}`),
    onUpdate: (a: KubeObject, b: KubeObject) => void calls.push(a === b ? `same ${v(b)}` : `update ${v(a)}->${v(b)}`),
    onDelete: (d: DeletedObject<KubeObject>) => void calls.push(`delete ${v(d.lastKnown)}${d.finalStateUnknown ? ' tombstone' : ''}`),
  };
  return { calls, handler };
}

/** An informer over a scripted ListerWatcher, saving to `store`. */
function informerWith(ts: TestScheduler, store: SnapshotStore, script: (lw: ReturnType<typeof fakeListerWatcher>) => void) {
  const lw = fakeListerWatcher();
  script(lw);
  const informer = createSharedInformer(lw, { scheduler: ts, reflector: PAGED, snapshot: { store, identity, intervalMs: 5000 } });
  return { lw, informer };
}

/** Lists a, b, c at RV 10 and saves it: the snapshot the other tests start from. */
async function seeded(): Promise<SnapshotStore> {
  const store = memorySnapshotStore();
  const clock = virtualClock();
  const { informer } = informerWith(clock.ts, store, (lw) => {
    lw.scriptList(of(page([obj('a', '1'), obj('b', '2'), obj('c', '3')], '10')));
    lw.scriptWatch(of<WatchItem>(WATCH_OPENED));
  });
  informer.start();
  await clock.advance(1000);
  informer.stop(); // saves
  await informer.saveSnapshot();
  informer.shutdown();
  return store;
}

const stopAll = async (informer: SharedInformer<KubeObject>) => {
  informer.shutdown();
  await informer.saveSnapshot();
};

describe('createSharedInformer with a snapshot store', () => {
  it('should save once synced, at most once per interval while the cache changes, and when it stops', async () => {
    const saved: string[] = [];
    const memory = memorySnapshotStore();
    const clock = virtualClock(1000);
    const store: SnapshotStore = {
      ...memory,
      save: (k, data) => (
        saved.push(`${informer.isRunning() ? clock.ts.now() : 'at stop'} ${data.split('\n').length - 1}`),
        memory.save(k, data)
      ),
    };
    const { informer } = informerWith(clock.ts, store, (lw) => {
      lw.scriptList(of(page([obj('a', '1')], '10')));
      // The list at 0 (saved at 5 s); changes at 6 s and 7 s (one save, at 11 s), one at 13 s (saved at the stop, 15 s).
      lw.scriptWatch(
        at(
          clock.ts,
          [0, WATCH_OPENED],
          [6000, added(obj('b', '11'))],
          [7000, added(obj('c', '12'))],
          [13_000, { type: 'DELETED', object: obj('a', '13') }],
        ),
      );
    });
    informer.start();
    await clock.advance(15_000);
    informer.stop();
    await informer.saveSnapshot();
    expect(saved).toEqual(['5000 1', '11000 3', 'at stop 2']);
    expect(informer.getStatus().snapshot).toMatchObject({ start: 'cold', saves: 3, savedResourceVersion: '13' });
    await stopAll(informer);
  });

  it('should start from the snapshot at once, resume the watch from its resource version and sync on the first event', async () => {
    const store = await seeded();
    const clock = virtualClock(10);
    const { lw, informer } = informerWith(clock.ts, store, (w) =>
      w.scriptWatch(at(clock.ts, [0, WATCH_OPENED], [100, { type: 'MODIFIED', object: obj('b', '11') }])),
    );
    const { calls, handler } = recorder();
    const registration = informer.addEventHandler(handler);
    informer.start();
    await clock.advance(50);
    expect(informer.getStore().keys().length).toBe(3);
    expect(informer.hasSynced()).toBe(false);
    expect(informer.getStatus()).toMatchObject({
      phase: 'watching',
      hasSynced: false,
      snapshot: { start: 'restored', restored: { resourceVersion: '10', objects: 3 } },
    });
    expect([...calls].sort()).toEqual(['add a@1 initial snapshot', 'add b@2 initial snapshot', 'add c@3 initial snapshot']);
    expect(registration.hasSynced()).toBe(false);
    await clock.advance(200);
    expect(informer.hasSynced()).toBe(true);
    expect(registration.hasSynced()).toBe(true);
    expect(calls.slice(3)).toEqual(['update b@2->b@11']);
    expect(lw.listCalls).toEqual([{ limit: 1, singlePage: true }]); // no list: the resume's check only (unanswered here)
    expect(lw.watchCalls.map((c) => c.resourceVersion)).toEqual(['10']);
    await stopAll(informer);
  });

  it('should relist on a 410 and deliver only the differences from the snapshot', async () => {
    const store = await seeded();
    const clock = virtualClock(10);
    const { lw, informer } = informerWith(clock.ts, store, (w) => {
      w.scriptWatch(from<WatchItem[]>([WATCH_OPENED, { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }]));
      // The resume's check (the server moved on), then the relist: a unchanged, b changed, c gone, d new.
      w.scriptList(of(page([obj('a', '1')], '20')), of(page([obj('a', '1'), obj('b', '7'), obj('d', '8')], '20')));
    });
    const { calls, handler } = recorder();
    informer.addEventHandler(handler);
    informer.start();
    await clock.advance(100);
    expect(calls.slice(0, 3).sort()).toEqual(['add a@1 initial snapshot', 'add b@2 initial snapshot', 'add c@3 initial snapshot']);
    expect(calls.slice(3).sort()).toEqual(['add d@8 initial', 'delete c@3 tombstone', 'update b@2->b@7']);
    expect(informer.hasSynced()).toBe(true);
    expect(lw.listCalls).toEqual([{ limit: 1, singlePage: true }, { limit: 500 }]);
    expect(informer.getStatus()).toMatchObject({ relistCount: 0, snapshot: { start: 'restored' } });
    await stopAll(informer);
  });

  it('should replay a restored cache to a handler added before the server confirmed it, flagged and unsynced', async () => {
    const store = await seeded();
    const clock = virtualClock(10);
    const { informer } = informerWith(clock.ts, store, (w) =>
      w.scriptWatch(at(clock.ts, [0, WATCH_OPENED], [100, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '12' } } }])),
    );
    informer.start();
    await clock.advance(50);
    const { calls, handler } = recorder();
    const late = informer.addEventHandler(handler);
    await clock.advance(60);
    expect([...calls].sort()).toEqual(['add a@1 initial snapshot', 'add b@2 initial snapshot', 'add c@3 initial snapshot']);
    expect(late.hasSynced()).toBe(false);
    await clock.advance(200);
    expect(late.hasSynced()).toBe(true); // the bookmark synced the informer, and ended this handler's initial list
    expect(informer.lastSyncResourceVersion).toBe('12');
    await stopAll(informer);
  });

  it('should refuse a corrupt snapshot, remove it and start cold, saying why on the status', async () => {
    const store = await seeded();
    const text = (await store.load(key))!;
    await store.save(key, text.replace('"name":"b"', '"name":"x"')); // same length, other content
    const clock = virtualClock(10);
    const { lw, informer } = informerWith(clock.ts, store, (w) => w.scriptList(of(page([obj('a', '1')], '30'))));
    informer.start();
    await clock.advance(10);
    const { start, restoreError } = informer.getStatus().snapshot!;
    expect(start).toBe('cold');
    expect(restoreError).toBeInstanceOf(SnapshotRejectedError);
    expect(restoreError).toMatchObject({ reason: 'ChecksumMismatch', key });
    expect(await store.load(key)).toBeUndefined();
    expect(lw.listCalls).toHaveLength(1);
    expect(informer.getStore().keys()).toEqual(['default/a']);
    await stopAll(informer);
  });

  it('should refuse a snapshot of another server found under its key as foreign', async () => {
    const store = await seeded();
    const other = createSharedInformer(fakeListerWatcher(), {
      snapshot: { store, identity: snapshotIdentity({ server: 'https://other:6443', resource: pods }) },
    });
    other.shutdown();
    const text = (await store.load(key))!.replace('https://test:6443', 'https://evil:6443');
    await store.save(key, text);
    const clock = virtualClock(10);
    const { informer } = informerWith(clock.ts, store, (w) => w.scriptList(of(page([], '30'))));
    informer.start();
    await clock.advance(10);
    expect(informer.getStatus().snapshot!.restoreError).toMatchObject({
      name: 'SnapshotRejectedError',
      reason: 'Foreign',
      field: 'server',
    });
    expect(informer.getStore().size).toBe(0);
    await stopAll(informer);
  });

  it('should throw SecretsSnapshotError for a Secrets informer given a store, unless persistSecrets', () => {
    const secrets = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
    const snapshot = { store: memorySnapshotStore(), identity: snapshotIdentity({ server: 's', resource: secrets }) };
    expect(() => createSharedInformer(fakeListerWatcher(), { snapshot })).toThrow(SecretsSnapshotError);
    createSharedInformer(fakeListerWatcher(), { snapshot: { ...snapshot, persistSecrets: true } }).shutdown();
  });
});

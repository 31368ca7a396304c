import { afterEach, describe, expect, it } from '@jest/globals';
import { NEVER, Observable, Subject, config, first, firstValueFrom, filter, of, throwError } from 'rxjs';
import { InvalidObjectError, InvalidOptionsError, KubeApiError } from '../errors.ts';
import { InformerShutdownError, createSharedInformer as create, type SharedInformer } from './sharedInformer.ts';
import type { KubeObject, ReflectorStatus, WatchEvent } from '../types.ts';
import { whileSubscribed } from './whileSubscribed.ts';
import { deferred, fakeListerWatcher, page, settle, testObject as obj, until, virtualClock } from '@rxinformer/testing';

// Every informer a test makes is stopped afterwards, even when the test fails: no timer outlives it.
// Its lists page: the fake servers here answer scripted lists (`scriptList`).
const made: SharedInformer<KubeObject>[] = [];
const createSharedInformer: typeof create = (lw, options) => {
  const i = create(lw, { ...options, reflector: { useStreamingList: false, ...options?.reflector } });
  made.push(i as unknown as SharedInformer<KubeObject>);
  return i;
};
afterEach(() => {
  for (const i of made.splice(0)) i.stop();
});

/** An informer over a fake server: a one-page list, then a watch we push events into. */
function setup(items: KubeObject[] = [obj('a', '1'), obj('b', '2')]) {
  const lw = fakeListerWatcher();
  const watch = new Subject<WatchEvent>();
  lw.scriptList(of(page(items, '10')));
  lw.scriptWatch(watch);
  return { lw, watch };
}
describe('createSharedInformer', () => {
  it('should update the store before any handler hears of a change', async () => {
    const { lw, watch } = setup();
    const informer = createSharedInformer(lw);
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        seen.push(`add ${o.metadata?.name} in store: ${informer.getStore().get(`default/${o.metadata?.name}`) !== undefined}`);
      },
      onUpdate: (_old, o) => {
        seen.push(`update ${o.metadata?.resourceVersion} store has ${informer.getStore().get('default/a')?.metadata?.resourceVersion}`);
      },
    });
    informer.start();
    watch.next({ type: 'MODIFIED', object: obj('a', '11') });
    await settle();
    expect(seen).toEqual(['add a in store: true', 'add b in store: true', 'update 11 store has 11']);
    expect(informer.lastSyncResourceVersion).toBe('11');
    informer.stop();
  });

  it('should share one list and one watch among all consumers', async () => {
    const { lw } = setup();
    const informer = createSharedInformer(lw);
    informer.addEventHandler({ onAdd: () => {} });
    informer.addEventHandler({ onAdd: () => {} });
    const store = await new Promise((resolve) => {
      informer.store$.pipe(filter((s) => s.size === 2)).subscribe(resolve);
      informer.start();
      informer.start();
    });
    expect(store).toBe(informer.getStore());
    expect(lw.listCalls).toHaveLength(1);
    expect(lw.watchCalls).toHaveLength(1);
    informer.stop();
    informer.stop();
    expect(informer.isRunning()).toBe(false);
  });

  it('should say a handler has synced only when it has finished the initial list', async () => {
    const { lw } = setup();
    const informer = createSharedInformer(lw);
    const gate = deferred();
    const slow = informer.addEventHandler(
      {
        onAdd: async () => {
          await gate.promise;
        },
      },
      { name: 'slow' },
    );
    const fast = informer.addEventHandler({ onAdd: () => {} }, { name: 'fast' });
    informer.start();
    await settle();
    expect(informer.hasSynced()).toBe(true);
    expect(fast.hasSynced()).toBe(true);
    expect(slow.hasSynced()).toBe(false);
    gate.resolve();
    await firstValueFrom(slow.synced$.pipe(filter(Boolean)));
    expect(slow.hasSynced()).toBe(true);
    informer.stop();
  });

  it('should replay the store to a late handler with no gap and no duplicate against live events', async () => {
    const { lw, watch } = setup();
    const informer = createSharedInformer(lw);
    informer.start();
    await settle();
    const got: string[] = [];
    informer.addEventHandler({
      onAdd: (o, initial) => {
        got.push(`add ${o.metadata?.name} ${initial}`);
      },
      onUpdate: (_o, n) => {
        got.push(`update ${n.metadata?.name}@${n.metadata?.resourceVersion}`);
      },
      onDelete: ({ lastKnown: o }) => {
        got.push(`delete ${o?.metadata?.name}`);
      },
    });
    watch.next({ type: 'MODIFIED', object: obj('a', '11') }); // arrives while the replay is still queued
    watch.next({ type: 'DELETED', object: obj('b', '12') });
    watch.next({ type: 'ADDED', object: obj('c', '13') });
    await settle();
    // The replay comes first, in the store's order (which differs between processes), then the live events.
    expect(got.slice(0, 2).sort()).toEqual(['add a true', 'add b true']);
    expect(got.slice(2)).toEqual(['update a@11', 'delete b', 'add c false']);
    informer.stop();
  });

  it('should deliver async handlers one event at a time, in order', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    informer.addEventHandler({
      onAdd: async (o) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await settle();
        order.push(o.metadata!.name!);
        active--;
      },
    });
    informer.start();
    for (const n of ['x', 'y', 'z']) watch.next({ type: 'ADDED', object: obj(n, n === 'x' ? '20' : n === 'y' ? '21' : '22') });
    await until(() => order.length >= 3);
    expect(order).toEqual(['x', 'y', 'z']);
    expect(maxActive).toBe(1);
    informer.stop();
  });

  it('should isolate throwing, rejecting and slow handlers and report each failure', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    const errors: string[] = [];
    informer.handlerErrors$.subscribe((e) => errors.push(`${e.handler} ${e.delta.key} ${(e.error as Error).message}`));
    const thrower: string[] = [];
    const healthy: string[] = [];
    informer.addEventHandler(
      {
        onAdd: (o) => {
          thrower.push(o.metadata!.name!);
          if (o.metadata?.name === 'x') throw new Error('boom');
        },
      },
      { name: 'thrower' },
    );
    informer.addEventHandler(
      {
        onAdd: async (o) => {
          if (o.metadata?.name === 'y') throw new Error('rejected');
        },
      },
      { name: 'rejecter' },
    );
    const gate = deferred();
    const slow = informer.addEventHandler({ onAdd: () => gate.promise }, { name: 'slow' });
    informer.addEventHandler(
      {
        onAdd: (o) => {
          healthy.push(o.metadata!.name!);
        },
      },
      { name: 'healthy' },
    );
    informer.start();
    watch.next({ type: 'ADDED', object: obj('x', '20') });
    watch.next({ type: 'ADDED', object: obj('y', '21') });
    await settle();
    expect(thrower).toEqual(['x', 'y']);
    expect(healthy).toEqual(['x', 'y']);
    expect(errors).toEqual(['thrower default/x boom', 'rejecter default/y rejected']);
    const depth = await firstValueFrom(slow.metrics$);
    expect(depth.depth).toBe(1); // 'y' waits behind the blocked 'x'
    expect(informer.getStore().size).toBe(2);
    gate.resolve();
    informer.stop();
  });

  it('should keep only the newest pending notification per key when coalescing, but never drop a delete', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    const gate = deferred();
    const got: string[] = [];
    informer.addEventHandler(
      {
        onAdd: async (o) => {
          got.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}`);
          if (o.metadata?.name === 'block') await gate.promise;
        },
        onUpdate: (old, n) => {
          got.push(`update ${n.metadata?.name} ${old.metadata?.resourceVersion}->${n.metadata?.resourceVersion}`);
        },
        onDelete: ({ lastKnown: o }) => {
          got.push(`delete ${o?.metadata?.name}@${o?.metadata?.uid}`);
        },
      },
      { buffer: 'coalesce' },
    );
    informer.start();
    watch.next({ type: 'ADDED', object: obj('block', '19') });
    await settle();
    watch.next({ type: 'ADDED', object: obj('p', '20') });
    watch.next({ type: 'MODIFIED', object: obj('p', '21') });
    watch.next({ type: 'MODIFIED', object: obj('block', '22') });
    watch.next({ type: 'MODIFIED', object: obj('block', '23') });
    watch.next({ type: 'DELETED', object: obj('q0', '24') }); // unknown key: no delta at all
    watch.next({ type: 'MODIFIED', object: obj('p', '25', 'uid-new') }); // recreated: delete + add
    gate.resolve();
    await until(() => got.length >= 4);
    await settle();
    // p: add@20 + update@21 + delete collapse into the delete (kept in p's place); the recreated p is a new entry.
    // block: two updates collapse into one, with the oldest old object. Order holds per key, not across keys.
    expect(got).toEqual(['add block@19', 'delete p@uid-p', 'update block 19->23', 'add p@25']);
    informer.stop();
  });

  it('should resync only the handlers that are due, from the cache, never calling the server', async () => {
    const { ts, advance } = virtualClock();
    const syncs: Record<string, string[]> = { every10: [], every25: [], never: [] };
    const { lw } = setup();
    const informer = createSharedInformer(lw, { scheduler: ts });
    const on = (name: string) => ({
      onUpdate: (a: KubeObject, b: KubeObject) => {
        if (a === b) syncs[name].push(`${a.metadata!.name}@${ts.frame}`);
      },
      onAdd: () => {},
    });
    informer.addEventHandler(on('every10'), { resyncPeriodMs: 10_000 });
    informer.addEventHandler(on('every25'), { resyncPeriodMs: 25_000 });
    informer.addEventHandler(on('never'));
    informer.start();
    await advance(35_000);
    informer.stop();
    await advance(60_000); // stopped: no more resyncs
    // Resyncs come in time order; within one, in the store's order (which differs between processes).
    const frame = (sync: string) => Number(sync.split('@')[1]);
    for (const list of Object.values(syncs)) expect(list.map(frame)).toEqual(list.map(frame).sort((x, y) => x - y));
    const sorted = (list: string[]) => [...list].sort((x, y) => frame(x) - frame(y) || (x < y ? -1 : 1));
    expect({ every10: sorted(syncs.every10), every25: sorted(syncs.every25), never: syncs.never }).toEqual({
      every10: ['a@10000', 'b@10000', 'a@20000', 'b@20000', 'a@30000', 'b@30000'],
      every25: ['a@25000', 'b@25000'],
      never: [],
    });
    expect(lw.listCalls).toHaveLength(1);
    expect(lw.watchCalls).toHaveLength(1);
  });

  it('should not resync a key whose change is still pending for that handler', async () => {
    const { ts, advance } = virtualClock();
    const got: string[] = [];
    const { lw, watch } = setup([obj('a', '1'), obj('b', '2')]);
    const informer = createSharedInformer(lw, { scheduler: ts });
    const gate = deferred();
    informer.addEventHandler(
      {
        onAdd: async (o) => {
          got.push(`add ${o.metadata?.name}`);
          if (o.metadata?.name === 'c') await gate.promise;
        },
        onUpdate: (o, n) => {
          got.push(
            o === n
              ? `sync ${n.metadata?.name}@${n.metadata?.resourceVersion}`
              : `update ${n.metadata?.name}@${n.metadata?.resourceVersion}`,
          );
        },
      },
      { resyncPeriodMs: 1_000 },
    );
    informer.start();
    await advance(500);
    watch.next({ type: 'ADDED', object: obj('c', '3') }); // blocks the handler
    watch.next({ type: 'MODIFIED', object: obj('a', '5') }); // pending behind it
    await advance(1_000); // resync tick: a is pending, b and c are not
    gate.resolve();
    await until(() => got.length >= 6);
    informer.stop();
    // c was being handled, not pending, at the tick: it is resynced with its current state.
    expect(got.slice(0, 4)).toEqual(['add a', 'add b', 'add c', 'update a@5']);
    expect(got.slice(4).sort()).toEqual(['sync b@2', 'sync c@3']); // the store's key order is not insertion order
  });

  it('should refuse invalid input at the call', () => {
    const { lw } = setup();
    const informer = createSharedInformer(lw);
    expect(() => informer.addEventHandler({})).toThrow(InvalidOptionsError);
    expect(() => informer.addEventHandler({ onAdd: 'no' as never })).toThrow('onAdd must be a function');
    expect(() => informer.addEventHandler({ onAdd: () => {} }, { resyncPeriodMs: 500 })).toThrow(/at least 1000/);
    expect(() => informer.addEventHandler({ onAdd: () => {} }, { resyncPeriodMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => createSharedInformer(lw, { resyncPeriodMs: -5 })).toThrow(InvalidOptionsError);
    expect(() => createSharedInformer(lw, { reflector: { pageSize: -1 } })).toThrow(InvalidOptionsError);
  });

  it('should make removing a handler twice a no-op and stop its delivery', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    const got: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: (o) => {
        got.push(o.metadata!.name!);
      },
    });
    informer.start();
    watch.next({ type: 'ADDED', object: obj('x', '20') });
    await settle();
    reg.remove();
    reg.remove();
    watch.next({ type: 'ADDED', object: obj('y', '21') });
    await settle();
    expect(got).toEqual(['x']);
    informer.stop();
  });

  it('should run the watch only while its store is read through whileSubscribed', () => {
    const { lw } = setup();
    const informer = createSharedInformer(lw);
    expect(informer.isRunning()).toBe(false);
    const sub = whileSubscribed(informer).subscribe();
    expect(informer.isRunning()).toBe(true);
    const other = whileSubscribed(informer).subscribe();
    sub.unsubscribe();
    expect(informer.isRunning()).toBe(true);
    other.unsubscribe();
    expect(informer.isRunning()).toBe(false);
  });

  it('should crash out of band when a handlerErrors$ subscriber throws, and go on delivering', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    const crash = new Error('crash me');
    informer.handlerErrors$.subscribe((e) => {
      throw e.error; // what a process that must crash on a handler's failure does
    });
    const got: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        got.push(o.metadata!.name!);
        if (o.metadata?.name === 'x') throw crash;
      },
    });
    const uncaught: unknown[] = [];
    const before = config.onUnhandledError;
    config.onUnhandledError = (e) => uncaught.push(e); // where rxjs throws it, out of band
    try {
      informer.start();
      watch.next({ type: 'ADDED', object: obj('x', '20') });
      watch.next({ type: 'ADDED', object: obj('y', '21') });
      await until(() => got.length === 2 && uncaught.length === 1);
      expect(uncaught).toEqual([crash]);
      expect(got).toEqual(['x', 'y']); // the handler's delivery went on
    } finally {
      config.onUnhandledError = before;
    }
  });

  it('should release the watch request and every timer on stop', async () => {
    const lw = fakeListerWatcher();
    let open = 0;
    lw.scriptList(of(page([obj('a', '1')], '10')));
    lw.scriptWatch(
      new Observable<WatchEvent>(() => {
        open++;
        return () => {
          open--;
        };
      }),
    );
    const informer = createSharedInformer(lw, { resyncPeriodMs: 1000 });
    informer.addEventHandler({ onAdd: () => {} });
    informer.start();
    expect(open).toBe(1);
    informer.stop();
    expect(open).toBe(0);
    expect((await firstValueFrom(informer.status$)).phase).toBe('stopped');
  });

  it('should leave no watch open when stopped from its own listener or left by its last whileSubscribed subscriber', () => {
    const counting = () => {
      const lw = fakeListerWatcher();
      const live = { open: 0 };
      lw.scriptList(of(page([obj('a', '1')], '10')));
      lw.scriptWatch(
        new Observable<WatchEvent>(() => {
          live.open++;
          return () => {
            live.open--;
          };
        }),
      );
      return { lw, live };
    };
    // The last consumer leaves as the first store arrives (what firstValueFrom(store$…) does).
    const left = counting();
    const shared = createSharedInformer(left.lw);
    whileSubscribed(shared)
      .pipe(
        filter((s) => s.size > 0),
        first(),
      )
      .subscribe();
    expect(shared.isRunning()).toBe(false);
    expect(left.live.open).toBe(0);
    // stop() from a store$ listener, in the middle of applying the list.
    const stopped = counting();
    const informer = createSharedInformer(stopped.lw);
    informer.store$.subscribe((s) => {
      if (s.size > 0) informer.stop();
    });
    informer.start();
    expect(informer.isRunning()).toBe(false);
    expect(stopped.live.open).toBe(0);
  });

  it('should relist with a consistent read when restarted after a sync, even when asked to list at RV "0"', async () => {
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([obj('a', '1')], '10')), of(page([obj('a', '12')], '12')));
    lw.scriptWatch(NEVER, NEVER);
    const informer = createSharedInformer(lw, { reflector: { initialListResourceVersion: '0' } });
    informer.start();
    informer.stop();
    informer.start(); // a list at RV "0" could be older than the store: it must not roll it back
    expect(lw.listCalls.map((c) => c.resourceVersion)).toEqual(['0', undefined]);
    const status = await firstValueFrom(informer.status$);
    expect(status).toMatchObject({ phase: 'connecting', hasSynced: true, relistCount: 1 }); // its watch (NEVER) has not opened
    expect(informer.getStore().get('default/a')?.metadata?.resourceVersion).toBe('12');
  });

  it('should keep the last resource version on the status of a restart until its list lands', () => {
    const lw = fakeListerWatcher();
    const watch = new Subject<WatchEvent>();
    lw.scriptList(of(page([obj('a', '1')], '10')), NEVER);
    lw.scriptWatch(watch);
    const informer = createSharedInformer(lw);
    const seen: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => seen.push(s));
    informer.start();
    watch.next({ type: 'MODIFIED', object: obj('a', '12') });
    informer.stop();
    informer.start(); // its list never answers
    expect(informer.lastSyncResourceVersion).toBe('12');
    expect(seen.at(-1)).toMatchObject({ phase: 'listing', hasSynced: true, lastSyncResourceVersion: '12' });
  });

  it('should not report a backoff delay or list progress once stopped', () => {
    const lw = fakeListerWatcher();
    lw.scriptList(throwError(() => new KubeApiError(500, { reason: 'InternalError' })));
    const informer = createSharedInformer(lw);
    informer.start();
    let last: ReflectorStatus | undefined;
    informer.status$.subscribe((s) => {
      last = s;
    });
    expect(last).toMatchObject({ phase: 'backingOff' });
    expect(last?.backoffMs).toBeGreaterThan(0);
    informer.stop();
    expect(last?.phase).toBe('stopped');
    expect(last && 'backoffMs' in last).toBe(false);
    expect(last && 'listProgress' in last).toBe(false);
  });

  it('should report a watch event that is not an object and go on with the next one', () => {
    const lw = fakeListerWatcher();
    const watch = new Subject<WatchEvent>();
    lw.scriptList(of(page([obj('a', '1')], '10')));
    lw.scriptWatch(watch);
    const informer = createSharedInformer(lw);
    let last: ReflectorStatus | undefined;
    informer.status$.subscribe((s) => {
      last = s;
    });
    informer.start();
    watch.next(undefined as unknown as WatchEvent); // a custom ListerWatcher's bug: no crash, a report
    expect(last?.lastError).toBeInstanceOf(InvalidObjectError);
    watch.next({ type: 'MODIFIED', object: obj('a', '2') });
    expect(informer.getStore().get('default/a')?.metadata?.resourceVersion).toBe('2');
    expect(last?.lastError).toBeUndefined();
  });

  it('should register a handler added to a stopped informer and deliver once it starts', async () => {
    const { lw } = setup();
    const informer = createSharedInformer(lw);
    informer.start();
    await settle();
    informer.stop();
    const got: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: (o, initial) => {
        got.push(`${o.metadata?.name} ${initial}`);
      },
    });
    await settle();
    expect([...got].sort()).toEqual(['a true', 'b true']); // the cache survives stop and is replayed (in the store's order)
    expect(reg.hasSynced()).toBe(true);
  });
  it('should not give a handler added in the middle of a batch that batch twice', async () => {
    const { lw } = setup([obj('a', '1'), obj('b', '2'), obj('c', '3')]);
    const informer = createSharedInformer(lw);
    const got: string[] = [];
    let added = false;
    // A listener that registers a handler while the informer is still publishing the list's deltas.
    informer.events$.subscribe(() => {
      if (added) return;
      added = true;
      informer.addEventHandler({
        onAdd: (o, initial) => {
          got.push(`${o.metadata?.name} ${initial}`);
        },
      });
    });
    informer.start();
    await settle();
    expect(got.sort()).toEqual(['a true', 'b true', 'c true']);
  });

  it('should still deliver what is buffered after stop, so handlers end consistent with the cache', async () => {
    const { lw, watch } = setup([]);
    const informer = createSharedInformer(lw);
    const gate = deferred();
    const got: string[] = [];
    informer.addEventHandler({
      onAdd: async (o) => {
        got.push(o.metadata!.name!);
        if (o.metadata?.name === 'x') await gate.promise;
      },
    });
    informer.start();
    watch.next({ type: 'ADDED', object: obj('x', '20') });
    watch.next({ type: 'ADDED', object: obj('y', '21') });
    informer.stop();
    watch.next({ type: 'ADDED', object: obj('z', '22') }); // after stop: not applied, not delivered
    gate.resolve();
    await until(() => got.length >= 2);
    await settle();
    expect(got).toEqual(['x', 'y']);
    expect(informer.getStore().keys().slice().sort()).toEqual(['default/x', 'default/y']);
  });

  it('should shut down for good: handlers removed, every stream completed, start and addEventHandler refused', async () => {
    const { lw, watch } = setup();
    const informer = createSharedInformer(lw, { resyncPeriodMs: 1000 });
    const gate = deferred();
    const got: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: async (o) => {
        got.push(o.metadata!.name!);
        await gate.promise;
      },
    });
    const completed: string[] = [];
    const track = (name: string, o: Observable<unknown>) => o.subscribe({ complete: () => completed.push(name) });
    track('store$', informer.store$);
    track('events$', informer.events$);
    track('synced$', informer.synced$);
    track('status$', informer.status$);
    track('handlerErrors$', informer.handlerErrors$);
    track('storeErrors$', informer.storeErrors$);
    track('handler synced$', reg.synced$);
    track('handler metrics$', reg.metrics$);
    informer.start();
    watch.next({ type: 'ADDED', object: obj('c', '20') });
    await settle();
    expect(got).toEqual(['a']); // b and c wait behind a
    informer.shutdown();
    informer.shutdown(); // idempotent
    informer.stop(); // a no-op now
    gate.resolve();
    await settle();
    expect(got).toEqual(['a']); // the buffer was dropped
    expect(completed.sort()).toEqual([
      'events$',
      'handler metrics$',
      'handler synced$',
      'handlerErrors$',
      'status$',
      'store$',
      'storeErrors$',
      'synced$',
    ]);
    expect(informer.isRunning()).toBe(false);
    expect(informer.getStore().size).toBe(3); // the last snapshot stays readable
    expect(() => informer.start()).toThrow(InformerShutdownError);
    expect(() => informer.addEventHandler({ onAdd: () => {} })).toThrow(InformerShutdownError);
    reg.remove(); // removing after shutdown is a no-op
  });

  it('should refuse bad indexers, key functions, transforms, schedulers and names', () => {
    const { lw } = setup();
    expect(() => createSharedInformer(lw, { indexers: { byApp: 'app' as never } })).toThrow(InvalidOptionsError);
    expect(() => createSharedInformer(lw, { keyFunc: 'name' as never })).toThrow('keyFunc must be a function');
    expect(() => createSharedInformer(lw, { transform: {} as never })).toThrow(InvalidOptionsError);
    expect(() => createSharedInformer(lw, { scheduler: {} as never })).toThrow(InvalidOptionsError);
    expect(() => createSharedInformer({ list: () => of() } as never)).toThrow('a ListerWatcher needs list() and watch()');
    expect(() => createSharedInformer(lw).addEventHandler({ onAdd: () => {} }, { name: 3 as never })).toThrow(InvalidOptionsError);
  });
});

import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject, NEVER, Subject, concat, map, of, timer, type Observable } from 'rxjs';
import { createInformerFactory, type KubeObject, type ResourceDescriptor, type WatchEvent } from '@rxinformer/core';
import { whileLeading, type LeaderElection } from '@rxinformer/core/leader-election';
import { fakeListerWatcher, page, testObject, virtualClock, pagedInformers } from '@rxinformer/testing';
import type { TestScheduler } from 'rxjs/testing';
import { Registry } from 'prom-client';
import { controllerWorkqueueMetrics } from '@rxinformer/prometheus';
import { controllerFor, type ControllerBuilderOptions } from './controllerBuilder.ts';

const things: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A factory whose informer lists `names` at RV 1, then watches `events` (each at its virtual ms), then `then`. */
function setup(
  ts: TestScheduler,
  names: string[],
  events: [number, WatchEvent<KubeObject>][],
  then: Observable<WatchEvent<KubeObject>> = NEVER,
) {
  const lw = fakeListerWatcher();
  lw.scriptList(
    of(
      page(
        names.map((n) => testObject(n, '1')),
        '1',
      ),
    ),
  );
  lw.scriptWatch(concat(...events.map(([at, e], i) => timer(at - (i > 0 ? events[i - 1][0] : 0), ts).pipe(map(() => e))), then));
  const factory = pagedInformers(createInformerFactory(() => lw as never, { scheduler: ts }));
  return factory;
}

/** A controller whose reconciles take `ms` of virtual time each, logging `key@startMs`. */
function loggingController(
  ts: TestScheduler,
  factory: ReturnType<typeof setup>,
  ms: number,
  options: Partial<ControllerBuilderOptions<KubeObject>> = {},
) {
  const log: string[] = [];
  const ctl = controllerFor(factory, things, { name: 'virtual', scheduler: ts, ...options }).reconcile(async ({ name }) => {
    log.push(`${name}@${ts.now()}`);
    await new Promise<void>((resolve) => ts.schedule(() => resolve(), ms));
  });
  return { ctl, log };
}

describe('a builder controller in virtual time', () => {
  it('should let a real change overtake the initial list, which waits at low priority', async () => {
    const { ts, advance } = virtualClock(1);
    const names = ['a', 'b', 'c', 'd', 'e'];
    const later = new Subject<WatchEvent<KubeObject>>();
    const factory = setup(ts, names, [], later);
    const { ctl, log } = loggingController(ts, factory, 10);
    const run = ctl.start();
    let changed = '';
    ts.schedule(() => {
      // Two listed keys are done or in work; change the one the list would reconcile last.
      changed = factory.informerFor(things).getStore().keys().at(-1)!.split('/')[1];
      later.next({ type: 'MODIFIED', object: testObject(changed, '2') });
    }, 15);
    await advance(100);
    expect(log).toHaveLength(5);
    expect(log[2]).toBe(`${changed}@20`);
    expect(new Set(log.map((l) => l.split('@')[0]))).toEqual(new Set(names));
    await run.stop();
    factory.shutdown();
  });

  it('should retry a listed key that failed behind the rest of the initial list, at its low priority', async () => {
    const { ts, advance } = virtualClock(1);
    const factory = setup(ts, ['a', 'b', 'c'], []);
    const log: string[] = [];
    let failed = false;
    const ctl = controllerFor(factory, things, { name: 'virtual', scheduler: ts, onError: () => undefined }).reconcile(async ({ name }) => {
      log.push(`${name}@${ts.now()}`);
      await new Promise<void>((resolve) => ts.schedule(() => resolve(), 10));
      if (!failed) {
        failed = true;
        throw new Error('first reconcile fails'); // retried 5 ms later, while the second key is in work
      }
    });
    const run = ctl.start();
    await advance(100);
    const [first, second, third] = log.map((l) => l.split('@')[0]);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(log).toEqual([`${first}@0`, `${second}@10`, `${third}@20`, `${first}@30`]);
    await run.stop();
    factory.shutdown();
  });

  it('should reconcile a key changed several times within debounceMs once', async () => {
    const { ts, advance } = virtualClock(1);
    const change = (at: number, rv: string): [number, WatchEvent<KubeObject>] => [at, { type: 'MODIFIED', object: testObject('a', rv) }];
    const factory = setup(ts, ['a'], [change(200, '2'), change(230, '3'), change(260, '4'), change(600, '5')]);
    const { ctl, log } = loggingController(ts, factory, 1, { debounceMs: 50 });
    const run = ctl.start();
    await advance(800);
    expect(log).toEqual(['a@50', 'a@310', 'a@650']); // the list, three changes at once, the last alone
    await run.stop();
    factory.shutdown();
  });

  it("should reconcile by the keys of the informer's custom keyFunc, finding each object in the cache", async () => {
    const { ts, advance } = virtualClock(1);
    const factory = setup(ts, ['a'], [[10, { type: 'MODIFIED', object: testObject('a', '2') }]]);
    factory.informerFor(things, { keyFunc: (o) => `pods:${o.metadata?.namespace}:${o.metadata?.name}` }); // the builder reuses it
    const seen: string[] = [];
    const ctl = controllerFor(factory, things, { name: 'keys', scheduler: ts }).reconcile(async ({ key, namespace, name, object }) => {
      seen.push(`${key} ${namespace}/${name} ${object?.metadata?.resourceVersion ?? 'gone'}`);
    });
    const run = ctl.start();
    await advance(20);
    expect(seen).toEqual(['pods:default:a default/a 1', 'pods:default:a default/a 2']);
    await run.stop();
    factory.shutdown();
  });

  it('should start again, on the warm cache, after a stop: a new term reconciles every cached object', async () => {
    const { ts, advance } = virtualClock(1);
    const factory = setup(ts, ['a', 'b'], []);
    const { ctl, log } = loggingController(ts, factory, 1);
    const queues: unknown[] = [];
    ctl.queue$.subscribe((q) => queues.push(q));
    const first = ctl.start();
    expect(() => ctl.start()).toThrow(/already running/);
    await advance(20);
    await first.stop();
    expect([ctl.isRunning(), log.length]).toEqual([false, 2]);
    const second = ctl.start();
    await advance(40);
    expect(log.map((l) => l.split('@')[0]).sort()).toEqual(['a', 'a', 'b', 'b']);
    expect(queues.map((q) => (q === undefined ? '-' : 'q'))).toEqual(['-', 'q', '-', 'q']);
    await second.stop();
    factory.shutdown();
  });

  it("should feed its workqueue metrics per term under its name, a new leader's term counting its own adds", async () => {
    const { ts, advance } = virtualClock(1);
    const factory = setup(ts, ['a', 'b', 'c'], []);
    const { ctl } = loggingController(ts, factory, 1);
    const registry = new Registry();
    const metrics = controllerWorkqueueMetrics(ctl, { registry, scheduler: ts });
    /** The controller's `workqueue_adds_total`, undefined without a series. */
    const adds = async () => {
      const line = /^workqueue_adds_total\{name="virtual"\} (\d+)$/m.exec(await registry.metrics());
      return line === null ? undefined : Number(line[1]);
    };
    expect(await adds()).toBeUndefined();
    const run = ctl.start();
    await advance(20);
    expect(await adds()).toBe(3);
    await run.stop();
    expect(await adds()).toBeUndefined();
    metrics.unregister();
    factory.shutdown();
  });

  it('should reconcile the warm cache at each term whileLeading starts, and nothing between terms', async () => {
    const { ts, advance } = virtualClock(1);
    const factory = setup(ts, ['a', 'b', 'c'], []);
    const { ctl, log } = loggingController(ts, factory, 1);
    factory.start(); // a standby replica keeps its caches warm
    await advance(10);
    const isLeader$ = new BehaviorSubject(false);
    // whileLeading reads only isLeader$ of the election.
    const election = Object.assign(new Subject(), { isLeader$ }) as unknown as LeaderElection;
    const leading = whileLeading(election, () => ctl.start()).subscribe();
    await advance(20);
    expect(log).toEqual([]);
    isLeader$.next(true); // elected: the cache it already holds is reconciled
    await advance(40);
    expect(log.map((l) => l.split('@')[0]).sort()).toEqual(['a', 'b', 'c']);
    isLeader$.next(false);
    await advance(60);
    expect(ctl.isRunning()).toBe(false);
    isLeader$.next(true); // elected again
    await advance(80);
    expect(log).toHaveLength(6);
    leading.unsubscribe();
    await advance(100);
    expect(ctl.isRunning()).toBe(false);
    factory.shutdown();
  });
});

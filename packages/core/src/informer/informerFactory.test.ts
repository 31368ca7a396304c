import { afterEach, describe, expect, it } from '@jest/globals';
import { Observable, Subject, of } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { FactoryNotStartedError, NoInformersError } from './cacheSync.ts';
import { FactoryShutdownError, createInformerFactory, type InformerFactory } from './informerFactory.ts';
import type { InformerScope, KubeObject, ListerWatcherSource, ListPage, ResourceDescriptor, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler, pagedInformers } from '@rxinformer/testing';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const nodes: ResourceDescriptor = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

/** A source whose lists answer only when the test says so; it records every scope asked for. */
function controllableSource() {
  const lists = new Map<string, Subject<ListPage>>();
  const scopes: [string, InformerScope][] = [];
  const watches: Subject<WatchEvent>[] = [];
  const source: ListerWatcherSource = (resource, scope) => {
    scopes.push([resource.resource, scope]);
    const lw = fakeListerWatcher();
    const list = new Subject<ListPage>();
    lists.set(resource.resource, list);
    lw.scriptList(list);
    const watch = new Subject<WatchEvent>();
    watches.push(watch);
    lw.scriptWatch(watch);
    return lw as never;
  };
  const answer = (resource: string) => {
    const l = lists.get(resource)!;
    l.next(page([obj('x', '1')], '5'));
    l.complete();
  };
  return { source, answer, scopes, watches };
}

const factories: InformerFactory[] = [];
// The sources here answer scripted lists: every informer pages (`useStreamingList: false`).
const make = (...args: Parameters<typeof createInformerFactory>) => {
  const f = pagedInformers(createInformerFactory(...args));
  factories.push(f);
  return f;
};
afterEach(() => {
  for (const f of factories.splice(0)) f.shutdown();
});

describe('createInformerFactory', () => {
  it('should make one informer per resource and scope, with the scope on both list and watch', () => {
    const { source, scopes } = controllableSource();
    const factory = make(source, { namespace: 'team-a', labelSelector: 'app=web' });
    const a = factory.informerFor(pods);
    expect(factory.informerFor(pods)).toBe(a);
    expect(factory.informerFor(pods, { namespace: 'team-b' })).not.toBe(a);
    factory.informerFor(nodes);
    expect(scopes).toEqual([
      ['pods', { namespace: 'team-a', labelSelector: 'app=web', fieldSelector: undefined }],
      ['pods', { namespace: 'team-b', labelSelector: 'app=web', fieldSelector: undefined }],
      ['nodes', { namespace: undefined, labelSelector: 'app=web', fieldSelector: undefined }],
    ]);
  });

  it('should start an informer requested after start at once, and cover it in waitForCacheSync', async () => {
    const { source, answer } = controllableSource();
    const factory = make(source);
    factory.informerFor(pods);
    factory.start();
    factory.start(); // idempotent
    const late = factory.informerFor(nodes);
    expect(late.isRunning()).toBe(true);
    let synced = false;
    const waiting = factory.waitForCacheSync().then(() => {
      synced = true;
    });
    answer('pods');
    await Promise.resolve();
    expect(synced).toBe(false); // nodes has not synced yet
    answer('nodes');
    await waiting;
    expect(synced).toBe(true);
  });

  it('should stop waiting for an informer shut down on its own, and make a new one when it is asked for again', async () => {
    const { source, answer } = controllableSource();
    const factory = make(source);
    const dead = factory.informerFor(pods);
    factory.informerFor(nodes);
    factory.start();
    const waiting = factory.waitForCacheSync();
    dead.shutdown();
    answer('nodes');
    await waiting; // resolves with nodes synced: pods left the factory
    const fresh = factory.informerFor(pods);
    expect(fresh).not.toBe(dead);
    expect(fresh.isRunning()).toBe(true);
    expect(() => fresh.addEventHandler({ onAdd: () => {} })).not.toThrow();
    let synced = false;
    const again = factory.waitForCacheSync().then(() => {
      synced = true;
    });
    await Promise.resolve();
    expect(synced).toBe(false); // the new pods informer has not listed yet
    answer('pods');
    await again;
  });

  it('should say hasSynced only while every informer requested has synced, false with none and after shutdown', () => {
    const { source, answer } = controllableSource();
    const factory = make(source);
    expect(factory.hasSynced()).toBe(false);
    factory.informerFor(pods);
    factory.start();
    expect(factory.hasSynced()).toBe(false);
    answer('pods');
    expect(factory.hasSynced()).toBe(true);
    factory.informerFor(nodes); // requested later: not synced yet
    expect(factory.hasSynced()).toBe(false);
    answer('nodes');
    expect(factory.hasSynced()).toBe(true);
    factory.shutdown();
    expect(factory.hasSynced()).toBe(false);
  });

  it('should reject waitForCacheSync at once before start and before any informer is requested', async () => {
    const { source, answer } = controllableSource();
    const factory = make(source);
    await expect(factory.waitForCacheSync()).rejects.toThrow(FactoryNotStartedError);
    await expect(factory.waitForCacheSync()).rejects.toThrow('the informer factory is not running: call start()');
    factory.start();
    await expect(factory.waitForCacheSync()).rejects.toThrow(NoInformersError);
    const informer = factory.informerFor(pods);
    const waiting = factory.waitForCacheSync();
    answer('pods');
    await waiting;
    expect(informer.hasSynced()).toBe(true);
    await factory.waitForCacheSync(); // already synced: resolves at once
  });

  it('should reject a pending waitForCacheSync on shutdown, stop every informer, and refuse new ones', async () => {
    const { source } = controllableSource();
    const factory = make(source);
    const informer = factory.informerFor(pods);
    factory.start();
    const waiting = factory.waitForCacheSync();
    factory.shutdown();
    factory.shutdown();
    await expect(waiting).rejects.toBeInstanceOf(FactoryShutdownError);
    expect(informer.isRunning()).toBe(false);
    expect(() => factory.informerFor(nodes)).toThrow(FactoryShutdownError);
    await expect(factory.waitForCacheSync()).rejects.toThrow('shut down');
  });

  it('should refuse a source that is not a function or a bad descriptor', () => {
    expect(() => createInformerFactory('nope' as never)).toThrow(InvalidOptionsError);
    const factory = make(controllableSource().source);
    expect(() => factory.informerFor({} as never)).toThrow(InvalidOptionsError);
    // Without `namespaced`, a namespaced resource would be watched in every namespace.
    expect(() => factory.informerFor({ group: '', version: 'v1', resource: 'pods' } as never)).toThrow(/namespaced/);
    expect(() => factory.informerFor(pods, { resyncPeriodMs: 10 })).toThrow(InvalidOptionsError);
  });

  it('should apply the factory transform', async () => {
    const source: ListerWatcherSource = () => {
      const lw = fakeListerWatcher();
      lw.scriptList(of(page([{ ...obj('a', '1'), metadata: { ...obj('a', '1').metadata, managedFields: [{}] } }], '2')));
      return lw as never;
    };
    const factory = make(source, {
      transform: (o) => {
        delete o.metadata?.managedFields;
        return o;
      },
    });
    const informer = factory.informerFor(pods);
    factory.start();
    await factory.waitForCacheSync();
    expect(informer.getStore().get('default/a')?.metadata).not.toHaveProperty('managedFields');
  });
  it("should skip objects of another type than the descriptor's, unless the informer's options say otherwise", async () => {
    const source: ListerWatcherSource = () => {
      const lw = fakeListerWatcher();
      lw.scriptList(of(page([obj('p', '1'), { ...obj('cm', '2'), kind: 'ConfigMap' }, { metadata: obj('bare', '3').metadata }], '5')));
      return lw as never;
    };
    const factory = make(source);
    const typed = factory.informerFor(pods);
    // No kind in the descriptor: its apiVersion is still checked (the Pod and ConfigMap say v1).
    const deployments = factory.informerFor({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true });
    const unchecked = factory.informerFor(pods, { namespace: 'other', reflector: { expectedType: {} } });
    factory.start();
    await factory.waitForCacheSync();
    expect([...typed.getStore().keys()].sort()).toEqual(['default/bare', 'default/p']);
    expect(typed.getStore().get('default/cm')).toBeUndefined();
    expect(deployments.getStore().keys()).toEqual(['default/bare']);
    expect([...unchecked.getStore().keys()].sort()).toEqual(['default/bare', 'default/cm', 'default/p']);
  });

  it('should cover an informer requested while waitForCacheSync is pending', async () => {
    const { source, answer } = controllableSource();
    const factory = make(source);
    factory.informerFor(pods);
    factory.start();
    let synced = false;
    const waiting = factory.waitForCacheSync().then(() => {
      synced = true;
    });
    factory.informerFor(nodes); // requested while waiting: started at once and waited for
    answer('pods');
    await new Promise((r) => setTimeout(r, 0));
    expect(synced).toBe(false);
    answer('nodes');
    await waiting;
    expect(synced).toBe(true);
  });

  it('should refuse invalid factory options at the call', () => {
    const { source } = controllableSource();
    expect(() => createInformerFactory(source, { resyncPeriodMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => createInformerFactory(source, { resyncPeriodMs: 999 })).toThrow(InvalidOptionsError);
    expect(() => createInformerFactory(source, { transform: 'drop' as never })).toThrow('transform must be a function');
    expect(() => createInformerFactory(source, { namespace: 7 as never })).toThrow(InvalidOptionsError);
    expect(() => make(source).informerFor(pods, { labelSelector: {} as never })).toThrow(InvalidOptionsError);
    expect(() => make(source).informerFor({ group: '', version: '', resource: 'pods', namespaced: true })).toThrow(InvalidOptionsError);
  });

  it('should apply the default resync period, overridden per resource', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const source: ListerWatcherSource = (resource) => {
        const lw = fakeListerWatcher();
        // An object of the resource's kind: a Pod in the nodes informer would be skipped.
        lw.scriptList(cold<ListPage>('(p|)', { p: page([{ ...obj('a', '1'), kind: resource.kind }], '5') }));
        return lw as never;
      };
      const factory = make(source, { scheduler: ts, resyncPeriodMs: 2000 });
      const syncs = new Subject<string>();
      const onUpdate = (name: string) => (a: KubeObject, b: KubeObject) => {
        if (a === b) syncs.next(name);
      };
      factory.informerFor(pods, { resyncPeriodMs: 1000 }).addEventHandler({ onUpdate: onUpdate('p') });
      factory.informerFor(nodes).addEventHandler({ onUpdate: onUpdate('n') });
      expectObservable(syncs).toBe('1s p 999ms (np) 996ms p', { p: 'p', n: 'n' });
      factory.start();
      ts.schedule(() => factory.shutdown(), 3500);
    });
  });

  it('should leave no watch, timer or subscription after shutdown', async () => {
    type Proc = { getActiveResourcesInfo(): string[] };
    const proc = (globalThis as { process?: Proc }).process!;
    const timers = () => proc.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const baseline = timers();
    let openWatches = 0;
    const source: ListerWatcherSource = () => {
      const lw = fakeListerWatcher();
      lw.scriptList(of(page([obj('a', '1')], '5')));
      lw.scriptWatch(
        new Observable<WatchEvent>(() => {
          openWatches++;
          return () => {
            openWatches--;
          };
        }),
      );
      return lw as never;
    };
    const factory = make(source, { resyncPeriodMs: 1000 }); // real time: resync timers and watch deadlines
    const informers = [factory.informerFor(pods), factory.informerFor(nodes)];
    const streams: Observable<unknown>[] = informers.flatMap((i) => [i.store$, i.events$, i.status$]);
    let open = 0;
    for (const s of streams) {
      open++;
      s.subscribe({
        complete: () => {
          open--;
        },
      });
    }
    for (const i of informers) i.addEventHandler({ onAdd: () => {} });
    factory.start();
    await factory.waitForCacheSync();
    expect(openWatches).toBe(2);
    expect(timers()).toBeGreaterThan(baseline); // the measure sees the informers' timers
    factory.shutdown();
    expect(openWatches).toBe(0);
    expect(timers()).toBeLessThanOrEqual(baseline); // (a timer of an earlier test may have ended meanwhile)
    expect(open).toBe(0); // every stream completed: no subscriber is kept
  });
});

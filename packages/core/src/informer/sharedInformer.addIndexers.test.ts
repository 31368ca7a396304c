import { afterEach, describe, expect, it } from '@jest/globals';
import { Subject, of } from 'rxjs';
import { IndexerError, InvalidOptionsError } from '../errors.ts';
import { createInformerFactory } from './informerFactory.ts';
import { createSharedInformer, InformerShutdownError, type SharedInformer } from './sharedInformer.ts';
import type { KubeObject, ListerWatcher, ResourceDescriptor, WatchEvent } from '../types.ts';
import { fakeListerWatcher, page, testObject as obj, PAGED } from '@rxinformer/testing';

type Labelled = KubeObject & { metadata: { labels?: Record<string, string> } };

const byApp = (o: KubeObject) => [o.metadata?.labels?.app ?? 'none'];
const labelled = (name: string, rv: string, app: string): Labelled => {
  const o = obj(name, rv) as Labelled;
  return { ...o, metadata: { ...o.metadata, labels: { app } } };
};
const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
});

function running(items: KubeObject[]) {
  const lw = fakeListerWatcher();
  const watch = new Subject<WatchEvent>();
  lw.scriptList(of(page(items, '10')));
  lw.scriptWatch(watch);
  const informer = createSharedInformer(lw, { reflector: PAGED });
  stops.push(() => informer.shutdown());
  informer.start();
  return { informer, watch, lw };
}

describe('SharedInformer.addIndexers', () => {
  it('should index what a started informer holds at once, emit the new snapshot, and keep indexing later events', () => {
    const { informer, watch } = running([labelled('a', '1', 'web'), labelled('b', '2', 'db')]);
    const snapshots: number[] = [];
    informer.store$.subscribe((s) => snapshots.push(s.indexNames().length));
    informer.addIndexers({ byApp });
    expect(snapshots).toEqual([1, 2]);
    expect(informer.getStore().indexKeys('byApp', 'web')).toEqual(['default/a']);
    watch.next({ type: 'ADDED', object: labelled('c', '11', 'web') });
    watch.next({ type: 'MODIFIED', object: labelled('a', '12', 'db') });
    expect([...informer.getStore().indexKeys('byApp', 'web')]).toEqual(['default/c']);
    expect([...informer.getStore().indexKeys('byApp', 'db')].sort()).toEqual(['default/a', 'default/b']);
  });

  it('should keep the index through a relist', () => {
    const { informer, watch, lw } = running([labelled('a', '1', 'web')]);
    informer.addIndexers({ byApp });
    lw.scriptList(of(page([labelled('z', '20', 'web')], '20')));
    watch.next({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(informer.getStore().indexKeys('byApp', 'web')).toEqual(['default/z']);
  });

  it('should leave an index of the same name and function alone, and refuse another function under that name', () => {
    const { informer } = running([labelled('a', '1', 'web')]);
    informer.addIndexers({ byApp });
    const before = informer.getStore();
    informer.addIndexers({ byApp });
    expect(informer.getStore()).toBe(before);
    expect(() => informer.addIndexers({ byApp: () => ['x'] })).toThrow(IndexerError);
    expect(() => informer.addIndexers({ namespace: () => ['x'] })).toThrow(IndexerError);
    expect(informer.getStore()).toBe(before);
  });

  it('should add none when one index function throws, and refuse after shutdown', () => {
    const { informer } = running([labelled('a', '1', 'web')]);
    const before = informer.getStore();
    const bad = () => {
      throw new Error('boom');
    };
    expect(() => informer.addIndexers({ byApp, bad })).toThrow(IndexerError);
    expect(informer.getStore()).toBe(before);
    expect(() => informer.addIndexers(null as never)).toThrow(InvalidOptionsError);
    informer.shutdown();
    expect(() => informer.addIndexers({ byApp })).toThrow(InformerShutdownError);
  });
});

describe('InformerFactory.informerFor on an informer that exists', () => {
  const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
  const make = () => {
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([labelled('a', '1', 'web')], '10')));
    const factory = createInformerFactory(<T extends KubeObject>() => lw as unknown as ListerWatcher<T>);
    stops.push(() => factory.shutdown());
    return factory;
  };

  it('should add the indexers of a later request to the informer, started or not', () => {
    const factory = make();
    const first: SharedInformer<KubeObject> = factory.informerFor(pods, { reflector: PAGED });
    factory.start();
    const again = factory.informerFor(pods, { indexers: { byApp } });
    expect(again).toBe(first);
    expect(first.getStore().indexKeys('byApp', 'web')).toEqual(['default/a']);
  });

  it('should refuse a later request with another transform or resync period instead of ignoring it', () => {
    const factory = make();
    const transform = (o: KubeObject) => o;
    factory.informerFor(pods, { transform, resyncPeriodMs: 60_000 });
    expect(factory.informerFor(pods, { transform, resyncPeriodMs: 60_000 })).toBeDefined();
    expect(() => factory.informerFor(pods, { transform: (o) => o })).toThrow(InvalidOptionsError);
    expect(() => factory.informerFor(pods, { resyncPeriodMs: 30_000 })).toThrow(InvalidOptionsError);
    expect(() => factory.informerFor(pods, { indexers: { namespace: byApp } })).toThrow(IndexerError);
  });
});

/**
 * The factory's run state in virtual time: `retain()` and its grace (StrictMode's unmount and
 * remount keeps the watches, no relist), `stop()` and `start()` again (a relist), and how
 * `start()` and `retain()` hold it together.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestScheduler } from 'rxjs/testing';
import { InvalidOptionsError } from '../errors.ts';
import { FactoryNotStartedError, FactoryStoppedError } from './cacheSync.ts';
import { createInformerFactory, FactoryShutdownError, type InformerFactory, type InformerFactoryOptions } from './informerFactory.ts';
import type { KubeObject, ListPage, ListerWatcherSource, ResourceDescriptor } from '../types.ts';
import {
  fakeListerWatcher,
  flushTo,
  page,
  pagedInformers,
  testObject as obj,
  testScheduler,
  type FakeListerWatcher,
} from '@rxinformer/testing';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const nodes: ResourceDescriptor = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

const factories: InformerFactory[] = [];
afterEach(() => {
  for (const f of factories.splice(0)) f.shutdown();
});

/**
 * A factory on a virtual clock whose ListerWatchers answer every list at once (one object) and
 * hold every watch open; `lists(resource)` and `watches(resource)` count the requests. Its
 * informers page (the lists are scripted).
 */
function virtualFactory(options: InformerFactoryOptions = {}) {
  const ts = testScheduler();
  const lws = new Map<string, FakeListerWatcher<KubeObject>>();
  const source: ListerWatcherSource = (resource) => {
    const lw = fakeListerWatcher();
    for (let i = 0; i < 10; i++)
      lw.scriptList(ts.createColdObservable<ListPage>('(p|)', { p: page([{ ...obj('a', String(i + 1)), kind: resource.kind }], '9') }));
    lws.set(resource.resource, lw);
    return lw as never;
  };
  const factory = pagedInformers(createInformerFactory(source, { scheduler: ts, ...options }));
  factories.push(factory);
  return {
    ts: ts as TestScheduler,
    factory,
    lists: (resource = 'pods') => lws.get(resource)?.listCalls.length ?? 0,
    watches: (resource = 'pods') => lws.get(resource)?.watchCalls.length ?? 0,
    /** Runs the clock to `ms` (and leaves it there). */
    at: (ms: number) => {
      ts.schedule(() => undefined, ms - ts.now());
      flushTo(ts, ms);
    },
  };
}

describe('InformerFactory.retain', () => {
  it('should start on the first retain, and stop (not shut down) once the grace after the last release has passed', () => {
    const { factory, lists, at } = virtualFactory({ releaseGraceMs: 3000 });
    const informer = factory.informerFor(pods);
    expect(factory.isRunning()).toBe(false);
    const release = factory.retain();
    expect(factory.isRunning()).toBe(true);
    at(10);
    expect(informer.hasSynced()).toBe(true);
    release();
    at(3009);
    expect(informer.isRunning()).toBe(true); // still in the grace
    at(3010);
    expect(factory.isRunning()).toBe(false);
    expect(informer.isRunning()).toBe(false);
    expect(informer.getStore().keys()).toEqual(['default/a']); // the cache stays
    expect(() => factory.informerFor(nodes)).not.toThrow(); // not shut down
    expect(lists()).toBe(1);
  });

  it("should keep the watch open without a relist when released and retained again within the grace (StrictMode's remount)", () => {
    const { factory, lists, watches, at } = virtualFactory(); // the default grace, 5000 ms
    const informer = factory.informerFor(pods);
    let release = factory.retain();
    at(10);
    // StrictMode: the effect's cleanup, then the effect again, in one commit.
    release();
    release = factory.retain();
    at(10_000);
    // A route change: unmounted, and mounted again 4 s later.
    release();
    at(14_009);
    release = factory.retain();
    at(30_000);
    expect(informer.isRunning()).toBe(true);
    expect(lists()).toBe(1);
    expect(watches()).toBe(1);
    release();
    at(34_999);
    expect(informer.isRunning()).toBe(true);
    at(35_000);
    expect(informer.isRunning()).toBe(false); // 5000 ms after the last release
  });

  it('should relist when retained again after the grace stopped it', () => {
    const { factory, lists, at } = virtualFactory({ releaseGraceMs: 100 });
    const informer = factory.informerFor(pods);
    factory.retain()();
    at(200);
    expect(informer.isRunning()).toBe(false);
    factory.retain();
    at(210);
    expect(informer.isRunning()).toBe(true);
    expect(lists()).toBe(2);
    expect(informer.getStore().get('default/a')?.metadata?.resourceVersion).toBe('2'); // the relist's answer
  });

  it('should stop at once on the last release with releaseGraceMs 0', () => {
    const { factory, ts } = virtualFactory({ releaseGraceMs: 0 });
    const informer = factory.informerFor(pods);
    const first = factory.retain();
    const second = factory.retain();
    first();
    first(); // a release is counted once
    expect(informer.isRunning()).toBe(true);
    second();
    expect(informer.isRunning()).toBe(false);
    expect(ts.actions).toHaveLength(0); // no timer was set
  });

  it('should count each holder once: the factory runs until every retain is released', () => {
    const { factory, at } = virtualFactory({ releaseGraceMs: 50 });
    const informer = factory.informerFor(pods);
    const a = factory.retain();
    const b = factory.retain();
    a();
    at(1000);
    expect(informer.isRunning()).toBe(true);
    b();
    at(1050);
    expect(informer.isRunning()).toBe(false);
  });

  it('should start informers requested while it runs at once, and those requested while stopped when it runs again', () => {
    const { factory, lists, at } = virtualFactory({ releaseGraceMs: 0 });
    factory.retain()();
    const late = factory.informerFor(nodes);
    at(10);
    expect(late.isRunning()).toBe(false);
    expect(lists('nodes')).toBe(0);
    factory.retain();
    expect(late.isRunning()).toBe(true);
    expect(factory.informerFor(pods).isRunning()).toBe(true);
  });

  it('should refuse retain after shutdown, and leave no timer when shut down in the grace; a release then does nothing', () => {
    const { factory, ts } = virtualFactory({ releaseGraceMs: 1000 });
    const informer = factory.informerFor(pods);
    const first = factory.retain();
    const second = factory.retain();
    first();
    factory.shutdown();
    expect(ts.actions.filter((a) => a.delay === 1000)).toHaveLength(0);
    second();
    expect(ts.actions.filter((a) => a.delay === 1000)).toHaveLength(0);
    expect(informer.isRunning()).toBe(false);
    expect(factory.isRunning()).toBe(false);
    expect(() => factory.retain()).toThrow(FactoryShutdownError);
  });

  it('should refuse a releaseGraceMs that is not a number >= 0, and take Infinity (run on until stop)', () => {
    const source: ListerWatcherSource = () => fakeListerWatcher() as never;
    for (const bad of [-1, Number.NaN, '5' as never])
      expect(() => createInformerFactory(source, { releaseGraceMs: bad })).toThrow(InvalidOptionsError);
    expect(() => createInformerFactory(source, { releaseGraceMs: 0 })).not.toThrow();
    expect(() => createInformerFactory(source, { releaseGraceMs: Infinity })).not.toThrow(); // the table test runs it
  });
});

describe('InformerFactory.stop', () => {
  it('should stop every informer at once and resume with a relist on start(), the caches kept meanwhile', () => {
    const { factory, lists, at } = virtualFactory();
    const informer = factory.informerFor(pods);
    factory.start();
    at(10);
    factory.stop();
    factory.stop(); // idempotent
    expect(informer.isRunning()).toBe(false);
    expect(informer.getStore().size).toBe(1);
    expect(factory.hasSynced()).toBe(true);
    factory.start();
    at(20);
    expect(informer.isRunning()).toBe(true);
    expect(lists()).toBe(2);
  });

  it('should reject a pending waitForCacheSync with FactoryStoppedError, and a later one with FactoryNotStartedError', async () => {
    const { factory } = virtualFactory();
    factory.informerFor(pods);
    factory.start();
    const waiting = factory.waitForCacheSync(); // the list answers only when the clock runs
    factory.stop();
    await expect(waiting).rejects.toBeInstanceOf(FactoryStoppedError);
    await expect(waiting).rejects.toMatchObject({ reason: 'FactoryStopped' });
    await expect(factory.waitForCacheSync()).rejects.toBeInstanceOf(FactoryNotStartedError);
  });

  it("should leave the factory running while a retain holds it, and stop it at that retain's release; retain alone never stops start()'s hold", () => {
    const { factory, at } = virtualFactory({ releaseGraceMs: 100 });
    const informer = factory.informerFor(pods);
    factory.start();
    factory.retain()(); // a view came and went: start() still holds the factory
    at(1000);
    expect(informer.isRunning()).toBe(true);
    const release = factory.retain();
    factory.stop(); // a view still holds it
    at(2000);
    expect(informer.isRunning()).toBe(true);
    release();
    at(2099);
    expect(informer.isRunning()).toBe(true);
    at(2100);
    expect(informer.isRunning()).toBe(false);
  });

  it('should stop at once, without waiting for a grace under way', () => {
    const { factory } = virtualFactory({ releaseGraceMs: 100 });
    const informer = factory.informerFor(pods);
    factory.start();
    factory.retain()();
    factory.stop();
    expect(informer.isRunning()).toBe(false);
  });
});

import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ApplicationRef,
  createEnvironmentInjector,
  EnvironmentInjector,
  Injector,
  PLATFORM_ID,
  provideZonelessChangeDetection,
  type EnvironmentProviders,
} from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { InvalidOptionsError, fetchListerWatcher, type ListerWatcherSource } from '@rxinformer/core';
import { startApiServer } from '@rxinformer/apiserver-sim';
import { initTestBed, manualSource, pod, podsResource, until } from '../test/angularTestKit.ts';
import { InformersNotProvidedError, NotInInjectionContextError } from './errors.ts';
import { informerSignal } from './informerSignal.ts';
import { injectEventHandler } from './injectEventHandler.ts';
import { injectInformer } from './injectInformer.ts';
import { injectInformerFactory, provideInformers } from './provideInformers.ts';

beforeAll(initTestBed);
afterEach(() => {
  TestBed.resetTestingModule();
});

const configure = (...providers: (EnvironmentProviders | { provide: unknown; useValue: unknown })[]) =>
  TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection(), ...providers] });

describe('provideInformers', () => {
  it('should make the factory when first injected, start it, and share one informer per resource', () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    configure(provideInformers({ source: manual.source }));
    TestBed.inject(ApplicationRef);
    expect(manual.requests).toEqual([]); // nothing runs before something injects an informer
    const first = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    const second = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    expect(second.informer).toBe(first.informer);
    expect(manual.requests.map((r) => r.kind)).toEqual(['streaming list']); // one list (and the watch it goes on as) for both
    expect(first.store().size).toBe(1);
    expect(first.synced()).toBe(true);
    expect(first.status().phase).toBe('watching');
  });

  it("should give each environment injector (a route's) its own factory, shut down with it", () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    configure(provideInformers({ source: manual.source }));
    const app = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    const route = createEnvironmentInjector([provideInformers({ source: manual.source })], TestBed.inject(EnvironmentInjector));
    const routed = injectInformer(podsResource, { injector: route });
    expect(routed.informer).not.toBe(app.informer);
    expect(manual.openWatches()).toBe(2);
    route.destroy();
    expect(routed.informer.isRunning()).toBe(false);
    expect(manual.openWatches()).toBe(1); // the route's watch is aborted, the app's goes on
    expect(app.informer.isRunning()).toBe(true);
    expect(() => routed.informer.start()).toThrow('the informer was shut down');
  });

  it('should shut the factory down when the application is destroyed, aborting every watch', () => {
    const manual = manualSource([]);
    configure(provideInformers({ source: manual.source }));
    const pods = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    const nodes = TestBed.runInInjectionContext(() =>
      injectInformer({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false }),
    );
    expect(manual.openWatches()).toBe(2);
    TestBed.resetTestingModule();
    expect(manual.openWatches()).toBe(0);
    expect([pods.informer.isRunning(), nodes.informer.isRunning()]).toEqual([false, false]);
  });

  it("should watch a whileRead informer only while some component's signals read it", () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    configure(provideInformers({ source: manual.source }));
    const component = () => createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const first = component();
    const pods = injectInformer(podsResource, { whileRead: true, injector: first });
    expect([pods.informer.isRunning(), manual.openWatches()]).toEqual([true, 1]);
    first.destroy();
    expect([pods.informer.isRunning(), manual.openWatches()]).toEqual([false, 0]);
    const second = component();
    expect(injectInformer(podsResource, { injector: second }).informer).toBe(pods.informer); // inherits whileRead
    expect([pods.informer.isRunning(), manual.openWatches()]).toEqual([true, 1]);
    expect(() => injectInformer(podsResource, { whileRead: false, injector: second })).toThrow(InvalidOptionsError);
    second.destroy();
    expect(manual.openWatches()).toBe(0);
  });

  it('should hand out the factory itself through injectInformerFactory', async () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    configure(provideInformers({ source: manual.source }));
    const factory = TestBed.runInInjectionContext(() => injectInformerFactory());
    const pods = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    expect(factory.informerFor(podsResource)).toBe(pods.informer);
    await expect(factory.waitForCacheSync()).resolves.toBeUndefined();
  });

  it('should refuse a config without a source with InvalidOptionsError', () => {
    expect(() => provideInformers({} as never)).toThrow(InvalidOptionsError);
    expect(() => provideInformers(undefined as never)).toThrow(InvalidOptionsError);
    expect(() => provideInformers({ source: manualSource([]).source, startOnServer: 'yes' as never })).toThrow(
      'startOnServer must be a boolean',
    );
  });

  it('should throw InformersNotProvidedError when no injector above provides informers', () => {
    configure();
    const error = (() => {
      try {
        TestBed.runInInjectionContext(() => injectInformer(podsResource));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InformersNotProvidedError);
    expect(error).toMatchObject({ reason: 'InformersNotProvided', message: expect.stringContaining('provideInformers({ source })') });
  });

  it('should throw NotInInjectionContextError outside an injection context, with the injector option as the way out', () => {
    const manual = manualSource([]);
    configure(provideInformers({ source: manual.source }));
    const error = (() => {
      try {
        injectInformer(podsResource);
      } catch (e) {
        return e;
      }
    })() as NotInInjectionContextError;
    expect(error).toBeInstanceOf(NotInInjectionContextError);
    expect(error.reason).toBe('NotInInjectionContext');
    expect(String((error.cause as Error).message)).toContain('NG0203');
    expect(injectInformer(podsResource, { injector: TestBed.inject(Injector) }).synced()).toBe(true);
    expect(() => injectInformer(podsResource, { injector: {} as Injector })).toThrow(InvalidOptionsError);
  });
});

describe('provideInformers on the server', () => {
  it('should start no watch without startOnServer, with whileRead neither, and hold no render', async () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    configure(provideInformers({ source: manual.source }), { provide: PLATFORM_ID, useValue: 'server' });
    const pods = TestBed.runInInjectionContext(() => injectInformer(podsResource, { whileRead: true }));
    const count = TestBed.runInInjectionContext(() => informerSignal(pods, (s) => s.size));
    const handler = TestBed.runInInjectionContext(() => injectEventHandler(pods, { onAdd: () => {} }));
    await TestBed.inject(ApplicationRef).whenStable();
    expect(manual.requests).toEqual([]);
    expect([pods.store().size, count(), pods.synced(), pods.status().phase, handler.synced()]).toEqual([0, 0, false, 'stopped', false]);
  });

  it('should list and watch with startOnServer, and keep the app unstable until the informers have synced', async () => {
    const sim = await startApiServer({ port: 0 });
    try {
      for (const name of ['a', 'b']) sim.storage.create('pods', { metadata: { name }, spec: { containers: [] } }, 'default');
      const source: ListerWatcherSource = (resource, scope) => fetchListerWatcher({ baseUrl: sim.url, resource, ...scope });
      configure(provideInformers({ source, startOnServer: true }), { provide: PLATFORM_ID, useValue: 'server' });
      const pods = TestBed.runInInjectionContext(() => injectInformer(podsResource));
      expect(pods.synced()).toBe(false); // the list is on its way over HTTP
      await TestBed.inject(ApplicationRef).whenStable();
      expect(pods.synced()).toBe(true); // the render waited for it
      expect(pods.store().size).toBe(2);
      TestBed.resetTestingModule(); // the request is rendered: its injector goes, the watch with it
      await until(() => sim.watches.sessions().length === 0);
    } finally {
      await sim.close();
    }
  });
});

// The signals over real HTTP: fetchListerWatcher against the simulator, through its faults.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { provideZonelessChangeDetection } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { fetchListerWatcher, KubeApiError, type ListerWatcherSource } from '@rxinformer/core';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { initTestBed, podsResource, until } from '../test/angularTestKit.ts';
import { informerSignal } from './informerSignal.ts';
import { injectInformer } from './injectInformer.ts';
import { provideInformers } from './provideInformers.ts';

let sim: ApiServer;
beforeAll(async () => {
  initTestBed();
  sim = await startApiServer({ port: 0, seed: 4 });
});
afterAll(() => sim?.close());
afterEach(() => {
  TestBed.resetTestingModule();
});

const createPod = (name: string, phase = 'Pending') =>
  sim.storage.create(
    'pods',
    { metadata: { name }, spec: { containers: [{ name: 'main', image: 'nginx' }] }, status: { phase } },
    'default',
  );

describe('@rxinformer/angular against the simulator', () => {
  it('should follow the server through a failed request and a dropped watch, its status showing both', async () => {
    for (const name of ['a', 'b', 'c']) createPod(name);
    const source: ListerWatcherSource = (resource, scope) => fetchListerWatcher({ baseUrl: sim.url, resource, ...scope });
    TestBed.configureTestingModule({ providers: [provideZonelessChangeDetection(), provideInformers({ source, namespace: 'default' })] });
    const pods = TestBed.runInInjectionContext(() => injectInformer(podsResource));
    const names = TestBed.runInInjectionContext(() => informerSignal(pods, (s) => s.keys().toSorted().join(' ')));
    await until(() => pods.synced());
    expect(names()).toBe('default/a default/b default/c');

    await until(() => sim.watches.sessions().length === 1);
    sim.faults.failNext(1, { code: 503, on: 'watch' });
    expect(sim.faults.dropWatches('all')).toBe(1);
    createPod('d');
    // The drop ends the watch abruptly (a network error), the next watch gets the 503: both back off.
    await until(() => pods.status().phase === 'backingOff' && pods.status().lastError instanceof KubeApiError);
    expect(pods.status().lastError).toMatchObject({ code: 503 });
    await until(() => pods.status().phase === 'watching' && names().includes('default/d'));
    expect(pods.status().lastError).toBeUndefined();

    sim.storage.delete('pods', 'default', 'a', { gracePeriodSeconds: 0 });
    await until(() => !names().includes('default/a'));
    expect(names()).toBe('default/b default/c default/d');
    TestBed.resetTestingModule();
    await until(() => sim.watches.sessions().length === 0); // the watch request was aborted
  }, 20_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { KubeApiError, type ReflectorStatus, type SharedInformer } from '@rxinformer/core';
import {
  builtinResources,
  configMaps,
  createKubeInformerFactory,
  pods,
  ResourceNotFoundError,
  type KubeInformerFactory,
} from '../src/index.ts';
import { jsonAnswer, recordingTransport, simKubeConfig, storeView, view, waitFor, type RecordingTransport } from './simHarness.ts';

// The KubeConfig informer factory end to end over real HTTP against the simulator.
const fast = { minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 20, maxMs: 200 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createKubeInformerFactory against the simulator', () => {
  let sim: ApiServer;
  const factories: KubeInformerFactory[] = [];
  const open = (transport: RecordingTransport, options: Parameters<typeof createKubeInformerFactory>[1] = {}) => {
    const f = createKubeInformerFactory(simKubeConfig(sim), { ...options, transport });
    factories.push(f);
    return f;
  };
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 3, bookmarkIntervalMs: 150, history: { maxEvents: 400 } });
    for (const name of ['a', 'b', 'big', 'quiet', 'sel']) sim.storage.create('namespaces', { metadata: { name } });
  });
  afterAll(async () => {
    for (const f of factories) await f.close();
    await sim.close();
  });

  it('should converge through churn and every fault, and see recreations as delete + add', async () => {
    const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: ['a', 'b'], seed: 5 });
    load.seed(300);
    const transport = recordingTransport(simKubeConfig(sim));
    let compactAtNextContinue = false;
    let compactedDuringList = false;
    transport.intercept = (path) => {
      if (compactAtNextContinue && path.includes('continue=')) {
        compactAtNextContinue = false;
        compactedDuringList = true;
        sim.faults.compact(); // the continue token just expired: this page answers 410
      }
    };
    const factory = open(transport, { namespace: undefined });
    const informer: SharedInformer<V1Pod> = factory.informerFor(pods, { reflector: { ...fast, pageSize: 40 } });
    const statuses: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => statuses.push(s));
    const handlerView = new Map<string, string>();
    const uidChanges: string[] = [];
    informer.addEventHandler({
      onAdd: (p) => {
        handlerView.set(`${p.metadata!.namespace}/${p.metadata!.name}`, `${p.metadata!.uid}@${p.metadata!.resourceVersion}`);
      },
      onUpdate: (old, p) => {
        if (old.metadata!.uid !== p.metadata!.uid) uidChanges.push(p.metadata!.name!);
        handlerView.set(`${p.metadata!.namespace}/${p.metadata!.name}`, `${p.metadata!.uid}@${p.metadata!.resourceVersion}`);
      },
      onDelete: (p) => {
        handlerView.delete(`${p.metadata!.namespace}/${p.metadata!.name}`);
      },
    });
    factory.start();
    await factory.waitForCacheSync();
    const churn = load.churn({ ratePerSecond: 150, mix: { create: 2, update: 5, delete: 2, recreate: 2 } });
    const faults: (() => void)[] = [
      () => sim.faults.dropWatches(),
      () => sim.faults.malformedLine(),
      () => sim.faults.injectWatchError(), // 410 as an ERROR event
      () => {
        sim.faults.failNext(1, { code: 410, on: 'watch' });
        sim.faults.dropWatches();
      }, // 410 as HTTP
      () => {
        compactAtNextContinue = true;
        sim.faults.injectWatchError();
      }, // compaction during the paged relist
      () => sim.faults.failNext(2, { code: 500 }),
      () => {
        sim.faults.failNext(1, { code: 429, retryAfterSeconds: 1, on: 'watch' });
        sim.faults.dropWatches();
      },
      () => sim.faults.stallWatches(),
      () => sim.faults.restart(),
    ];
    const watching = () => sim.watches.sessions().some((s) => !s.closed);
    for (const fault of faults) {
      await sleep(250);
      await waitFor(watching, 3000); // each fault hits an open watch (a 429's Retry-After delays the next)
      fault();
    }
    await sleep(250);
    churn.stop();
    expect(churn.counters.recreated).toBeGreaterThan(0);
    const want = view(sim.storage.list('pods').filter((p) => ['a', 'b'].includes(p.metadata!.namespace!)));
    const converged = await waitFor(() => JSON.stringify(storeView(informer.getStore())) === JSON.stringify(want), 20_000);
    expect(storeView(informer.getStore())).toEqual(want);
    expect(converged).toBe(true);
    await waitFor(() => handlerView.size === want.length);
    expect([...handlerView].map(([k, v]) => `${k}=${v}`).sort()).toEqual(want);
    expect(uidChanges).toEqual([]); // a recreation is delete + add, never an update
    expect(compactedDuringList).toBe(true);
    const errors = statuses.map((s) => s.lastError).filter((e): e is Error => e !== undefined);
    expect(errors.some((e) => e instanceof KubeApiError && e.code === 410)).toBe(true);
    expect(errors.some((e) => e instanceof KubeApiError && e.code === 429)).toBe(true);
    expect(errors.some((e) => e.name === 'WatchDecodeError')).toBe(true);
  });

  it('should list 2,000 objects in pages of 500 following continue tokens', async () => {
    const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: ['big'], seed: 9 });
    load.seed(2000);
    const transport = recordingTransport(simKubeConfig(sim));
    const factory = open(transport, { namespace: 'big' });
    const informer = factory.informerFor(pods);
    factory.start();
    await factory.waitForCacheSync();
    expect(informer.getStore().size).toBe(2000);
    expect(storeView(informer.getStore())).toEqual(view(sim.storage.list('pods', 'big')));
    const lists = transport.paths.filter((p) => p.includes('limit='));
    expect(lists).toHaveLength(4);
    expect(lists.every((p) => p.startsWith('/api/v1/namespaces/big/pods?limit=500'))).toBe(true);
    expect(lists.slice(1).every((p) => p.includes('&continue='))).toBe(true);
    factory.shutdown();
  });

  it('should advance the resume resource version with bookmarks', async () => {
    sim.storage.create('configmaps', { metadata: { name: 'only' }, data: { a: '1' } }, 'quiet');
    const transport = recordingTransport(simKubeConfig(sim));
    const factory = open(transport, { namespace: 'quiet' });
    const informer: SharedInformer<V1ConfigMap> = factory.informerFor(configMaps, { reflector: { ...fast, minWatchTimeoutSeconds: 60 } });
    factory.start();
    await factory.waitForCacheSync();
    const synced = informer.lastSyncResourceVersion;
    for (let i = 0; i < 5; i++) sim.storage.create('configmaps', { metadata: { name: `elsewhere-${i}` } }, 'default');
    const target = sim.storage.resourceVersion;
    expect(target).not.toBe(synced);
    expect(await waitFor(() => informer.lastSyncResourceVersion === target)).toBe(true);
    expect(informer.getStore().size).toBe(1); // nothing in this namespace changed
    const watchesBefore = transport.paths.filter((p) => p.includes('watch=true')).length;
    sim.faults.dropWatches();
    await waitFor(() => transport.paths.filter((p) => p.includes('watch=true')).length > watchesBefore);
    const resumed = transport.paths.filter((p) => p.includes('watch=true')).at(-1)!;
    expect(resumed).toContain(`resourceVersion=${target}&`);
    expect(transport.paths.filter((p) => p.includes('limit=')).length).toBe(1); // resumed, no relist
    factory.shutdown();
  });

  it('should sync with a streaming list, and fall back to paging where it is refused', async () => {
    const streaming = recordingTransport(simKubeConfig(sim));
    const f1 = open(streaming, { namespace: 'big' });
    const i1 = f1.informerFor(pods, { reflector: { ...fast, useStreamingList: true } });
    f1.start();
    await f1.waitForCacheSync();
    expect(i1.getStore().size).toBe(2000);
    expect(streaming.paths[0]).toContain('sendInitialEvents=true');
    expect(streaming.paths.some((p) => p.includes('limit='))).toBe(false);
    f1.shutdown();

    const refusing = recordingTransport(simKubeConfig(sim));
    refusing.intercept = (path) =>
      path.includes('sendInitialEvents=true')
        ? jsonAnswer(422, {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Invalid',
            code: 422,
            message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          })
        : undefined;
    const f2 = open(refusing, { namespace: 'big' });
    const i2 = f2.informerFor(pods, { reflector: { ...fast, useStreamingList: true } });
    f2.start();
    await f2.waitForCacheSync();
    expect(i2.getStore().size).toBe(2000);
    expect(refusing.paths.filter((p) => p.includes('sendInitialEvents=true'))).toHaveLength(1);
    expect(refusing.paths.filter((p) => p.includes('limit=500'))).toHaveLength(4);
    f2.shutdown();
  });

  it('should apply label and field selectors to both list and watch', async () => {
    for (const [name, tier] of [
      ['p1', 'frontend'],
      ['p2', 'backend'],
      ['p3', 'frontend'],
    ]) {
      sim.storage.create('pods', { metadata: { name, labels: { tier } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, 'sel');
      sim.storage.create('configmaps', { metadata: { name } }, 'sel');
    }
    const transport = recordingTransport(simKubeConfig(sim));
    const factory = open(transport, { namespace: 'sel' });
    const frontends = factory.informerFor(pods, { labelSelector: 'tier=frontend', reflector: fast });
    const p2 = factory.informerFor(configMaps, { fieldSelector: 'metadata.name=p2', reflector: fast });
    factory.start();
    await factory.waitForCacheSync();
    expect(frontends.getStore().keys().slice().sort()).toEqual(['sel/p1', 'sel/p3']);
    expect(p2.getStore().keys()).toEqual(['sel/p2']);
    const move = (name: string, tier: string) => {
      const cur = sim.storage.get('pods', 'sel', name);
      sim.storage.update('pods', { ...cur, metadata: { ...cur.metadata, labels: { tier } } }, 'sel', name);
    };
    move('p1', 'backend'); // stops matching: DELETED
    move('p2', 'frontend'); // starts matching: ADDED
    expect(await waitFor(() => frontends.getStore().keys().slice().sort().join() === 'sel/p2,sel/p3')).toBe(true);
    const podPaths = transport.paths.filter((p) => p.startsWith('/api/v1/namespaces/sel/pods'));
    expect(podPaths.some((p) => p.includes('watch=true'))).toBe(true);
    expect(podPaths.every((p) => p.includes('labelSelector=tier%3Dfrontend'))).toBe(true);
    const cmPaths = transport.paths.filter((p) => p.startsWith('/api/v1/namespaces/sel/configmaps'));
    expect(cmPaths.length).toBeGreaterThanOrEqual(2);
    expect(cmPaths.every((p) => p.includes('fieldSelector=metadata.name%3Dp2'))).toBe(true);
    factory.shutdown();
  });

  it('should list and watch every built-in descriptor (events.k8s.io aside: the simulator does not serve it)', async () => {
    const factory = open(recordingTransport(simKubeConfig(sim)));
    const served = builtinResources.filter((r) => r.group !== 'events.k8s.io' && r.resource !== 'customresourcedefinitions'); // CRDs: their own test
    const informers = served.map((r) => {
      const ref = `${r.group}/${r.version}/${r.resource}`;
      const name = `every-${r.resource}`;
      sim.storage.create(
        ref,
        { apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind, metadata: { name } },
        r.namespaced ? 'quiet' : undefined,
      );
      return { r, ref, name, informer: factory.informerFor(r, { reflector: fast }) };
    });
    factory.start();
    await factory.waitForCacheSync();
    for (const { r, name, informer } of informers) {
      expect([r.resource, informer.getStore().get(r.namespaced ? `quiet/${name}` : name)?.kind]).toEqual([r.resource, r.kind]);
    }
    for (const { r, ref, name } of informers) sim.storage.delete(ref, r.namespaced ? 'quiet' : undefined, name);
    expect(
      await waitFor(() =>
        informers.every(({ r, name, informer }) => informer.getStore().get(r.namespaced ? `quiet/${name}` : name) === undefined),
      ),
    ).toBe(true);
    factory.shutdown();
  });

  it('should watch a CRD created at run time through discovery', async () => {
    const transport = recordingTransport(simKubeConfig(sim));
    const factory = open(transport);
    await expect(factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' })).rejects.toBeInstanceOf(ResourceNotFoundError);
    sim.storage.create('customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    const widgets = await factory.informerForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }, { namespace: 'a', reflector: fast });
    const byName = await factory.discovery.resolve({ group: 'example.com', version: 'v1', resource: 'widgets' });
    expect(byName).toEqual({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    sim.storage.create(
      'widgets.example.com',
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
      'a',
    );
    factory.start();
    await factory.waitForCacheSync();
    sim.storage.create(
      'widgets.example.com',
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 2 } },
      'a',
    );
    expect(await waitFor(() => widgets.getStore().size === 2)).toBe(true);
    expect(transport.paths.some((p) => p.startsWith('/apis/example.com/v1/namespaces/a/widgets?watch=true'))).toBe(true);
    factory.shutdown();
  });

  it('should report 401 and 403 with a clear status and back off between attempts', async () => {
    sim.faults.setAuth({ token: 's3cret' });
    try {
      const wrong = recordingTransport(simKubeConfig(sim, 'wrong'));
      const f1 = open(wrong, { namespace: 'quiet' });
      const i1 = f1.informerFor(configMaps, { reflector: { ...fast, backoff: { initialMs: 50, maxMs: 400 } } });
      const s1: ReflectorStatus[] = [];
      i1.status$.subscribe((s) => s1.push(s));
      f1.start();
      await waitFor(() => s1.filter((s) => s.phase === 'backingOff').length >= 3);
      f1.shutdown();
      const failed = s1.filter((s) => s.phase === 'backingOff');
      expect(failed.length).toBeGreaterThanOrEqual(3);
      expect(
        failed.every((s) => s.lastError instanceof KubeApiError && s.lastError.code === 401 && s.lastError.reason === 'Unauthorized'),
      ).toBe(true);
      expect(failed.every((s) => (s.backoffMs ?? 0) >= 50)).toBe(true);
      // Every request was followed by a backoff: no hot loop.
      expect(wrong.paths.length).toBeLessThanOrEqual(failed.length + 1);
      expect(i1.hasSynced()).toBe(false);

      sim.faults.forbid('configmaps');
      const right = recordingTransport(simKubeConfig(sim));
      const f2 = open(right, { namespace: 'quiet' });
      const i2 = f2.informerFor(configMaps, { reflector: { ...fast, backoff: { initialMs: 50, maxMs: 100 } } });
      const s2: ReflectorStatus[] = [];
      i2.status$.subscribe((s) => s2.push(s));
      f2.start();
      await waitFor(() => s2.some((s) => s.phase === 'backingOff'));
      const forbidden = s2.find((s) => s.phase === 'backingOff')!.lastError as KubeApiError;
      expect([forbidden.code, forbidden.reason]).toEqual([403, 'Forbidden']);
      expect(forbidden.message).toMatch(/forbidden/);
      sim.faults.allow('configmaps');
      await f2.waitForCacheSync(); // recovers on its own once allowed
      expect(i2.getStore().size).toBe(1);
      f2.shutdown();
    } finally {
      sim.faults.setAuth(undefined);
    }
  });
});

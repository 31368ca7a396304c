/**
 * The KubeConfig informer factory end to end over real HTTP, against the simulator and a real
 * kube-apiserver behind the fault proxy: convergence through churn and faults, paging, bookmarks,
 * streaming lists. Selectors, every descriptor, CRDs and auth are in kubeInformerFactory.resources.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { KubeApiError, type ReflectorStatus, type SharedInformer, type Wire } from '@rxinformer/core';
import { apiChurn, inParallel, serverKinds } from '@rxinformer/testing/servers';
import { configMaps, pods } from '../src/index.ts';
import { fastReflector as fast, listsIn, podBody, rvAtLeast, serverWithKit, storeView, view, waitFor } from './simHarness.ts';

const BIG = 1100;

describe.each(serverKinds())('createKubeInformerFactory against the %s server', (kind) => {
  const env = serverWithKit(kind, { sim: { seed: 3, bookmarkIntervalMs: 150, history: { maxEvents: 400 } } });
  const podsOf = async (...namespaces: string[]) =>
    (await Promise.all(namespaces.map(async (ns) => (await env.server.api.get(`/api/v1/namespaces/${ns}/pods`)).items))).flat();
  let big: Promise<string> | undefined;
  /** A namespace of 1,100 pods, made once (written through the API, 16 at a time): three pages of 500, the last partial. */
  const bigNamespace = () =>
    (big ??= (async () => {
      const ns = await env.server.namespace('big');
      await inParallel(BIG, 16, (i) => env.server.api.create(`/api/v1/namespaces/${ns}/pods`, podBody(`p-${i}`)));
      return ns;
    })());

  it('should converge through churn and every fault, and see recreations as delete + add', async () => {
    const namespaces = [await env.server.namespace('a'), await env.server.namespace('b')];
    const churn = apiChurn(env.server.api, {
      collections: namespaces.map((ns) => `/api/v1/namespaces/${ns}/pods`),
      make: (name) => podBody(name),
      seed: 5,
    });
    await churn.seed(300);
    const { factory, transport } = env.kit.open({ namespace: undefined });
    let compactAtNextContinue = false;
    let compactedDuringList = false;
    transport.intercept = async (path) => {
      if (compactAtNextContinue && path.includes('continue=')) {
        compactAtNextContinue = false;
        // A write (the churn may have made none since the first page), then compaction to it: the
        // continue token's revision is now compacted, and this page answers 410.
        await env.server.api.create(`/api/v1/namespaces/${namespaces[0]}/configmaps`, { metadata: { generateName: 'bump-' } });
        await env.server.compact();
        compactedDuringList = true;
      }
    };
    // Paged (pages of 40): the compaction hits a continue token.
    const informer: SharedInformer<Wire<V1Pod>> = factory.informerFor(pods, {
      reflector: { ...fast, pageSize: 40, useStreamingList: false },
    });
    const statuses: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => statuses.push(s));
    const handlerView = new Map<string, string>();
    const uidChanges: string[] = [];
    const see = (p: Wire<V1Pod>) =>
      void handlerView.set(`${p.metadata!.namespace}/${p.metadata!.name}`, `${p.metadata!.uid}@${p.metadata!.resourceVersion}`);
    informer.addEventHandler({
      onAdd: see,
      onUpdate: (old, p) => {
        if (old.metadata!.uid !== p.metadata!.uid) uidChanges.push(p.metadata!.name!);
        see(p);
      },
      onDelete: ({ key }) => void handlerView.delete(key),
    });
    factory.start();
    await factory.waitForCacheSync();
    const run = churn.run({ concurrency: 3, mix: { create: 2, update: 5, delete: 2, recreate: 2 } });
    const { proxy } = env.server;
    const relist = () => {
      proxy.failNext(1, { code: 410, on: 'watch' }); // 410 as HTTP: the next watch; a relist follows
      proxy.cut();
    };
    const faults: (() => unknown)[] = [
      () => proxy.cut(),
      // What only the simulator can do: a garbled line, a 410 as an ERROR event on a live watch.
      ...(env.server.sim ? [() => env.server.sim!.faults.malformedLine(), () => env.server.sim!.faults.injectWatchError()] : []),
      () => proxy.reset(),
      relist,
      () => {
        compactAtNextContinue = true; // compaction during the paged relist
        relist();
      },
      () => proxy.failNext(2, { code: 500 }),
      () => {
        proxy.failNext(1, { code: 429, retryAfterSeconds: 1, on: 'watch' });
        proxy.cut();
      },
      () => proxy.stall(),
      () => env.server.restart(),
    ];
    const changes = () => run.counters.created + run.counters.updated + run.counters.deleted + run.counters.recreated;
    /** Resolves once the churn made `n` more changes: each fault comes in the middle of it. */
    const churned = async (n: number) => {
      const from = changes();
      expect(await waitFor(() => changes() >= from + n, 30_000)).toBe(true);
    };
    for (const fault of faults) {
      await churned(10);
      await waitFor(() => proxy.open() > 0 && !compactAtNextContinue, 30_000); // each fault hits an open watch
      await fault();
    }
    await churned(10);
    await run.stop();
    expect(run.counters.recreated).toBeGreaterThan(0);
    const inChurn = (p: Wire<V1Pod>) => namespaces.includes(p.metadata!.namespace!);
    const want = view(await podsOf(...namespaces));
    const have = () => view(informer.getStore().list().filter(inChurn));
    const converged = await waitFor(() => JSON.stringify(have()) === JSON.stringify(want), 30_000);
    expect(have()).toEqual(want);
    expect(converged).toBe(true);
    const handled = () => [...handlerView].filter(([k]) => namespaces.includes(k.split('/')[0])).map(([k, v]) => `${k}=${v}`);
    await waitFor(() => handled().length === want.length);
    expect(handled().sort()).toEqual(want);
    expect(uidChanges).toEqual([]); // a recreation is delete + add, never an update
    expect(compactedDuringList).toBe(true);
    const errors = statuses.map((s) => s.lastError).filter((e): e is Error => e !== undefined);
    const expired = errors.filter((e): e is KubeApiError => e instanceof KubeApiError && e.code === 410 && e.reason === 'Expired');
    expect(expired.some((e) => /continue parameter is too old/.test(e.message))).toBe(true); // the compaction's
    expect(expired.some((e) => /too old resource version/.test(e.message))).toBe(true); // the restart's
    expect(errors.some((e) => e instanceof KubeApiError && e.code === 429)).toBe(true);
    if (env.server.sim) expect(errors.some((e) => e.name === 'WatchDecodeError')).toBe(true);
  }, 120_000);

  it('should list 1,100 objects in pages of 500 following continue tokens', async () => {
    const ns = await bigNamespace();
    const { factory, transport } = env.kit.open({ namespace: ns });
    const informer = factory.informerFor(pods, { reflector: { useStreamingList: false } });
    factory.start();
    await factory.waitForCacheSync();
    expect(informer.getStore().size).toBe(BIG);
    expect(storeView(informer.getStore())).toEqual(view(await podsOf(ns)));
    const lists = transport.paths.filter((p) => p.includes('limit='));
    expect(lists).toHaveLength(3);
    expect(lists.every((p) => p.startsWith(`/api/v1/namespaces/${ns}/pods?limit=500`))).toBe(true);
    expect(lists.slice(1).every((p) => p.includes('&continue='))).toBe(true);
    factory.shutdown();
  }, 60_000);

  it('should advance the resume resource version with bookmarks', async () => {
    const [quiet, elsewhere] = [await env.server.namespace('quiet'), await env.server.namespace('elsewhere')];
    await env.server.api.create(`/api/v1/namespaces/${quiet}/configmaps`, { metadata: { name: 'only' }, data: { a: '1' } });
    const { factory, transport } = env.kit.open({ namespace: quiet });
    // The simulator sends a bookmark every 150 ms; kube-apiserver about once a minute, and about 2 s
    // before a watch's timeoutSeconds: short watches (5 to 10 s) carry one each.
    const minWatchTimeoutSeconds = env.server.sim ? 60 : 5;
    const informer: SharedInformer<Wire<V1ConfigMap>> = factory.informerFor(configMaps, { reflector: { ...fast, minWatchTimeoutSeconds } });
    factory.start();
    await factory.waitForCacheSync();
    const synced = informer.lastSyncResourceVersion!;
    let target = synced;
    for (let i = 0; i < 5; i++)
      target = (await env.server.api.create(`/api/v1/namespaces/${elsewhere}/configmaps`, { metadata: { name: `cm-${i}` } })).metadata
        .resourceVersion;
    expect(rvAtLeast(synced, target)).toBe(false);
    expect(await waitFor(() => rvAtLeast(informer.lastSyncResourceVersion, target), 40_000)).toBe(true);
    expect(informer.getStore().size).toBe(1); // nothing in this namespace changed
    const watches = () => transport.paths.filter((p) => p.includes('watch=true'));
    const before = watches().length;
    env.server.proxy.cut();
    expect(await waitFor(() => watches().length > before)).toBe(true);
    const resumedAt = /[?&]resourceVersion=(\d+)&/.exec(watches().at(-1)!)?.[1];
    expect(rvAtLeast(resumedAt, target)).toBe(true);
    expect(listsIn(transport.paths)).toHaveLength(1); // resumed, no relist
    factory.shutdown();
  }, 60_000);

  it('should sync 1,100 objects with one streaming list by default: no list at the server', async () => {
    const ns = await bigNamespace();
    const mark = env.server.proxy.requests.length; // the case before lists the same namespace
    const { factory } = env.kit.open({ namespace: ns });
    const informer = factory.informerFor(pods);
    factory.start();
    await factory.waitForCacheSync();
    expect(informer.getStore().size).toBe(BIG);
    expect(storeView(informer.getStore())).toEqual(view(await podsOf(ns)));
    const atServer = env.server.proxy.requests.slice(mark).filter((r) => r.startsWith(`GET /api/v1/namespaces/${ns}/pods?`));
    expect(atServer.filter((r) => !/[?&]watch=true/.test(r))).toEqual([]); // no LIST
    expect(atServer.filter((r) => r.includes('sendInitialEvents=true'))).toHaveLength(1);
    factory.shutdown();
  }, 60_000);
});

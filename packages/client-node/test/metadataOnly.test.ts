/**
 * Metadata-only informers end to end over real HTTP, against the simulator and a real kube-apiserver
 * (which negotiates PartialObjectMetadata from the Accept list): through the KubeConfig factory
 * (kept apart from the full informer of the same resource) and through fetch, converging through
 * recreations, a relist's tombstones, indexes and resync as a full informer does; and against a
 * server that ignores `as=` (a proxy dropping the Accept header), reduced and reported once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createSharedInformer,
  fetchListerWatcher,
  metadataOnly,
  NAMESPACE_INDEX,
  NotPartialMetadataError,
  type KubeObject,
  type PartialObjectMetadata,
  type ReflectorStatus,
  type SharedInformer,
} from '@rxinformer/core';
import { PARTIAL_OBJECT_METADATA_TYPE } from '@rxinformer/core/http';
import { apiChurn, kubeConfigFor, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { createKubeInformerFactory, pods, type KubeInformerFactory } from '../src/index.ts';
import { acceptStrippingProxy, fastReflector as fast, podBody, view, waitFor } from './simHarness.ts';

describe.each(serverKinds())('metadata-only informers against the %s server', (kind) => {
  let server: TestServer;
  let factory: KubeInformerFactory | undefined;
  let namespaces: string[];
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 8, bookmarkIntervalMs: 100, history: { maxEvents: 300 } } });
    namespaces = [await server.namespace('m1'), await server.namespace('m2')];
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await factory?.close();
    await server?.close();
  });
  const podsIn = async (ns: string): Promise<KubeObject[]> => (await server.api.get(`/api/v1/namespaces/${ns}/pods`)).items;
  const serverPods = async () => view((await Promise.all(namespaces.map(podsIn))).flat());
  const ours = (objects: readonly PartialObjectMetadata[]) => view(objects.filter((o) => namespaces.includes(o.metadata.namespace!)));

  it('should cache PartialObjectMetadata apart from the full informer, converging through churn, recreations and a relist', async () => {
    const churn = apiChurn(server.api, {
      collections: namespaces.map((ns) => `/api/v1/namespaces/${ns}/pods`),
      make: (n) => podBody(n),
      seed: 2,
    });
    await churn.seed(40);
    factory = createKubeInformerFactory(server.kubeConfig());
    const podMeta: SharedInformer<PartialObjectMetadata> = factory.informerFor(metadataOnly(pods), { reflector: { ...fast, pageSize: 7 } });
    const full = factory.informerFor(pods, { reflector: fast });
    expect(podMeta).not.toBe(full);
    const uidChanges: string[] = [];
    const tombstones: string[] = [];
    let syncs = 0;
    podMeta.addEventHandler(
      {
        onUpdate: (old, p) => {
          if (old === p) syncs++;
          if (old.metadata.uid !== p.metadata.uid) uidChanges.push(p.metadata.name!);
        },
        onDelete: ({ lastKnown: p, finalStateUnknown }) => {
          if (finalStateUnknown) tombstones.push(p!.metadata.name!);
        },
      },
      { resyncPeriodMs: 1000 },
    );
    factory.start();
    await factory.waitForCacheSync();
    const first = podMeta.getStore().list()[0];
    expect(Object.keys(first).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(first).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' });
    expect(Object.isFrozen(first.metadata)).toBe(true);
    expect(full.getStore().list()[0]).toHaveProperty('spec');

    const run = churn.run({ count: 120, concurrency: 4, mix: { create: 2, update: 4, delete: 2, recreate: 2 } });
    await run.done;
    expect(run.counters.recreated).toBeGreaterThan(0);
    const churned = await serverPods();
    expect(await waitFor(() => ours(podMeta.getStore().list()).join() === churned.join())).toBe(true);
    // Deleted while disconnected, and the server's watch history gone with a restart: resuming is a
    // 410, the relist delivers a tombstone.
    server.proxy.failNext(1000, { code: 503, on: 'watch' });
    server.proxy.cut();
    const gone = (await podsIn(namespaces[0]))[0].metadata!.name!;
    await server.api.delete(`/api/v1/namespaces/${namespaces[0]}/pods/${gone}`);
    await server.restart();
    server.proxy.clear();
    const want = await serverPods();
    expect(await waitFor(() => ours(podMeta.getStore().list()).join() === want.join(), 30_000)).toBe(true);
    expect(await waitFor(() => syncs > 0, 5000)).toBe(true);
    expect(uidChanges).toEqual([]); // a recreation is a delete and an add
    expect(tombstones).toContain(gone);
    const inM2 = podMeta.getStore().byIndex(NAMESPACE_INDEX, namespaces[1]);
    expect(inM2.every((p) => p.metadata.namespace === namespaces[1])).toBe(true);
    expect(inM2.length).toBe((await podsIn(namespaces[1])).length);
  }, 90_000);

  it('should cache PartialObjectMetadata through fetch', async () => {
    const informer = createSharedInformer(
      fetchListerWatcher({ ...server.fetchOptions(), resource: metadataOnly(pods), namespace: namespaces[0] }),
      { reflector: { expectedType: PARTIAL_OBJECT_METADATA_TYPE } },
    );
    try {
      informer.start();
      expect(await waitFor(() => informer.hasSynced())).toBe(true);
      expect(view(informer.getStore().list())).toEqual(view(await podsIn(namespaces[0])));
      expect(
        informer
          .getStore()
          .list()
          .every((p) => p.kind === 'PartialObjectMetadata' && !('spec' in p)),
      ).toBe(true);
    } finally {
      informer.shutdown();
    }
  });

  it('should reduce the full objects of a server that ignores as= to their metadata, reported once', async () => {
    const ns = namespaces[1];
    const proxy = await acceptStrippingProxy(server.credentials);
    const f = createKubeInformerFactory(kubeConfigFor({ url: proxy.url, token: server.credentials.token }));
    try {
      const podMeta = f.informerFor(metadataOnly(pods), { namespace: ns, reflector: fast });
      const statuses: ReflectorStatus[] = [];
      podMeta.status$.subscribe((s) => statuses.push(s));
      f.start();
      await f.waitForCacheSync();
      const name = (await podsIn(ns))[0].metadata!.name!;
      await server.api.patch(`/api/v1/namespaces/${ns}/pods/${name}`, { metadata: { labels: { touched: 'yes' } } });
      expect(await waitFor(() => podMeta.getStore().get(`${ns}/${name}`)?.metadata.labels?.touched === 'yes')).toBe(true);
      expect(view(podMeta.getStore().list())).toEqual(view(await podsIn(ns)));
      expect(
        podMeta
          .getStore()
          .list()
          .every((p) => Object.keys(p).length === 3 && p.kind === 'PartialObjectMetadata'),
      ).toBe(true);
      const reported = new Set(statuses.map((s) => s.lastError).filter((e) => e instanceof NotPartialMetadataError));
      expect(reported.size).toBe(1);
      // The list streams: a watch, which asks for each object's metadata (a paged list asks for the List's).
      expect([...new Set(proxy.accepts())]).toEqual(['application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1']);
    } finally {
      await f.close();
      await proxy.close();
    }
  });
});

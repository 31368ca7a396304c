/**
 * Metadata-only informers end to end over real HTTP against the simulator: through the KubeConfig
 * factory (kept apart from the full informer of the same resource) and through fetch, converging
 * through recreations, a relist's tombstones, indexes and resync as a full informer does; and
 * against a server that ignores `as=` (a proxy dropping the Accept header), reduced and reported once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import {
  createSharedInformer,
  fetchListerWatcher,
  metadataOnly,
  NAMESPACE_INDEX,
  NotPartialMetadataError,
  PARTIAL_OBJECT_METADATA_TYPE,
  type PartialObjectMetadata,
  type ReflectorStatus,
  type SharedInformer,
} from '@rxinformer/core';
import { createKubeInformerFactory, pods, type KubeInformerFactory } from '../src/index.ts';
import { serverKubeConfig, simKubeConfig, view, waitFor } from './simHarness.ts';

const fast = { minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 20, maxMs: 200 } };
const metadataView = (objects: readonly PartialObjectMetadata[]) => view(objects);

describe('metadata-only informers against the simulator', () => {
  let sim: ApiServer;
  let factory: KubeInformerFactory | undefined;
  let load: ReturnType<typeof createLoadGenerator>;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 8, bookmarkIntervalMs: 100, history: { maxEvents: 300 } });
    for (const name of ['m1', 'm2']) sim.storage.create('namespaces', { metadata: { name } });
    load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: ['m1', 'm2'], seed: 2 });
    load.seed(40);
  });
  afterAll(async () => {
    await factory?.close();
    await sim.close();
  });
  const serverPods = () => view(sim.storage.list('pods'));

  it('should cache PartialObjectMetadata apart from the full informer, converging through churn, recreations and a relist', async () => {
    factory = createKubeInformerFactory(simKubeConfig(sim));
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
        onDelete: (p, finalStateUnknown) => {
          if (finalStateUnknown) tombstones.push(p.metadata.name!);
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

    const churn = load.churn({ ratePerSecond: 400, count: 120, mix: { create: 2, update: 4, delete: 2, recreate: 2 } });
    await waitFor(() => churn.counters.recreated > 0 && metadataView(podMeta.getStore().list()).join() === serverPods().join());
    churn.stop(); // the later tests compare a cache with a server that no longer changes
    // Deleted while disconnected: the relist delivers a tombstone.
    sim.faults.failNext(3, { code: 503, on: 'watch' });
    sim.faults.dropWatches();
    const gone = sim.storage.list('pods', 'm1')[0].metadata!.name!;
    sim.storage.delete('pods', 'm1', gone, { gracePeriodSeconds: 0 });
    sim.faults.compact();
    expect(await waitFor(() => metadataView(podMeta.getStore().list()).join() === serverPods().join())).toBe(true);
    expect(await waitFor(() => syncs > 0, 5000)).toBe(true);
    expect(uidChanges).toEqual([]); // a recreation is a delete and an add
    expect(tombstones).toContain(gone);
    expect(
      podMeta
        .getStore()
        .byIndex(NAMESPACE_INDEX, 'm2')
        .every((p) => p.metadata.namespace === 'm2'),
    ).toBe(true);
    expect(podMeta.getStore().byIndex(NAMESPACE_INDEX, 'm2').length).toBe(sim.storage.list('pods', 'm2').length);
  });

  it('should cache PartialObjectMetadata through fetch', async () => {
    const informer = createSharedInformer(fetchListerWatcher({ baseUrl: sim.url, resource: metadataOnly(pods), namespace: 'm1' }), {
      reflector: { expectedType: PARTIAL_OBJECT_METADATA_TYPE },
    });
    try {
      informer.start();
      expect(await waitFor(() => informer.hasSynced())).toBe(true);
      expect(view(informer.getStore().list())).toEqual(view(sim.storage.list('pods', 'm1')));
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
    const proxy = await acceptStrippingProxy(sim.url);
    const f = createKubeInformerFactory(serverKubeConfig(proxy.url));
    try {
      const podMeta = f.informerFor(metadataOnly(pods), { namespace: 'm2', reflector: fast });
      const statuses: ReflectorStatus[] = [];
      podMeta.status$.subscribe((s) => statuses.push(s));
      f.start();
      await f.waitForCacheSync();
      const name = sim.storage.list('pods', 'm2')[0].metadata!.name!;
      const current = sim.storage.get('pods', 'm2', name);
      sim.storage.update('pods', { ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } }, 'm2', name);
      expect(await waitFor(() => podMeta.getStore().get(`m2/${name}`)?.metadata.labels?.touched === 'yes')).toBe(true);
      expect(view(podMeta.getStore().list())).toEqual(view(sim.storage.list('pods', 'm2')));
      expect(
        podMeta
          .getStore()
          .list()
          .every((p) => Object.keys(p).length === 3 && p.kind === 'PartialObjectMetadata'),
      ).toBe(true);
      const reported = new Set(statuses.map((s) => s.lastError).filter((e) => e instanceof NotPartialMetadataError));
      expect(reported.size).toBe(1);
      expect(proxy.accepts()).toContain('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
    } finally {
      await f.close();
      await proxy.close();
    }
  });
});

/** A proxy to `target` that drops the Accept header, as an old server or a careless proxy does; it records what was asked. */
async function acceptStrippingProxy(target: string): Promise<{ url: string; accepts(): string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(String(req.headers.accept));
    const { accept: _dropped, host: _host, ...headers } = req.headers;
    const upstream = request(target + req.url, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepts: () => seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

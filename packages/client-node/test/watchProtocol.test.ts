import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeApiError, WatchListUnsupportedError, type ReflectorStatus, type SharedInformer, type Wire } from '@rxinformer/core';
import { startFaultProxy, type FaultProxy } from '@rxinformer/envtest';
import {
  kubeConfigFor,
  serverKinds,
  START_TIMEOUT_MS,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from '@rxinformer/testing/servers';
import { configMaps, createKubeInformerFactory, createKubeTransport, type KubeInformerFactory } from '../src/index.ts';
import { listsIn, recordingTransport, view, waitFor, type RecordingTransport } from './simHarness.ts';

// The list and watch protocol as kube-apiserver 1.36 speaks it, on both servers: watch-lists (the
// initial events in key order, the resource version from the end bookmark alone, never asked for
// again), the WatchList gate off (422) and a server that ignores sendInitialEvents, 410 after an
// expired continue token and after an apiserver restart.
const fast = { minWatchTimeoutSeconds: 1, idleGraceMs: 2000, backoff: { initialMs: 50, maxMs: 500 } };

describe.each(serverKinds())('the watch protocol against the %s server', (kind) => {
  const servers: TestServer[] = [];
  const proxies: FaultProxy[] = [];
  const factories: KubeInformerFactory[] = [];
  let server: TestServer;
  const open = async (options: TestServerOptions = {}) => {
    const s = await startTestServer(kind, { sim: { bookmarkIntervalMs: 60_000 }, ...options });
    servers.push(s);
    return s;
  };
  /** The same server behind a second proxy that rewrites every request: no server of its own to start. */
  const rewritten = async (rewrite: (path: string) => string): Promise<TestServer> => {
    const { url, token, ca } = server.credentials;
    const proxy = await startFaultProxy({ target: url, targetCa: ca, tls: server.proxyTls, rewrite });
    proxies.push(proxy);
    return { ...server, proxy, kubeConfig: () => kubeConfigFor({ url: proxy.url, token, ca: server.proxyTls?.cert }) };
  };
  const factoryOn = (s: TestServer, namespace: string, transport: RecordingTransport = recordingTransport(s.kubeConfig())) => {
    const f = createKubeInformerFactory(s.kubeConfig(), { namespace, transport });
    factories.push(f);
    return { factory: f, transport };
  };
  const configMapsIn = async (s: TestServer, ns: string, names: string[]) => {
    for (const name of names) await s.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name }, data: { v: name } });
  };
  const serverView = async (s: TestServer, ns: string) => view((await s.api.get(`/api/v1/namespaces/${ns}/configmaps`)).items);
  const statusesOf = (informer: SharedInformer<Wire<V1ConfigMap>>) => {
    const seen: ReflectorStatus[] = [];
    informer.status$.subscribe((st) => seen.push(st));
    return seen;
  };
  beforeAll(async () => {
    server = await open();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories) await f.close();
    for (const p of proxies) await p.close();
    for (const s of servers) await s.close();
  });

  it('should sync from a watch-list by default, take its resource version from the end bookmark, and never ask for the initial events again', async () => {
    const ns = await server.namespace('watch-list');
    await configMapsIn(server, ns, ['e', 'd', 'c', 'b', 'a']); // key order is the reverse of the order of their resource versions
    const { factory, transport } = factoryOn(server, ns);
    const informer = factory.informerFor(configMaps, { reflector: fast });
    const calls = { adds: 0, initial: 0, updates: 0 };
    informer.addEventHandler({
      onAdd: (_o, initial) => {
        calls.adds++;
        if (initial) calls.initial++;
      },
      onUpdate: () => void calls.updates++,
    });
    factory.start();
    await factory.waitForCacheSync();
    const synced = Number(informer.lastSyncResourceVersion);
    const itemRvs = informer
      .getStore()
      .list()
      .map((o) => Number(o.metadata!.resourceVersion));
    expect(synced).toBeGreaterThanOrEqual(Math.max(...itemRvs)); // not the last ADDED's (a's is the highest, e's the lowest)
    const watches = () => transport.paths.filter((p) => p.includes('watch=true'));
    expect(await waitFor(() => watches().length >= 4, 30_000)).toBe(true); // the server ended at least three watches
    expect(watches().filter((p) => p.includes('sendInitialEvents'))).toHaveLength(1);
    expect(watches()[1]).toMatch(new RegExp(`[?&]resourceVersion=${synced}&`)); // resumed from the end bookmark's
    expect(transport.paths.filter((p) => p.includes('limit='))).toEqual([]);
    // At the server: no LIST of the collection, one watch with initial events, the rest without.
    const atServer = server.proxy.requests.filter((r) => r.startsWith(`GET /api/v1/namespaces/${ns}/configmaps?`));
    expect(atServer.filter((r) => !/[?&]watch=true/.test(r))).toEqual([]);
    expect(atServer.filter((r) => r.includes('sendInitialEvents=true'))).toHaveLength(1);
    expect(calls).toEqual({ adds: 5, initial: 5, updates: 0 }); // nothing re-applied
    expect(view(informer.getStore().list())).toEqual(await serverView(server, ns));
  }, 60_000);

  it(
    'should page once a server with the WatchList gate off refuses the watch-list with 422, and page without asking for the other informers of that server',
    async () => {
      const off = await open({ featureGates: { WatchList: false } });
      const ns = await off.namespace('no-watch-list');
      await configMapsIn(off, ns, ['a', 'b', 'c']);
      const { factory, transport } = factoryOn(off, ns);
      const informer = factory.informerFor(configMaps, { reflector: { ...fast, pageSize: 2 } });
      const statuses = statusesOf(informer);
      factory.start();
      await factory.waitForCacheSync();
      expect(view(informer.getStore().list())).toEqual(await serverView(off, ns));
      const refused = statuses.map((s) => s.lastError).find((e) => e instanceof KubeApiError);
      expect([(refused as KubeApiError).code, (refused as KubeApiError).reason]).toEqual([422, 'Invalid']);
      expect(refused!.message).toMatch(/sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/);
      expect(transport.paths.filter((p) => p.includes('sendInitialEvents'))).toHaveLength(1);
      expect(transport.paths.filter((p) => p.includes('limit=2'))).toHaveLength(2);

      // Another informer of the factory (the core group's v1 again), and another factory over the
      // same transport: they page at once, the server never asked again; a new transport asks.
      const asked = () => off.proxy.requests.filter((r) => r.includes('sendInitialEvents=true')).length;
      expect(asked()).toBe(1);
      const other = await off.namespace('no-watch-list-2');
      await configMapsIn(off, other, ['x']);
      const second = factory.informerFor(configMaps, { namespace: other, reflector: fast });
      const { factory: sameTransport } = factoryOn(off, other, transport);
      const third = sameTransport.informerFor(configMaps, { reflector: fast });
      sameTransport.start();
      await factory.waitForCacheSync();
      await sameTransport.waitForCacheSync();
      expect([second.getStore().size, third.getStore().size]).toEqual([1, 1]);
      expect(asked()).toBe(1);
      expect(off.proxy.requests.filter((r) => r.startsWith(`GET /api/v1/namespaces/${other}/configmaps?limit=`))).toHaveLength(2);
      const { factory: fresh } = factoryOn(off, other);
      fresh.informerFor(configMaps, { reflector: fast });
      fresh.start();
      await fresh.waitForCacheSync();
      expect(asked()).toBe(2);
    },
    START_TIMEOUT_MS,
  );

  it(
    'should page once a server ignores sendInitialEvents (an older server) and never sends the end bookmark',
    async () => {
      // An older server knows neither parameter; nor bookmarks (kube-apiserver 1.36 sends the end
      // bookmark for any watch from resourceVersion "" with allowWatchBookmarks).
      const older = await rewritten((path) =>
        path.replace(/&?(sendInitialEvents=true|resourceVersionMatch=NotOlderThan|allowWatchBookmarks=true)/g, ''),
      );
      const ns = await older.namespace('older-server');
      await configMapsIn(older, ns, ['a', 'b', 'c']);
      const { factory, transport } = factoryOn(older, ns);
      const informer = factory.informerFor(configMaps, { reflector: fast });
      const statuses = statusesOf(informer);
      factory.start();
      await factory.waitForCacheSync();
      expect(view(informer.getStore().list())).toEqual(await serverView(older, ns));
      const unsupported = statuses.map((s) => s.lastError).find((e) => e instanceof WatchListUnsupportedError);
      expect(unsupported).toBeInstanceOf(WatchListUnsupportedError);
      expect(transport.paths.filter((p) => p.includes('sendInitialEvents'))).toHaveLength(1);
      expect(transport.paths.some((p) => p.includes('limit='))).toBe(true);
      // Remembered: the next informer of that server pages without asking.
      const next = factory.informerFor(configMaps, { namespace: await older.namespace('older-server-2'), reflector: fast });
      await factory.waitForCacheSync();
      expect(next.hasSynced()).toBe(true);
      expect(transport.paths.filter((p) => p.includes('sendInitialEvents'))).toHaveLength(1);
    },
    START_TIMEOUT_MS,
  );

  it(
    'should relist from scratch when the continue token of a paged list expires with a compaction',
    async () => {
      const ns = await server.namespace('continue');
      const other = await server.namespace('elsewhere');
      await configMapsIn(
        server,
        ns,
        Array.from({ length: 9 }, (_, i) => `cm-${i}`),
      );
      const inner = createKubeTransport(server.kubeConfig());
      let compacted = false;
      const transport: RecordingTransport = {
        ...recordingTransport(server.kubeConfig()),
        get: async (path, signal, kind) => {
          transport.paths.push(path);
          if (path.includes('continue=') && !compacted) {
            compacted = true;
            await server.api.create(`/api/v1/namespaces/${other}/configmaps`, { metadata: { name: 'moves-the-revision' } });
            await server.compact(); // the first page's revision is now compacted: its continue token expired
          }
          return inner.get(path, signal, kind);
        },
      };
      const { factory } = factoryOn(server, ns, transport);
      const informer = factory.informerFor(configMaps, { reflector: { ...fast, pageSize: 4, useStreamingList: false } });
      const statuses = statusesOf(informer);
      factory.start();
      await factory.waitForCacheSync();
      expect(view(informer.getStore().list())).toEqual(await serverView(server, ns));
      const expired = statuses.map((s) => s.lastError).find((e) => e instanceof KubeApiError && e.code === 410) as KubeApiError;
      expect(expired.reason).toBe('Expired');
      expect(expired.message).toMatch(/^The provided continue parameter is too old to display a consistent list result/);
      const firstPages = transport.paths.filter((p) => p.includes('limit=4') && !p.includes('continue='));
      expect(firstPages).toHaveLength(2); // the expired list, then the relist from scratch
      await inner.close();
    },
    START_TIMEOUT_MS,
  );

  it(
    'should relist on the 410 a resumed watch gets after an apiserver restart, and converge',
    async () => {
      const ns = await server.namespace('restart');
      await configMapsIn(server, ns, ['a', 'b']);
      const { factory, transport } = factoryOn(server, ns);
      const informer = factory.informerFor(configMaps, { reflector: { ...fast, minWatchTimeoutSeconds: 300 } });
      const statuses = statusesOf(informer);
      factory.start();
      await factory.waitForCacheSync();
      const lists = () => listsIn(transport.paths).length;
      expect(lists()).toBe(1);
      await server.restart();
      await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'after-restart' } });
      expect(await waitFor(() => informer.getStore().get(`${ns}/after-restart`) !== undefined, 60_000)).toBe(true);
      expect(view(informer.getStore().list())).toEqual(await serverView(server, ns));
      expect(statuses.some((s) => s.lastError instanceof KubeApiError && s.lastError.code === 410)).toBe(true);
      expect(lists()).toBe(2);
    },
    START_TIMEOUT_MS,
  );
});

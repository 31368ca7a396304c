/**
 * Table-row informers end to end over real HTTP, against the simulator and a real kube-apiserver:
 * through the KubeConfig factory (kept apart from the full and the projected informers of the same
 * resource) and through fetch; converging through churn, recreations and a relist after a restart
 * (a 410, as an ERROR event or an answer) as a full informer does, the rows' cells what the server
 * prints for the objects now; and against a proxy that drops the Accept header: a
 * `TableDecodeError`, retried until the Tables come.
 */
import { describe, expect, it } from '@jest/globals';
import {
  createSharedInformer,
  fetchListerWatcher,
  KubeApiError,
  projected,
  tableColumns,
  TableDecodeError,
  tableRows,
  type KubeObject,
  type ReflectorStatus,
  type TableRowObject,
} from '@rxinformer/core';
import { TABLE_ROW_TYPE } from '@rxinformer/core/projection';
import { PAGED } from '@rxinformer/testing';
import { apiChurn, kubeConfigFor, serverKinds } from '@rxinformer/testing/servers';
import { configMaps, createKubeInformerFactory } from '../src/index.ts';
import { acceptStrippingProxy, fastReflector as fast, serverWithKit, view, waitFor } from './simHarness.ts';

const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe.each(serverKinds())('Table-row informers against the %s server', (kind) => {
  const env = serverWithKit(kind, { sim: { seed: 8, bookmarkIntervalMs: 100, history: { maxEvents: 300 } } });
  const inNamespace = async (ns: string) => (await env.server.api.get(`/api/v1/namespaces/${ns}/configmaps`)).items as KubeObject[];
  /** `name → number of data keys` of the server's ConfigMaps, what the rows' `Data` cells must say. */
  const dataCounts = async (ns: string) =>
    Object.fromEntries((await inNamespace(ns)).map((o) => [o.metadata!.name!, Object.keys((o as { data?: object }).data ?? {}).length]));

  it('should cache the rows apart from the full and projected informers, converging through churn, recreations and a restart', async () => {
    const ns = await env.server.namespace('tr');
    const churn = apiChurn(env.server.api, { collections: [`/api/v1/namespaces/${ns}/configmaps`], make: (n) => cm(n), seed: 3 });
    await churn.seed(30);
    const { factory, transport } = env.kit.open();
    const rows = factory.informerFor(tableRows(configMaps), { namespace: ns, reflector: { ...fast, ...PAGED, pageSize: 7 } }); // rows in pages
    const full = factory.informerFor(configMaps, { namespace: ns, reflector: fast });
    const slim = factory.informerFor(projected(configMaps, ['data']), { namespace: ns, reflector: fast });
    expect(new Set([rows, full, slim]).size).toBe(3);
    const statuses: ReflectorStatus[] = [];
    rows.status$.subscribe((s) => statuses.push(s));
    const uidChanges: string[] = [];
    rows.addEventHandler({
      onUpdate: (old, row) => {
        if (old.metadata.uid !== row.metadata.uid) uidChanges.push(row.metadata.name!);
      },
    });
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 60_000 });
    const first = rows.getStore().list()[0];
    expect(first).toMatchObject({ apiVersion: TABLE_ROW_TYPE.apiVersion, kind: 'TableRow' });
    expect(Object.keys(first.cells)).toEqual(['Name', 'Data', 'Age']);
    expect(tableColumns(first)?.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(Object.isFrozen(first.cells)).toBe(true);
    expect(transport.paths.filter((p) => p.includes('includeObject=Metadata')).length).toBeGreaterThan(4); // pages and a watch

    const run = churn.run({ count: 80, concurrency: 4, mix: { create: 2, update: 4, delete: 2, recreate: 2 } });
    await run.done;
    expect(run.counters.recreated).toBeGreaterThan(0);
    await env.server.api.patch(`/api/v1/namespaces/${ns}/configmaps/${(await inNamespace(ns))[0].metadata!.name}`, {
      data: { x: '1', y: '2', z: '3' },
    });
    const converged = async () => {
      const want = await inNamespace(ns);
      const cells = await dataCounts(ns);
      return (
        view(rows.getStore().list()).join() === view(want).join() &&
        rows
          .getStore()
          .list()
          .every((r) => r.cells.Data === cells[r.metadata.name!] && r.cells.Name === r.metadata.name)
      );
    };
    expect(await waitFor(converged)).toBe(true);
    // Gone while the watch was cut and the server restarted: resuming is a 410, the relist converges.
    env.server.proxy.failNext(1000, { code: 503, on: 'watch' });
    env.server.proxy.cut();
    await env.server.api.delete(`/api/v1/namespaces/${ns}/configmaps/${(await inNamespace(ns))[0].metadata!.name}`);
    await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, cm('after-restart', { a: '1', b: '2' }));
    await env.server.restart();
    env.server.proxy.clear();
    expect(await waitFor(converged, 30_000)).toBe(true);
    expect(rows.getStore().get(`${ns}/after-restart`)?.cells.Data).toBe(2);
    expect(uidChanges).toEqual([]); // a recreation is a delete and an add
    // The resumed Table watch was answered 410 (kube-apiserver: an ERROR event holding a plain Status), and relisted.
    const errors = statuses.map((s) => s.lastError).filter((e) => e !== undefined);
    expect(errors.some((e) => e instanceof KubeApiError && e.code === 410)).toBe(true);
    expect(errors.filter((e) => e instanceof TableDecodeError)).toEqual([]);
    expect(statuses.at(-1)!.relistCount).toBeGreaterThan(0);
  }, 120_000);

  it('should cache the rows through fetch, bookmarks of a watch-list included', async () => {
    const ns = await env.server.namespace('tf');
    for (const n of ['f1', 'f2']) await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, cm(n));
    const informer = createSharedInformer(
      fetchListerWatcher<TableRowObject>({ ...env.server.fetchOptions(), resource: tableRows(configMaps), namespace: ns }),
      { reflector: { ...fast, expectedType: TABLE_ROW_TYPE, useStreamingList: true } },
    );
    try {
      informer.start();
      expect(await waitFor(() => informer.hasSynced())).toBe(true);
      expect(view(informer.getStore().list())).toEqual(view(await inNamespace(ns)));
      await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, cm('f3', { a: '1', b: '2', c: '3' }));
      expect(await waitFor(() => informer.getStore().get(`${ns}/f3`)?.cells.Data === 3)).toBe(true);
    } finally {
      informer.shutdown();
    }
  });

  it('should report a TableDecodeError when a proxy drops Accept, and keep trying', async () => {
    const ns = await env.server.namespace('tp');
    await env.server.api.create(`/api/v1/namespaces/${ns}/configmaps`, cm('p1'));
    const proxy = await acceptStrippingProxy(env.server.credentials);
    const f = createKubeInformerFactory(kubeConfigFor({ url: proxy.url, token: env.server.credentials.token }));
    try {
      const rows = f.informerFor(tableRows(configMaps), { namespace: ns, reflector: fast });
      const statuses: ReflectorStatus[] = [];
      rows.status$.subscribe((s) => statuses.push(s));
      f.start();
      expect(await waitFor(() => statuses.filter((s) => s.lastError instanceof TableDecodeError).length >= 2)).toBe(true);
      const error = statuses.find((s) => s.lastError instanceof TableDecodeError)!.lastError as TableDecodeError;
      expect(error).toMatchObject({ reason: 'NotTable', received: 'ConfigMap' }); // the streaming list's first event
      expect(rows.hasSynced()).toBe(false);
      expect(proxy.accepts()).toContain('application/json;as=Table;g=meta.k8s.io;v=v1');
    } finally {
      await f.close();
      await proxy.close();
    }
  });
});

/**
 * Read-your-writes over real HTTP, against the simulator and a real kube-apiserver: the informer's
 * watch is delayed on the client by `LAG_MS`, so it lags behind the controller's writes as a slow
 * watch cache or a loaded connection would. A reconcile that looks again sooner reads its own write
 * only with the hold. And a pod reaper's DELETE answered after the watch delivered the deletion.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { delay } from 'rxjs';
import { createInformerFactory, fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { until } from '@rxinformer/testing';
import type { ControllerError } from '../reconcile/errors.ts';
import { fetchApiClient, type ApiClient, type ApiRequest } from '../client/apiClient.ts';
import { refOf } from '../client/resourceApi.ts';
import { controllerFor } from './controllerBuilder.ts';
import type { Controller } from './controller.ts';

const configMaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
/** A secret, as far as the test writes it. */
interface Secret extends KubeObject {
  stringData?: Record<string, string>;
}
const secrets: ResourceDescriptor<Secret> = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** How far the watch lags behind the writes, in ms. */
const LAG_MS = 400;

describe.each(serverKinds())('read-your-writes against the %s server, its watch lagging', (kind) => {
  let server: TestServer;
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 11 } });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const stop of stops) await stop();
    await server?.close();
  });

  /**
   * A controller of `ns`'s config maps over a lagging watch: each reconcile counts label `n` up to
   * 2 and makes (or updates) secret `<name>-copy` owned by it, then looks again in 20 ms.
   */
  const lagging = (ns: string, readYourWrites: boolean) => {
    const factory = createInformerFactory(
      (resource, scope) => {
        const lw = fetchListerWatcher({ ...server.fetchOptions(), resource, namespace: scope.namespace });
        return { list: (o) => lw.list(o), watch: (o) => lw.watch(o).pipe(delay(LAG_MS)) };
      },
      { namespace: ns },
    );
    const client = fetchApiClient(server.fetchOptions());
    const seen: string[] = [];
    const creates: string[] = [];
    const ctl: Controller = controllerFor(factory, configMaps, { name: `ryw-${kind}-${String(readYourWrites)}`, client, readYourWrites })
      .owns(secrets)
      .reconcile(async ({ namespace, name, object, api }) => {
        if (object === undefined) return;
        const n = Number(object.metadata?.labels?.n ?? 0);
        seen.push(String(n));
        if (n >= 2) return;
        const copy = { metadata: { namespace, name: `${name}-copy`, ownerReferences: [owner(object)] }, stringData: { n: String(n + 1) } };
        const { result } = await api(secrets).createOrUpdate(copy, (d) => void (d.stringData = copy.stringData));
        if (result === 'created') creates.push(name);
        await api(configMaps).mergePatch({ namespace, name }, { metadata: { labels: { n: String(n + 1) } } });
        return { requeueAfterMs: 20 };
      });
    const run = ctl.start();
    stops.push(async () => {
      await run.stop();
      factory.shutdown();
    });
    return { ctl, seen, creates };
  };

  it('should hold the next reconcile until the lagging cache shows the writes, reading each state once', async () => {
    const ns = await server.namespace('ryw-on');
    await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' } });
    const { ctl, seen, creates } = lagging(ns, true);
    await until(() => seen.includes('2'), { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, LAG_MS + 200)); // nothing more comes
    expect(seen).toEqual(['0', '1', '2']);
    expect(creates).toEqual(['c']);
    const stats = ctl.readYourWritesStats();
    expect(stats.holds).toBeGreaterThanOrEqual(2);
    expect(stats).toMatchObject({ released: 2, timeouts: 0, pending: 0 });
  });

  it('should read the stale cache and act on it again with read-your-writes off', async () => {
    const ns = await server.namespace('ryw-off');
    await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' } });
    const { seen } = lagging(ns, false);
    await until(() => seen.includes('2'), { timeoutMs: 15_000 });
    expect(seen.slice(0, 2)).toEqual(['0', '0']); // its own write not yet seen
  });

  it("should not hold a pod reaper's next reconcile when the pod it deleted is gone before the DELETE's answer came", async () => {
    const ns = await server.namespace('ryw-reaper');
    const cm = await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'jobs' } });
    const podsPath = `/api/v1/namespaces/${ns}/pods`;
    const spec = { containers: [{ name: 'c', image: 'example.com/job:1' }] };
    await server.api.create(podsPath, { metadata: { name: 'job-1', ownerReferences: [owner(cm)] }, spec });
    // Its containers ended: kube-apiserver deletes such a pod at once, answering with it marked for deletion.
    await server.api.patch(`${podsPath}/job-1/status`, { status: { phase: 'Succeeded' } }, 'merge');
    const factory = createInformerFactory(
      (resource, scope) => fetchListerWatcher({ ...server.fetchOptions(), resource, namespace: scope.namespace }),
      { namespace: ns },
    );
    const cache = factory.informerFor(pods);
    const direct = fetchApiClient(server.fetchOptions());
    // The DELETE's answer is read once the watch delivered the deletion, as a loaded connection would.
    const client: ApiClient = {
      request: async <T>(req: ApiRequest) => {
        const answer = await direct.request<T>(req);
        if (req.method === 'DELETE') await until(() => cache.getStore().list().length === 0, { timeoutMs: 10_000 });
        return answer;
      },
    };
    const reports: ControllerError[] = [];
    const runs: number[] = [];
    const ctl = controllerFor(factory, configMaps, {
      name: `reaper-${kind}`,
      client,
      readYourWrites: { timeoutMs: 60_000 },
      onError: (e) => reports.push(e),
    })
      .owns(pods)
      .reconcile(async ({ object, api }) => {
        if (object === undefined) return;
        runs.push(cache.getStore().list().length);
        for (const pod of cache.getStore().list())
          if ((pod as { status?: { phase?: string } }).status?.phase === 'Succeeded') await api(pods).delete(refOf(pod));
      });
    const run = ctl.start();
    stops.push(async () => {
      await run.stop();
      factory.shutdown();
    });
    await until(() => runs.length >= 2, { timeoutMs: 20_000 }); // the deletion's own event reconciles the owner again
    expect(runs.slice(0, 2)).toEqual([1, 0]);
    expect(ctl.readYourWritesStats()).toMatchObject({ timeouts: 0, pending: 0 });
    expect(reports).toEqual([]);
  });
});

/** A controller owner reference to the config map `o`. */
function owner(o: KubeObject) {
  return { apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true };
}

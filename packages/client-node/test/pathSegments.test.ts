/**
 * Names and namespaces that are not one path segment never leave the process: `.` and `..` in a
 * URL are resolved by fetch and undici (`configmaps/.` is the collection, `configmaps/..` the
 * namespace), so a delete by such a name would delete every ConfigMap, or the namespace. Each
 * client is refused before sending, against the simulator and a real kube-apiserver, and what the
 * wrong request would have reached is checked to be intact.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstValueFrom } from 'rxjs';
import { InvalidPathSegmentError } from '@rxinformer/core';
import { fetchApiClient, resourceApi, type ApiClient } from '@rxinformer/controller';
import { leaseClient } from '@rxinformer/core/leader-election';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { configMaps, createDiscovery, kubeApiClient, kubeConfigListerWatcher, sharedKubeTransport } from '../src/index.ts';

/** What `fn` threw or rejected with (it must fail). */
async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe.each(serverKinds())('names that are not one path segment, against the %s server', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());

  const clients: [string, () => ApiClient][] = [
    ['fetchApiClient', () => fetchApiClient(server.fetchOptions())],
    ['kubeApiClient', () => kubeApiClient(server.kubeConfig())],
  ];

  it.each(clients)('%s: every verb of resourceApi refuses them, and the collection and the namespace stay', async (_name, make) => {
    const ns = await server.namespace('paths');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (const name of ['keep-1', 'keep-2']) await server.api.create(base, { metadata: { name }, data: { a: '1' } });
    const client = make();
    const cms = resourceApi(client, configMaps);
    for (const name of ['.', '..', 'a/b', 'a%b', '%2e%2e']) {
      const ref = { namespace: ns, name };
      const obj = { metadata: { ...ref, resourceVersion: '1' }, data: { a: '2' } };
      const calls: [string, () => unknown][] = [
        ['delete', () => cms.delete(ref)],
        ['get', () => cms.get(ref)],
        ['replace', () => cms.replace(obj)],
        ['mergePatch', () => cms.mergePatch(ref, { data: { b: '2' } })],
        ['jsonPatch', () => cms.jsonPatch(ref, [{ op: 'add', path: '/data/b', value: '2' }])],
        ['apply', () => cms.apply(obj, { fieldManager: 'm' })],
        ['applyStatus', () => cms.applyStatus(obj, { fieldManager: 'm' })],
        ['update', () => cms.update(obj, (d) => void (d.data = { c: '3' }))],
        ['updateStatus', () => cms.updateStatus(obj, (d) => void (d.data = { c: '3' }))],
        ['createOrUpdate', () => cms.createOrUpdate(obj, (d) => void (d.data = { c: '3' }))],
        ['delete in namespace ..', () => cms.delete({ namespace: '..', name: 'keep-1' })],
      ];
      for (const [verb, call] of calls)
        expect([name, verb, await failure(call)]).toEqual([name, verb, expect.any(InvalidPathSegmentError)]);
    }
    // a path given whole: its dot segments are refused too, spelt %2e or not, or hidden by what the
    // URL parser drops (tab, CR, LF) or reads as '/' (a backslash): unfixed, .\t. deleted the namespace
    for (const path of [
      `${base}/..`,
      `${base}/.`,
      `${base}/%2e%2E`,
      `/api/v1/namespaces/../configmaps`,
      `${base}/.\t.`,
      `${base}\\..`,
      `${base}/.\n`,
    ])
      expect(await failure(() => client.request({ method: 'DELETE', path }))).toBeInstanceOf(InvalidPathSegmentError);
    const left = await server.api.get<{ items: { metadata: { name: string } }[] }>(base);
    expect(left.items.map((i) => i.metadata.name)).toEqual(['keep-1', 'keep-2']);
    expect((await server.api.get<{ status: { phase: string } }>(`/api/v1/namespaces/${ns}`)).status.phase).toBe('Active');
  });

  it('should refuse them in the lease client, the ListerWatcher and discovery, before sending', async () => {
    const kc = server.kubeConfig();
    const leases = leaseClient(kubeApiClient(kc));
    // unfixed, GET .../namespaces/../leases/x became GET /apis/coordination.k8s.io/v1/leases/x: a 404, read as "no Lease"
    expect(await failure(() => firstValueFrom(leases.get('..', 'x')))).toBeInstanceOf(InvalidPathSegmentError);
    expect(await failure(() => firstValueFrom(leases.get('default', '.')))).toBeInstanceOf(InvalidPathSegmentError);
    // unfixed, namespace `..` listed every namespace's ConfigMaps
    expect(await failure(() => kubeConfigListerWatcher(kc, { resource: configMaps, namespace: '..' }))).toBeInstanceOf(
      InvalidPathSegmentError,
    );
    const discovery = createDiscovery(sharedKubeTransport(kc));
    expect(await failure(() => discovery.resolve({ apiVersion: '../v1', kind: 'Namespace' }))).toBeInstanceOf(InvalidPathSegmentError);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  KubeApiError,
  type InformerFactory,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { startTestHub, tabSource, tokenTableAuthenticatorForTests, type TestHub, uncachedReviewAuthorizer } from './hubKit.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

// Real RBAC (kube-apiserver's, and the simulator's): alice may list and watch configmaps in
// one namespace, then in a second one (granted mid-stream), then no longer (revoked mid-stream); her
// tab's cluster-wide informer follows, and never receives an object of a namespace she may not list.
describe.each(serverKinds())('the hub authorizing with SubjectAccessReview on the %s server', (kind) => {
  let server: TestServer;
  let hub: TestHub;
  let authorizer: ReturnType<typeof uncachedReviewAuthorizer>;
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { auth: { token: 'hub-rbac-admin' } } });
    authorizer = uncachedReviewAuthorizer(server.api);
    const users = { 'token-alice': { username: 'alice', groups: ['system:authenticated'] } };
    hub = await startTestHub(server, { authenticator: tokenTableAuthenticatorForTests(users), authorizer });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    await hub?.close();
    await server?.close();
  });

  it('should filter a cluster-wide subscription to the namespaces allowed, widen it on a grant and narrow it on a revocation', async () => {
    const [a, b] = [await server.namespace('rbac-a'), await server.namespace('rbac-b')];
    const role = `hub-cm-reader-${a}`;
    await server.api.create(`${RBAC}/clusterroles`, {
      metadata: { name: role },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] }],
    });
    const bind = (ns: string) =>
      server.api.create(`${RBAC}/namespaces/${ns}/rolebindings`, {
        metadata: { name: 'alice' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      });
    for (const ns of [a, b])
      for (const n of ['one', 'two']) await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: n } });
    await bind(a);

    const { source, wire } = tabSource(hub.url, 'token-alice');
    const factory = createInformerFactory(source);
    factories.push(factory);
    const everywhere = factory.informerFor(CONFIGMAPS);
    const inB = factory.informerFor(CONFIGMAPS, { namespace: b });
    factory.start();
    const holds = async (namespaces: string[], step: string) => {
      const want = (await Promise.all(namespaces.map((ns) => server.api.get(`/api/v1/namespaces/${ns}/configmaps`)))).flatMap((l) =>
        keys(l.items),
      );
      await until(
        () => {
          authorizer.invalidate({ users: ['alice'] }); // RBAC takes a moment to reach kube-apiserver's authorizer
          return JSON.stringify(keys(everywhere.getStore().list())) === JSON.stringify(want.sort());
        },
        { timeoutMs: 60_000, intervalMs: 200, what: `alice's informer at ${step}` },
      );
    };
    await holds([a], 'her namespace');
    expect(lastErrorOf(inB)).toMatchObject({ code: 403 });
    expect(wire.seen.every((k) => k.startsWith(`${a}/`))).toBe(true);

    await bind(b);
    await holds([a, b], 'a grant');
    await until(() => inB.hasSynced(), { what: 'her namespaced informer of the namespace granted' });

    await server.api.delete(`${RBAC}/namespaces/${b}/rolebindings/alice`);
    await holds([a], 'a revocation');
    const revokedAt = wire.seen.length;
    await server.api.create(`/api/v1/namespaces/${b}/configmaps`, { metadata: { name: 'after' } });
    await server.api.create(`/api/v1/namespaces/${a}/configmaps`, { metadata: { name: 'after' } });
    await holds([a], 'writes after the revocation');
    expect(wire.seen.slice(revokedAt).filter((k) => !k.startsWith(`${a}/`))).toEqual([]);
    await until(() => lastErrorOf(inB)?.code === 403, { what: 'her namespaced informer refused again' });
    expect(hub.hub.metrics().decisions.denied.fresh).toBeGreaterThan(0);
  }, 180_000);
});

const keys = (objects: readonly KubeObject[]) => objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

function lastErrorOf(informer: SharedInformer<KubeObject>): KubeApiError | undefined {
  let error: Error | undefined;
  informer.status$.subscribe((s) => (error = s.lastError)).unsubscribe();
  return error instanceof KubeApiError ? error : undefined;
}

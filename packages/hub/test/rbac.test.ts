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
import { serverKinds, serviceAccountToken, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { subjectAccessReviewAuthorizer, tokenReviewAuthenticator, type TokenReviewAuthenticator } from '../src/auth/index.ts';
import type { HubLogFields } from '../src/log.ts';
import {
  reviewClient,
  startTestHub,
  tabSource,
  tokenTableAuthenticatorForTests,
  type TabWire,
  type TestHub,
  uncachedReviewAuthorizer,
} from './hubKit.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

// Real RBAC (kube-apiserver's, and the simulator's): alice may list and watch configmaps in
// one namespace, then in a second one (granted mid-stream), then no longer (revoked mid-stream); her
// tab's cluster-wide informer follows, and never receives an object of a namespace she may not list.
// The first hub decides with one review per decision; the second is the package's own pair:
// TokenReview for two ServiceAccount users and the cached SubjectAccessReview authorizer.
describe.each(serverKinds())('the hub authorizing with SubjectAccessReview on the %s server', (kind) => {
  let server: TestServer;
  let hub: TestHub;
  let authorizer: ReturnType<typeof uncachedReviewAuthorizer>;
  let authHub: TestHub;
  let authenticator: TokenReviewAuthenticator;
  const logs: [string, string, HubLogFields][] = [];
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { auth: { token: 'hub-rbac-admin' } } });
    authorizer = uncachedReviewAuthorizer(server.api);
    const users = {
      'token-alice': { username: 'alice', groups: ['system:authenticated'] },
      'token-witness': { username: 'witness', groups: ['system:authenticated'] },
    };
    hub = await startTestHub(server, { authenticator: tokenTableAuthenticatorForTests(users), authorizer });
    const client = reviewClient(server.api);
    authenticator = tokenReviewAuthenticator(client);
    // short TTLs, re-checked often: the test waits for each change to arrive, never for a time
    const cached = subjectAccessReviewAuthorizer(client, { allowTtlMs: 300, denyTtlMs: 300, recheckIntervalMs: 200 });
    authHub = await startTestHub(server, {
      authenticator,
      authorizer: cached,
      log: (level, message, fields) => logs.push([level, message, fields]),
    });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    await hub?.close();
    await authHub?.close();
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

    // Her last namespace revoked: the cluster-wide view empties (a 403 would leave her objects in
    // the store), and nothing reaches her tab after, whatever is written: a witness allowed in her
    // old namespace, on the same hub, sees the write arrive.
    await server.api.create(`${RBAC}/namespaces/${a}/rolebindings`, {
      metadata: { name: 'witness' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'witness' }],
    });
    await server.api.delete(`${RBAC}/namespaces/${a}/rolebindings/alice`);
    await holds([], 'the last revocation');
    const emptiedAt = wire.seen.length;
    const witness = createInformerFactory(tabSource(hub.url, 'token-witness').source);
    factories.push(witness);
    const witnessed = witness.informerFor(CONFIGMAPS);
    witness.start();
    await server.api.create(`/api/v1/namespaces/${a}/configmaps`, { metadata: { name: 'after-all' } });
    await until(
      () =>
        witnessed
          .getStore()
          .list()
          .some((o) => o.metadata?.name === 'after-all'),
      {
        timeoutMs: 60_000,
        what: 'the witness receiving the write',
      },
    );
    expect(everywhere.getStore().list()).toEqual([]);
    expect(wire.seen.slice(emptiedAt)).toEqual([]);
  }, 180_000);

  it('should show each user only the namespaces RBAC allows, through a grant, a revocation, a resume and a relist', async () => {
    const [a, b] = [await server.namespace('auth-a'), await server.namespace('auth-b')];
    const alice = await serviceAccountToken(server, a, 'alice');
    const bob = await serviceAccountToken(server, b, 'bob');
    const role = `hub-cm-reader-${a}`;
    await server.api.create(`${RBAC}/clusterroles`, {
      metadata: { name: role },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] }],
    });
    const bind = (ns: string, who: { username: string }) =>
      server.api.create(`${RBAC}/namespaces/${ns}/rolebindings`, {
        metadata: { name: who.username.split(':').pop() },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: who.username }],
      });
    for (const ns of [a, b])
      for (const n of ['one', 'two']) await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: n } });
    await bind(a, alice);
    await bind(b, bob);

    const tab = (token: string) => {
      const { source, wire } = tabSource(authHub.url, token);
      const factory = createInformerFactory(source);
      factories.push(factory);
      const informer = factory.informerFor(CONFIGMAPS, { reflector: { backoff: { initialMs: 50, maxMs: 500 } } }); // quick retries: a fast test
      factory.start();
      return { wire, informer };
    };
    const aliceTab = tab(alice.token);
    const bobTab = tab(bob.token);
    const holds = async (t: { informer: SharedInformer<KubeObject> }, namespaces: string[], step: string) => {
      const lists = await Promise.all(namespaces.map((ns) => server.api.get(`/api/v1/namespaces/${ns}/configmaps`)));
      const want = JSON.stringify(lists.flatMap((l) => keys(l.items)).sort());
      await until(() => JSON.stringify(keys(t.informer.getStore().list())) === want, { timeoutMs: 60_000, intervalMs: 50, what: step });
    };
    await holds(aliceTab, [a], "alice's namespace");
    await holds(bobTab, [b], "bob's namespace");
    expect(only(aliceTab.wire, a)).toBe(true);

    await bind(b, alice);
    await holds(aliceTab, [a, b], 'a grant to alice');

    await server.api.delete(`${RBAC}/namespaces/${b}/rolebindings/alice`);
    await holds(aliceTab, [a], 'the revocation');
    const revokedAt = aliceTab.wire.seen.length;

    // a resume: the socket dropped, the watch resumed from its resource version
    const sockets = aliceTab.wire.sockets.length;
    aliceTab.wire.sockets.at(-1)!.terminate();
    await server.api.create(`/api/v1/namespaces/${b}/configmaps`, { metadata: { name: 'after-resume' } });
    await server.api.create(`/api/v1/namespaces/${a}/configmaps`, { metadata: { name: 'after-resume' } });
    await holds(aliceTab, [a], 'a resume after the revocation');
    expect(aliceTab.wire.sockets.length).toBeGreaterThan(sockets);

    // a relist: the history compacted, the socket dropped again
    await server.compact();
    aliceTab.wire.sockets.at(-1)!.terminate();
    await server.api.create(`/api/v1/namespaces/${b}/configmaps`, { metadata: { name: 'after-relist' } });
    await server.api.create(`/api/v1/namespaces/${a}/configmaps`, { metadata: { name: 'after-relist' } });
    await holds(aliceTab, [a], 'a relist after the revocation');
    await holds(bobTab, [b], "bob's namespace at the end");

    expect(aliceTab.wire.seen.slice(revokedAt).filter((k) => !k.startsWith(`${a}/`))).toEqual([]);
    expect(aliceTab.wire.seen.slice(revokedAt)).toContain(`${a}/after-relist`);
    expect(only(bobTab.wire, b)).toBe(true);
    expect(authHub.hub.metrics().decisions.allowed.cached).toBeGreaterThan(0);

    // the tokens: never a cache key, never in a log line
    const text = JSON.stringify({ keys: authenticator.cachedKeys(), logs });
    expect(authenticator.cachedKeys().length).toBeGreaterThan(0);
    for (const token of [alice.token, bob.token]) expect(text).not.toContain(token);
  }, 240_000);
});

const keys = (objects: readonly KubeObject[]) => objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

function lastErrorOf(informer: SharedInformer<KubeObject>): KubeApiError | undefined {
  let error: Error | undefined;
  informer.status$.subscribe((s) => (error = s.lastError)).unsubscribe();
  return error instanceof KubeApiError ? error : undefined;
}

/** True when everything `wire` received is of namespace `ns`. */
const only = (wire: TabWire, ns: string) => wire.seen.length > 0 && wire.seen.every((k) => k.startsWith(`${ns}/`));

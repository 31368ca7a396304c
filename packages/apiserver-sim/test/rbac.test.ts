/**
 * The simulator's authentication and RBAC held to kube-apiserver's: the same requests, by the same
 * ServiceAccount (a TokenRequest token) with the same Roles and bindings, in namespaces of the same
 * names, answered with the same status, reason, message and details; and TokenReview,
 * SubjectAccessReview and SelfSubjectAccessReview deciding alike.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { until } from '@rxinformer/testing';
import { serverKinds, serviceAccountToken, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const withReal = serverKinds().includes('real');

/** What a request's answer must agree on: its status, and an error's Status less nothing. */
const shape = (a: { status: number; body: any }) => (a.status >= 400 ? { status: a.status, body: a.body } : { status: a.status });

(withReal ? describe : describe.skip)('the simulator authorizes as kube-apiserver 1.36.3 with RBAC', () => {
  let sim: TestServer;
  let real: TestServer;
  const suffix = randomBytes(3).toString('hex');
  const [a, b] = [`rbac-a-${suffix}`, `rbac-b-${suffix}`];
  beforeAll(async () => {
    [sim, real] = await Promise.all([startTestServer('sim', { sim: { auth: { token: `admin-${suffix}` } } }), startTestServer('real')]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([sim?.close(), real?.close()]);
  });

  /** Sets up both servers alike; returns the reader's token on each. */
  async function setUp(server: TestServer): Promise<string> {
    for (const ns of [a, b]) await server.api.create('/api/v1/namespaces', { metadata: { name: ns } });
    const { token } = await serviceAccountToken(server, a, 'reader');
    await server.api.create(`${RBAC}/namespaces/${a}/roles`, {
      metadata: { name: 'reader' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['secrets'], resourceNames: ['mine'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      ],
    });
    await server.api.create(`${RBAC}/namespaces/${a}/rolebindings`, {
      metadata: { name: 'reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: a }],
    });
    return token;
  }

  /** The answers of `calls` as `token`, on one server. */
  const answers = async (server: TestServer, token: string, calls: [string, string, unknown?][]) => {
    const out: unknown[] = [];
    for (const [method, path, body] of calls)
      out.push(shape(await server.api.call(method, path, body, { authorization: `Bearer ${token}` })));
    return out;
  };

  it('should answer allowed and forbidden requests, and reviews, with the same status, reason and message', async () => {
    const [simToken, realToken] = await Promise.all([setUp(sim), setUp(real)]);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/namespaces/${a}/configmaps`],
      ['GET', `/api/v1/namespaces/${b}/configmaps`],
      ['GET', '/api/v1/configmaps'],
      ['GET', `/api/v1/namespaces/${a}/configmaps?watch=true&timeoutSeconds=1`],
      ['GET', `/api/v1/namespaces/${a}/secrets/mine`],
      ['GET', `/api/v1/namespaces/${a}/secrets/theirs`],
      ['GET', `/api/v1/namespaces/${a}/pods/p/status`],
      ['POST', `/apis/apps/v1/namespaces/${a}/deployments`, { metadata: { name: 'd' } }],
      ['DELETE', `/api/v1/namespaces/${a}/configmaps/x`],
      ['GET', '/apis'],
      ['GET', '/metrics'],
      ['GET', `${RBAC}/namespaces/${a}/roles`],
    ];
    // RBAC objects reach kube-apiserver's authorizer through its informers: a moment later
    let realAnswers: unknown[] = [];
    await until(
      () => {
        void answers(real, realToken, calls.slice(0, 1)).then((r) => (realAnswers = r));
        return (realAnswers[0] as { status?: number } | undefined)?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the Role taking effect on kube-apiserver' },
    );
    expect(await answers(sim, simToken, calls)).toEqual(await answers(real, realToken, calls));

    // a ServiceAccount's token subresource: created only, a TokenRequest in discovery
    const tokenApi = async (s: TestServer) => ({
      discovery: (await s.api.get('/api/v1')).resources.find((r: { name: string }) => r.name === 'serviceaccounts/token'),
      get: shape(await s.api.call('GET', `/api/v1/namespaces/${a}/serviceaccounts/reader/token`)),
    });
    expect(await tokenApi(sim)).toEqual(await tokenApi(real));

    const unknown = [['GET', `/api/v1/namespaces/${a}/configmaps`]] as [string, string][];
    expect(await answers(sim, 'not-a-token', unknown)).toEqual(await answers(real, 'not-a-token', unknown));

    const reviews = async (server: TestServer, token: string) => {
      const username = `system:serviceaccount:${a}:reader`;
      const sar = (namespace: string) =>
        server.api.create('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          spec: {
            user: username,
            groups: ['system:serviceaccounts'],
            resourceAttributes: { verb: 'list', resource: 'configmaps', namespace },
          },
        });
      const ssar = await server.api.call(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { spec: { resourceAttributes: { verb: 'get', resource: 'secrets', name: 'mine', namespace: a } } },
        { authorization: `Bearer ${token}` },
      );
      const tr = await server.api.create('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token } });
      const bad = await server.api.create('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'not-a-token' } });
      return {
        inA: (await sar(a)).status,
        inB: (await sar(b)).status,
        self: { code: ssar.status, status: ssar.body.status },
        token: { authenticated: tr.status.authenticated, username: tr.status.user.username, groups: tr.status.user.groups },
        badToken: { authenticated: bad.status.authenticated ?? false },
      };
    };
    expect(await reviews(sim, simToken)).toEqual(await reviews(real, realToken));
  }, 120_000);

  it('should withdraw access when the binding is deleted', async () => {
    const [simToken, realToken] = [await tokenOf(sim), await tokenOf(real)];
    for (const s of [sim, real]) await s.api.delete(`${RBAC}/namespaces/${a}/rolebindings/reader`);
    const list = [['GET', `/api/v1/namespaces/${a}/configmaps`]] as [string, string][];
    let realAnswer: any;
    await until(
      () => {
        void answers(real, realToken, list).then((r) => (realAnswer = r[0]));
        return realAnswer?.status === 403;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the revocation taking effect on kube-apiserver' },
    );
    expect(await answers(sim, simToken, list)).toEqual([realAnswer]);
  }, 60_000);

  it('should evaluate wildcards, subresource wildcards, non-resource URLs and Group subjects alike', async () => {
    const [simToken, realToken] = [await tokenOf(sim), await tokenOf(real)];
    for (const s of [sim, real]) {
      await s.api.create(`${RBAC}/clusterroles`, {
        metadata: { name: `wide-${suffix}` },
        rules: [
          { apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] },
          { apiGroups: ['apps'], resources: ['*'], verbs: ['list'] },
          { nonResourceURLs: ['/nothing-here/*'], verbs: ['get'] },
        ],
      });
      await s.api.create(`${RBAC}/clusterrolebindings`, {
        metadata: { name: `wide-${suffix}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `wide-${suffix}` },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${a}` }],
      });
    }
    const calls: [string, string, unknown?][] = [
      ['GET', '/apis/apps/v1/deployments'],
      ['GET', `/api/v1/namespaces/${b}/pods/p/status`],
      ['GET', `/api/v1/namespaces/${b}/pods/p`],
      ['GET', `/apis/apps/v1/namespaces/${b}/deployments/d/status`],
      ['POST', `/apis/apps/v1/namespaces/${b}/deployments`, { metadata: { name: 'd' } }],
      ['GET', '/nothing-here/x'],
      ['GET', '/nothing-else'],
    ];
    let first: any;
    await until(
      () => {
        void answers(real, realToken, calls.slice(0, 1)).then((r) => (first = r[0]));
        return first?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the ClusterRoleBinding taking effect on kube-apiserver' },
    );
    expect(await answers(sim, simToken, calls)).toEqual(await answers(real, realToken, calls));
  }, 60_000);

  /** A fresh token of the reader. */
  async function tokenOf(server: TestServer): Promise<string> {
    const r = await server.api.create(`/api/v1/namespaces/${a}/serviceaccounts/reader/token`, { spec: { expirationSeconds: 3600 } });
    return r.status.token;
  }
});

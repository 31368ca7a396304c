/**
 * A client the server authenticates but does not allow to read a resource, until the test allows
 * it: what a controller deployed without its RBAC meets, then after its Role is applied.
 */
import type { TestServer } from './index.ts';

/** A token the server answers 403 for `resource` in `namespace`, until `allow()`. */
export interface RestrictedAccess {
  /** The bearer token to give the client under test. */
  readonly token: string;
  /** Lets the token get, list and watch `resource` in `namespace` (kube-apiserver's RBAC caches take it up within moments). */
  allow(): Promise<void>;
}

let serial = 0;

/** A ServiceAccount's token and the username the server knows it by. */
export interface ServiceAccountToken {
  readonly token: string;
  /** `system:serviceaccount:<namespace>:<name>`. */
  readonly username: string;
}

/**
 * A new ServiceAccount `name` of `namespace` (no RBAC at all) and a token from the TokenRequest
 * API: a second user on either server (the simulator needs `auth` for its token to mean anything).
 *
 * @example
 * const alice = await serviceAccountToken(server, ns, 'alice');
 * server.kubeConfig({ token: alice.token });
 */
export async function serviceAccountToken(server: TestServer, namespace: string, name: string): Promise<ServiceAccountToken> {
  await server.api.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  const request = await server.api.create(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  return { token: request.status.token as string, username: `system:serviceaccount:${namespace}:${name}` };
}

/**
 * A ServiceAccount of `namespace` with a token from the TokenRequest API and no RBAC at all;
 * `allow()` binds it a Role for `resource`. The same on both servers: the simulator must run with
 * `auth` (its RBAC then decides for every token but its own).
 */
export async function restrictedAccess(
  server: TestServer,
  namespace: string,
  resource: { group?: string; resource: string },
): Promise<RestrictedAccess> {
  const group = resource.group ?? '';
  if (server.sim && server.sim.faults.token === undefined)
    throw new Error('restrictedAccess needs the simulator started with auth: { token }');
  const name = `restricted-${++serial}`;
  const { api } = server;
  const { token } = await serviceAccountToken(server, namespace, name);
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  return {
    token,
    allow: async () => {
      await api.create(`${rbac}/roles`, {
        metadata: { name },
        rules: [{ apiGroups: [group], resources: [resource.resource], verbs: ['get', 'list', 'watch'] }],
      });
      await api.create(`${rbac}/rolebindings`, {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      });
    },
  };
}

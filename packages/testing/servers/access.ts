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

/**
 * On the real server, a ServiceAccount of `namespace` with a token from the TokenRequest API and no
 * RBAC at all; `allow()` binds it a Role for `resource`. The simulator has neither ServiceAccount
 * tokens nor RBAC: there the server's own token is refused for `resource` (`faults.forbid`, every
 * client alike; the simulator must run with `auth`) until `allow()` lifts it.
 */
export async function restrictedAccess(
  server: TestServer,
  namespace: string,
  resource: { group?: string; resource: string },
): Promise<RestrictedAccess> {
  const group = resource.group ?? '';
  if (server.sim) {
    const sim = server.sim;
    if (sim.faults.token === undefined) throw new Error('restrictedAccess needs the simulator started with auth: { token }');
    const name = group ? `${resource.resource}.${group}` : resource.resource;
    sim.faults.forbid(name, ['list', 'watch', 'get']);
    return { token: sim.faults.token, allow: async () => sim.faults.allow(name) };
  }
  const name = `restricted-${++serial}`;
  const { api } = server;
  await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  const request = await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  const token: string = request.status.token;
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

/**
 * Kubeconfig files for the simulator: plain HTTP on loopback, `insecure-skip-tls-verify` so
 * @kubernetes/client-node accepts `http://`, and the bearer token when auth is on.
 */
import { writeFile } from 'node:fs/promises';

/** Options of `kubeconfigYaml`. */
export interface KubeconfigOptions {
  /** The server URL, e.g. `http://127.0.0.1:6443`. */
  server: string;
  /** Bearer token (default: none). */
  token?: string;
  /** The context's namespace (default `default`). */
  namespace?: string;
  /** Cluster, user and context name (default `sim`). */
  name?: string;
}

/**
 * The kubeconfig YAML for the simulator.
 *
 * @example
 * kc.loadFromString(kubeconfigYaml({ server: sim.url }));
 */
export function kubeconfigYaml(options: KubeconfigOptions): string {
  const name = options.name ?? 'sim';
  const q = (s: string) => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(name)}`,
    '  cluster:',
    `    server: ${q(options.server)}`,
    '    insecure-skip-tls-verify: true',
    'contexts:',
    `- name: ${q(name)}`,
    '  context:',
    `    cluster: ${q(name)}`,
    `    user: ${q(name)}`,
    `    namespace: ${q(options.namespace ?? 'default')}`,
    `current-context: ${q(name)}`,
    'users:',
    `- name: ${q(name)}`,
    options.token !== undefined ? `  user:\n    token: ${q(options.token)}` : '  user: {}',
    '',
  ].join('\n');
}

/** Writes the kubeconfig to `path` (mode 0600). */
export async function writeKubeconfigFile(path: string, options: KubeconfigOptions): Promise<void> {
  await writeFile(path, kubeconfigYaml(options), { mode: 0o600 });
}

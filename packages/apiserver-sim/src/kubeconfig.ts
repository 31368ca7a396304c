/**
 * Kubeconfig files for the simulator: plain HTTP on loopback with `insecure-skip-tls-verify` (so
 * @kubernetes/client-node accepts `http://`), or HTTPS with the CA and client certificate as
 * `*-data` fields; and the bearer token when auth is on.
 */
import { replacePrivateFile } from './privateFile.ts';

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
  /** The CA (PEM) of an HTTPS server; without it the cluster is `insecure-skip-tls-verify`. */
  certificateAuthority?: string;
  /** Client certificate (PEM) for x509 authentication (default: none). */
  clientCertificate?: string;
  /** The client certificate's key (PEM). */
  clientKey?: string;
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
  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  const user: string[] = [];
  if (options.token !== undefined) user.push(`    token: ${q(options.token)}`);
  if (options.clientCertificate !== undefined) user.push(`    client-certificate-data: ${b64(options.clientCertificate)}`);
  if (options.clientKey !== undefined) user.push(`    client-key-data: ${b64(options.clientKey)}`);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(name)}`,
    '  cluster:',
    `    server: ${q(options.server)}`,
    options.certificateAuthority !== undefined
      ? `    certificate-authority-data: ${b64(options.certificateAuthority)}`
      : '    insecure-skip-tls-verify: true',
    'contexts:',
    `- name: ${q(name)}`,
    '  context:',
    `    cluster: ${q(name)}`,
    `    user: ${q(name)}`,
    `    namespace: ${q(options.namespace ?? 'default')}`,
    `current-context: ${q(name)}`,
    'users:',
    `- name: ${q(name)}`,
    user.length > 0 ? `  user:\n${user.join('\n')}` : '  user: {}',
    '',
  ].join('\n');
}

/**
 * Writes the kubeconfig to `path` (mode 0600), replacing a file there atomically (`replacePrivateFile`).
 *
 * @example
 * await writeKubeconfigFile('./sim.kubeconfig', { server: sim.url });
 *
 * Caveat: rejects with `UnsafePathError` when `path` is a symbolic link or not a regular file.
 */
export async function writeKubeconfigFile(path: string, options: KubeconfigOptions): Promise<void> {
  await replacePrivateFile(path, kubeconfigYaml(options));
}

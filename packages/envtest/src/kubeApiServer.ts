/**
 * kube-apiserver for a test environment, on 127.0.0.1 over etcd: serving certificates it generates
 * itself into its cert folder (kept across restarts, so a kubeconfig stays valid), service-account
 * keys and issuer, RBAC, and a static bearer token in `system:masters`. Ready once `/readyz` is ok
 * and the `default` namespace exists.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callServer, type ServerAccess } from './https.ts';
import { startManagedProcess, type ManagedProcess } from './managedProcess.ts';
import { freePort, waitUntilReady } from './readiness.ts';

/** The files and coordinates one kube-apiserver keeps across restarts. */
export interface ApiServerSetup {
  /** Its folder: certificates, keys, the token file and its log. */
  readonly dir: string;
  /** Its secure port on 127.0.0.1. */
  readonly port: number;
  /** The bearer token of the `system:masters` user `envtest-admin`. */
  readonly token: string;
}

/** Writes the token file and the service-account keys into `dir`; picks a free port unless given one. */
export async function prepareApiServer(dir: string, port?: number): Promise<ApiServerSetup> {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dir, 'tokens.csv'), `${token},envtest-admin,envtest-admin,system:masters\n`, { mode: 0o600 });
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  return { dir, port: port ?? (await freePort()), token };
}

/** The command line of kube-apiserver over `etcdUrl`, with `featureGates` and `extraArgs`. */
export function apiServerArgs(
  setup: ApiServerSetup,
  etcdUrl: string,
  featureGates: Record<string, boolean>,
  extraArgs: string[],
): string[] {
  const gates = Object.entries(featureGates).map(([name, on]) => `${name}=${on}`);
  return [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${setup.port}`,
    `--cert-dir=${join(setup.dir, 'certs')}`,
    `--token-auth-file=${join(setup.dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${join(setup.dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(setup.dir, 'sa.key')}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // No controller-manager makes service accounts here: pods are admitted without one.
    '--disable-admission-plugins=ServiceAccount',
    '--allow-privileged=true',
    ...(gates.length > 0 ? [`--feature-gates=${gates.join(',')}`] : []),
    ...extraArgs,
  ];
}

/** The CA bundle of the certificate kube-apiserver generated for itself (it holds the self-signed CA). */
export function servingCa(setup: ApiServerSetup): string | undefined {
  const file = join(setup.dir, 'certs', 'apiserver.crt');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Starts kube-apiserver; resolves with its process once `/readyz` is ok and `default` exists. */
export async function startApiServer(
  binary: string,
  setup: ApiServerSetup,
  args: string[],
  cleanupDir: string,
  timeoutMs: number,
): Promise<ManagedProcess> {
  const proc = startManagedProcess('kube-apiserver', binary, args, join(setup.dir, 'kube-apiserver.log'), cleanupDir);
  const url = `https://127.0.0.1:${setup.port}`;
  const probe = async () => {
    const ca = servingCa(setup);
    if (ca === undefined) return 'no serving certificate yet';
    const access: ServerAccess = { url, ca, token: setup.token };
    const ready = await callServer(access, 'GET', '/readyz', undefined, 5000);
    if (ready.status !== 200) return `/readyz ${ready.status}: ${ready.body.slice(0, 300)}`;
    const ns = await callServer(access, 'GET', '/api/v1/namespaces/default', undefined, 5000);
    return ns.status === 200 ? undefined : `namespace default: ${ns.status}`;
  };
  try {
    await waitUntilReady(proc, probe, timeoutMs, [setup.port]);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return proc;
}

/**
 * A test environment: a real etcd and kube-apiserver on loopback, started for a test run and removed
 * by `stop()` — the Node counterpart of controller-runtime's envtest; or an existing cluster behind
 * the same interface. CRDs from files installed and served before it resolves.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinaries } from './binaries.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { crdsOf, installTimeout, installWith, type CRDInstallOptions, type InstalledCRD } from './crds.ts';
import { EnvtestError, InvalidOptionsError } from './errors.ts';
import { connectExistingCluster, existingClusterOf, type ExistingClusterOptions } from './existingCluster.ts';
import { accessCall, callServer, type ServerAccess } from './https.ts';
import { startEtcd, type Etcd } from './etcd.ts';
import { apiServerArgs, prepareApiServer, servingCa, startApiServer } from './kubeApiServer.ts';
import type { ManagedProcess } from './managedProcess.ts';

/** Options of `startTestEnvironment`; every field has a default. */
export interface TestEnvironmentOptions {
  /** kube-apiserver feature gates, e.g. `{ ShardedListAndWatch: true, WatchList: false }`. Default none (the release's defaults). */
  featureGates?: Record<string, boolean>;
  /** More kube-apiserver flags, appended to the environment's own. Default none. */
  apiServerArgs?: string[];
  /** A folder holding `etcd` and `kube-apiserver`. Default: `KUBEBUILDER_ASSETS`, else the binaries `rxinformer-envtest build` made. */
  assetsDir?: string;
  /** Where the environment's temporary folder is made. Default `os.tmpdir()`. */
  tmpDir?: string;
  /** How long each process may take to be ready, in ms: more than 0, at most 3 600 000 (an hour); else (NaN, Infinity too) `InvalidOptionsError`. Default 60 000. */
  startTimeoutMs?: number;
  /** The namespace of the kubeconfig's context. Default `default`. */
  namespace?: string;
  /** kube-apiserver's port on 127.0.0.1. Default: a free port. */
  port?: number;
  /** CRDs to install before it resolves, served (their `timeoutMs` apart from `startTimeoutMs`). Default none. */
  crds?: CRDInstallOptions;
  /**
   * Run on an existing cluster instead of starting one: `true` (the kubeconfig of `KUBECONFIG`, else
   * `~/.kube/config`) or `{ kubeconfig }`. Nothing is started; `stop()` removes the CRDs the
   * environment created and nothing else. With it, the options that start processes
   * (`featureGates`, `apiServerArgs`, `assetsDir`, `tmpDir`, `namespace`, `port`) are refused.
   * Default: `USE_EXISTING_CLUSTER=true` in the environment (those options then ignored); `false`
   * starts processes whatever the environment says.
   */
  existingCluster?: boolean | ExistingClusterOptions;
}

/** Options of `TestEnvironment.restartApiServer`. */
export interface RestartOptions {
  /** Kill it with SIGKILL, as a crash would, instead of stopping it. Default false. */
  kill?: boolean;
  /** Feature gates from now on (replacing the current ones). Default: unchanged. */
  featureGates?: Record<string, boolean>;
}

/** A certificate chain and its key, PEM. */
export interface ServingCertificate {
  /** The certificate chain (the server's certificate, then its CA's). */
  cert: string;
  /** The private key. */
  key: string;
}

/**
 * A running etcd and kube-apiserver, or an existing cluster (`existingCluster`). On an existing
 * cluster, the members that need the environment's own processes (`featureGates`, `etcd`, `logs`,
 * `servingCertificate`, `restartApiServer`, `compact`) throw `ExistingClusterError`, and so do
 * `token` and `ca` when the kubeconfig has none.
 */
export interface TestEnvironment {
  /** True on an existing cluster (`existingCluster` or `USE_EXISTING_CLUSTER`); false when it started its own processes. */
  readonly existingCluster: boolean;
  /** kube-apiserver's URL, `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The kubeconfig (server, CA, token of a `system:masters` user) as YAML. */
  readonly kubeconfigYaml: string;
  /** The kubeconfig as a file (mode 0600), removed by `stop()`. */
  readonly kubeconfigPath: string;
  /** The bearer token of `envtest-admin`, in group `system:masters`. */
  readonly token: string;
  /** The CA bundle (PEM) the server's certificate chains to. */
  readonly ca: string;
  /** The feature gates kube-apiserver runs with now. */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** etcd: its URL, revision and compaction. */
  readonly etcd: Pick<Etcd, 'url' | 'revision' | 'compact'>;
  /** The log files of the two processes. */
  readonly logs: {
    /** etcd's log file. */
    readonly etcd: string;
    /** kube-apiserver's log file. */
    readonly apiServer: string;
  };
  /** A new client-node `KubeConfig` for the server. */
  kubeConfig(): KubeConfig;
  /** The certificate chain and key kube-apiserver serves with (for a proxy that stands in for it, such as `startFaultProxy`). */
  servingCertificate(): ServingCertificate;
  /** Stops (or kills) kube-apiserver and starts it again over the same etcd, port and certificates. */
  restartApiServer(options?: RestartOptions): Promise<void>;
  /**
   * Compacts etcd's history to its current revision, as kube-apiserver's own compactor does every
   * 5 minutes, and resolves to that revision once kube-apiserver has seen it (its cache looks every
   * 15 s): from then on, lists at older resource versions and their continue tokens answer 410
   * Expired. Watches are served from kube-apiserver's watch cache, which a compaction does not touch.
   */
  compact(): Promise<number>;
  /**
   * Installs CRDs and resolves once they are served (`CRDNotServedError` naming the one that was
   * not, in time). On an existing cluster, `stop()` deletes those it created (not those it replaced).
   */
  installCRDs(options: CRDInstallOptions): Promise<InstalledCRD[]>;
  /**
   * Stops both processes and removes every file. On an existing cluster: deletes the CRDs the
   * environment created, waiting until they are gone, and nothing else. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver and resolves once the API server is ready, the `default`
 * namespace exists and the `crds` are served; or, with `existingCluster` (or
 * `USE_EXISTING_CLUSTER=true`), connects to that cluster instead. Errors are typed:
 * `BinaryNotFoundError`, `PortInUseError`, `ProcessExitedError` and `StartTimeoutError` (naming the
 * log file), `CRDFileError`, `CRDInstallError`, `CRDNotServedError`, `ClusterUnreachableError`.
 *
 * @example
 * const env = await startTestEnvironment({ crds: { paths: ['config/crd/bases'] } });
 * const factory = createKubeInformerFactory(env.kubeConfig(), { namespace: 'default' });
 * // ... the test ...
 * await env.stop();
 */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  if (!(timeoutMs > 0 && timeoutMs <= 3_600_000)) throw new InvalidOptionsError(`startTimeoutMs must be in (0, 3600000], not ${timeoutMs}`);
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536))
    throw new InvalidOptionsError(`port must be an integer in [1, 65535], not ${options.port}`);
  const crds = crdsOf(options.crds ?? {}); // the files are read before anything starts
  const crdTimeoutMs = installTimeout(options.crds ?? {});
  const existing = existingClusterOf(options);
  if (existing !== undefined) return connectExistingCluster(existing, timeoutMs, crds, crdTimeoutMs);
  const binaries = findBinaries({ assetsDir: options.assetsDir });
  const dir = mkdtempSync(join(options.tmpDir ?? tmpdir(), 'rxinformer-envtest-'));
  let etcd: Etcd | undefined;
  let apiServer: ManagedProcess | undefined;
  try {
    etcd = await startEtcd(binaries.etcd, join(dir, 'etcd'), join(dir, 'etcd.log'), dir, timeoutMs);
    const setup = await prepareApiServer(join(dir, 'apiserver'), options.port);
    let gates = { ...options.featureGates };
    const start = () =>
      startApiServer(binaries.kubeApiServer, setup, apiServerArgs(setup, etcd!.url, gates, options.apiServerArgs ?? []), dir, timeoutMs);
    apiServer = await start();
    const url = `https://127.0.0.1:${setup.port}`;
    const ca = servingCa(setup)!;
    const kubeconfigYaml = kubeconfig(url, ca, setup.token, options.namespace ?? 'default');
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
    let stopped: Promise<void> | undefined;
    const call = accessCall({ url, ca, token: setup.token });
    const env: TestEnvironment = {
      existingCluster: false,
      url,
      kubeconfigYaml,
      kubeconfigPath,
      token: setup.token,
      ca,
      get featureGates() {
        return { ...gates };
      },
      etcd: { url: etcd.url, revision: etcd.revision, compact: etcd.compact },
      logs: { etcd: etcd.process.logFile, apiServer: apiServer.logFile },
      kubeConfig: () => {
        const kc = new KubeConfig();
        kc.loadFromString(kubeconfigYaml);
        return kc;
      },
      servingCertificate: () => ({ cert: ca, key: readFileSync(join(setup.dir, 'certs', 'apiserver.key'), 'utf8') }),
      restartApiServer: async (restart = {}) => {
        await (restart.kill ? apiServer!.kill() : apiServer!.stop());
        if (restart.featureGates) gates = { ...restart.featureGates };
        apiServer = await start();
      },
      compact: async () => {
        const rev = await etcd!.compact();
        await waitForCompaction({ url, ca, token: setup.token }, rev, timeoutMs);
        return rev;
      },
      installCRDs: async (o) => installWith(call, crdsOf(o), installTimeout(o)),
      stop: () => (stopped ??= stopAll(dir, apiServer, etcd)),
    };
    await installWith(call, crds, crdTimeoutMs);
    return env;
  } catch (error) {
    await stopAll(dir, apiServer, etcd);
    throw error;
  }
}

/** Polls a list at a compacted resource version until kube-apiserver answers 410 (or `timeoutMs` passes). */
async function waitForCompaction(access: ServerAccess, rev: number, timeoutMs: number): Promise<void> {
  const path = `/api/v1/namespaces?limit=1&resourceVersion=${rev - 1}&resourceVersionMatch=Exact`;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await callServer(access, 'GET', path);
    if (answer.status === 410) return;
    if (performance.now() > deadline)
      throw new EnvtestError('CompactionNotSeen', `kube-apiserver still serves resourceVersion ${rev - 1} after compacting to ${rev}`);
    await sleep(250);
  }
}

/** Kills both (their data goes with the folder: nothing to stop gracefully for) and removes the folder. */
async function stopAll(dir: string, apiServer: ManagedProcess | undefined, etcd: Etcd | undefined): Promise<void> {
  await apiServer?.kill();
  await etcd?.process.kill();
  rmSync(dir, { recursive: true, force: true });
}

/** The kubeconfig YAML of the environment's admin user. */
function kubeconfig(server: string, ca: string, token: string, namespace: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: envtest',
    '  cluster:',
    `    server: ${q(server)}`,
    `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
    'contexts:',
    '- name: envtest',
    '  context:',
    '    cluster: envtest',
    '    user: envtest-admin',
    `    namespace: ${q(namespace)}`,
    'current-context: envtest',
    'users:',
    '- name: envtest-admin',
    '  user:',
    `    token: ${q(token)}`,
    '',
  ].join('\n');
}

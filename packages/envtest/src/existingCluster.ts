/**
 * A test environment on an existing cluster, as controller-runtime's envtest does with
 * `UseExistingCluster` (or `USE_EXISTING_CLUSTER=true`): the same `TestEnvironment`, from a
 * kubeconfig; nothing is started, and `stop()` never stops or deletes the cluster — it removes only
 * the CRDs the environment created.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { crdsOf, installTimeout, installWith, uninstallWith, type InstalledCRD } from './crds.ts';
import type { CustomResourceDefinition } from './crdFiles.ts';
import { ClusterUnreachableError, ExistingClusterError, InvalidOptionsError } from './errors.ts';
import { eventually } from './eventually.ts';
import { kubeConfigCall, type ServerCall } from './https.ts';
import type { TestEnvironment, TestEnvironmentOptions } from './testEnvironment.ts';

/** Where the existing cluster is. */
export interface ExistingClusterOptions {
  /** A kubeconfig file; its current context is used. Default: `KUBECONFIG` (one file), else `~/.kube/config`. */
  kubeconfig?: string;
}

/** The options that start processes, which an existing cluster has no use for. */
const PROCESS_OPTIONS = ['featureGates', 'apiServerArgs', 'assetsDir', 'tmpDir', 'namespace', 'port'] as const;

/**
 * The kubeconfig file of the existing cluster to run on, or undefined to start one: the option
 * `existingCluster` (`false` never, `true` or an object always), else `USE_EXISTING_CLUSTER`.
 * Options that start processes are refused beside an explicit `existingCluster`, and ignored when
 * `USE_EXISTING_CLUSTER` chose it (the suite did not).
 */
export function existingClusterOf(options: TestEnvironmentOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const option = options.existingCluster;
  if (option === false) return undefined;
  if (option === undefined) {
    const flag = (env.USE_EXISTING_CLUSTER ?? '').trim().toLowerCase();
    if (flag === '' || flag === 'false' || flag === '0') return undefined;
    if (flag !== 'true' && flag !== '1')
      throw new InvalidOptionsError(`USE_EXISTING_CLUSTER must be true or false, not ${JSON.stringify(env.USE_EXISTING_CLUSTER)}`);
    return kubeconfigPath(undefined, env);
  }
  if (option !== true && (typeof option !== 'object' || option === null))
    throw new InvalidOptionsError(`existingCluster must be a boolean or { kubeconfig }, not ${JSON.stringify(option)}`);
  const given = PROCESS_OPTIONS.filter((k) => options[k] !== undefined);
  if (given.length > 0)
    throw new InvalidOptionsError(`${given.join(', ')} start processes of the environment's own: not with existingCluster`);
  return kubeconfigPath(option === true ? undefined : option.kubeconfig, env);
}

function kubeconfigPath(given: string | undefined, env: NodeJS.ProcessEnv): string {
  if (given !== undefined) return given;
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  if (listed.length > 1) throw new InvalidOptionsError(`KUBECONFIG lists ${listed.length} files: name one with existingCluster.kubeconfig`);
  return listed[0] ?? join(homedir(), '.kube', 'config');
}

/**
 * Connects to the cluster of the kubeconfig at `path` once its `/readyz` answers 200 (within
 * `timeoutMs`, else `ClusterUnreachableError`), installs `crds` (removing those it created again
 * when one fails), and resolves to its environment.
 */
export async function connectExistingCluster(
  path: string,
  timeoutMs: number,
  crds: readonly CustomResourceDefinition[],
  crdTimeoutMs: number,
): Promise<TestEnvironment> {
  const kubeconfigYaml = readKubeconfig(path);
  const load = () => {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return kc;
  };
  const kc = load();
  const call = kubeConfigCall(kc);
  const url = kc.getCurrentCluster()!.server;
  await waitReady(call, url, timeoutMs);
  const created: string[] = [];
  const installCRDs = (list: readonly CustomResourceDefinition[], ms: number): Promise<InstalledCRD[]> =>
    installWith(call, list, ms, (crd) => void (crd.created && created.push(crd.name)));
  const removeCreated = () => uninstallWith(call, created.splice(0).reverse(), crdTimeoutMs);
  try {
    await installCRDs(crds, crdTimeoutMs);
  } catch (error) {
    await removeCreated();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return existingEnvironment(path, kubeconfigYaml, load, {
    installCRDs: async (options) => installCRDs(crdsOf(options), installTimeout(options)),
    stop: () => (stopped ??= removeCreated()),
  });
}

/** The `TestEnvironment` of the kubeconfig at `path`: its own members, and `ExistingClusterError` for those of processes. */
function existingEnvironment(
  path: string,
  kubeconfigYaml: string,
  load: () => KubeConfig,
  own: Pick<TestEnvironment, 'installCRDs' | 'stop'>,
): TestEnvironment {
  const kc = load();
  const unavailable = (member: string) => () => {
    throw new ExistingClusterError(member);
  };
  return {
    ...own,
    existingCluster: true,
    url: kc.getCurrentCluster()!.server,
    kubeconfigYaml,
    kubeconfigPath: path,
    get token() {
      const token = kc.getCurrentUser()?.token;
      if (token === undefined)
        throw new ExistingClusterError('token', "the kubeconfig's user has no bearer token (a client certificate, an exec plugin…)");
      return token;
    },
    get ca() {
      const cluster = kc.getCurrentCluster()!;
      if (cluster.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
      if (cluster.caFile) return readFileSync(cluster.caFile, 'utf8');
      throw new ExistingClusterError('ca', "the kubeconfig's cluster names no CA (the system's are trusted)");
    },
    get featureGates(): never {
      return unavailable('featureGates')();
    },
    get etcd(): never {
      return unavailable('etcd')();
    },
    get logs(): never {
      return unavailable('logs')();
    },
    kubeConfig: load,
    servingCertificate: unavailable('servingCertificate'),
    restartApiServer: () => Promise.reject(new ExistingClusterError('restartApiServer')),
    compact: () => Promise.reject(new ExistingClusterError('compact')),
  };
}

function readKubeconfig(path: string): string {
  if (!existsSync(path)) throw new InvalidOptionsError(`existingCluster: the kubeconfig ${path} does not exist`);
  const yaml = readFileSync(path, 'utf8');
  const kc = new KubeConfig();
  try {
    kc.loadFromString(yaml);
  } catch (error) {
    throw new InvalidOptionsError(`existingCluster: the kubeconfig ${path} does not load: ${(error as Error).message}`, { cause: error });
  }
  if (!kc.getCurrentCluster()?.server)
    throw new InvalidOptionsError(`existingCluster: the current context of ${path} names no cluster server`);
  return yaml;
}

async function waitReady(call: ServerCall, url: string, timeoutMs: number): Promise<void> {
  const ready = async () => {
    const answer = await call('GET', '/readyz', undefined, 5000);
    if (answer.status !== 200) throw new Error(`/readyz answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  };
  await eventually(ready, { timeoutMs, intervalMs: 250 }).catch((error: Error) => {
    throw new ClusterUnreachableError(url, timeoutMs, { cause: error.cause ?? error });
  });
}

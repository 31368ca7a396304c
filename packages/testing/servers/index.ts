/**
 * One test source, two servers: the integration suites run each of their cases against the
 * simulator and against a real kube-apiserver + etcd (`@rxinformer/envtest`), both behind our fault
 * proxy, and write through the same HTTP API to either.
 *
 *   describe.each(serverKinds())('the informer against the %s server', (kind) => {
 *     let server: TestServer;
 *     beforeAll(async () => (server = await startTestServer(kind)), START_TIMEOUT_MS);
 *     afterAll(() => server.close());
 *     ...
 *   });
 *
 * `RXINFORMER_SERVERS=sim` (or `real`) runs one of them; the default is both.
 *
 * Also here: `apiChurn` (creates, updates, deletes and recreations through the API, by concurrent
 * writers), `inParallel`, `createListViewObjects` (pods, nodes, deployments and events whose
 * kubectl columns say something), and `restrictedAccess` (a token the server authenticates but forbids a
 * resource, until allowed: a ServiceAccount without RBAC on kube-apiserver).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '@rxinformer/apiserver-sim';
import {
  selfSignedCertificate,
  startFaultProxy,
  startTestEnvironment,
  type FaultProxy,
  type FaultProxyOptions,
  type ServingCertificate,
  type TestEnvironment,
} from '@rxinformer/envtest';
import { Agent, fetch as undiciFetch } from 'undici';
import { createApi, type TestApi } from './api.ts';

export { ApiCallError, createApi, PATCH_TYPES, type ApiAnswer, type TestApi } from './api.ts';
export { restrictedAccess, serviceAccountToken, type RestrictedAccess, type ServiceAccountToken } from './access.ts';
export * from './clientGoPeer.ts';
export { createListViewObjects, deleteListViewObjects, type ListViewObjects } from './listViewObjects.ts';
export { apiChurn, inParallel, type ApiChurnCounters, type ApiChurnMix, type ApiChurnOptions, type ApiChurnRun } from './churn.ts';

/** Which server a case runs against. */
export type ServerKind = 'sim' | 'real';

/** How long `startTestServer` may take (a cold kube-apiserver on two busy cores included). */
export const START_TIMEOUT_MS = 180_000;

/** The servers to run against: `$RXINFORMER_SERVERS` (comma-separated `sim`, `real`), default both. */
export function serverKinds(): ServerKind[] {
  const kinds = (process.env.RXINFORMER_SERVERS ?? 'sim,real').split(',').map((s) => s.trim());
  for (const k of kinds) if (k !== 'sim' && k !== 'real') throw new Error(`RXINFORMER_SERVERS: unknown server "${k}" (sim, real)`);
  return kinds as ServerKind[];
}

/** Options of `startTestServer`. */
export interface TestServerOptions {
  /** Simulator options (the simulator only). */
  sim?: Partial<ApiServerOptions>;
  /**
   * Feature gates: kube-apiserver's `--feature-gates`; on the simulator, `ShardedListAndWatch` and
   * `WatchList` map to its `shardedListAndWatch` and `watchList` options.
   */
  featureGates?: Record<string, boolean>;
  /** Rewrites every request on its way through the proxy (the proxy's `rewrite`). */
  rewrite?: (pathAndQuery: string) => string;
  /**
   * The proxy speaks HTTPS and HTTP/2 to the clients that offer it (the proxy's `http2`), in front
   * of either server: with kube-apiserver's certificate, or a self-signed one before the simulator.
   * Default: the proxy speaks HTTP/1.1 (over HTTPS before kube-apiserver, plain HTTP before the simulator).
   */
  http2?: FaultProxyOptions['http2'];
}

/** A server under test, behind the fault proxy. */
export interface TestServer {
  readonly kind: ServerKind;
  /** The fault proxy every client made by `kubeConfig()` goes through. */
  readonly proxy: FaultProxy;
  /** The certificate and key the proxy serves HTTPS with (none when it speaks plain HTTP): another proxy can stand in for it. */
  readonly proxyTls?: ServingCertificate;
  /** Writes and reads straight to the server (not through the proxy), as a test's own client. */
  readonly api: TestApi;
  /** The simulator, on `sim`. */
  readonly sim?: ApiServer;
  /** The test environment, on `real`. */
  readonly env?: TestEnvironment;
  /** The server's own URL (not the proxy's), its token and CA: for a client that needs them, such as another proxy. */
  readonly credentials: Credentials;
  /** A KubeConfig for clients under test: through the proxy, with the server's token or `as.token`. */
  kubeConfig(as?: { token?: string }): KubeConfig;
  /** A KubeConfig straight to the server. */
  directKubeConfig(): KubeConfig;
  /**
   * What `fetchListerWatcher` needs to reach the server through the proxy: its URL, the token (the
   * server's or `as.token`) and a fetch trusting its CA.
   */
  fetchOptions(as?: { token?: string }): { baseUrl: string; headers: Record<string, string>; fetch: typeof fetch };
  /**
   * Restarts the API server (the simulator forgets its watch history; kube-apiserver restarts over
   * the same etcd, killed with `kill`, with other `featureGates` from then on: the real server only).
   */
  restart(options?: { kill?: boolean; featureGates?: Record<string, boolean> }): Promise<void>;
  /** Compacts the history to now (the simulator's; etcd's). */
  compact(): Promise<void>;
  /** Makes a namespace with a unique name starting with `prefix`; resolves to its name. */
  namespace(prefix?: string): Promise<string>;
  /** Stops the proxy and the server. */
  close(): Promise<void>;
}

let serial = 0;

/** Starts a simulator or a real environment, and a fault proxy in front of it. */
export async function startTestServer(kind: ServerKind, options: TestServerOptions = {}): Promise<TestServer> {
  const gates = options.featureGates ?? {};
  if (kind === 'sim') {
    const sim = await startApiServer({
      port: 0,
      ...(gates.ShardedListAndWatch && { shardedListAndWatch: true }),
      ...(gates.WatchList === false && { watchList: false }),
      ...options.sim,
    });
    const tls = options.http2 ? selfSignedCertificate() : undefined;
    const proxy = await startFaultProxy({ target: sim.url, rewrite: options.rewrite, tls, http2: options.http2 });
    const access = { url: sim.url, token: sim.faults.token };
    return server(kind, proxy, access, tls, {
      sim,
      restart: async (o) => {
        if (o?.featureGates) throw new Error('restart: the simulator takes no feature gates at a restart');
        sim.faults.restart();
      },
      compact: async () => sim.faults.compact(),
      close: () => sim.close(),
    });
  }
  const env = await startTestEnvironment({ featureGates: gates, existingCluster: false }); // restarts and compactions need processes of its own
  try {
    const tls = env.servingCertificate();
    const proxy = await startFaultProxy({ target: env.url, targetCa: env.ca, tls, rewrite: options.rewrite, http2: options.http2 });
    const access = { url: env.url, token: env.token, ca: env.ca };
    return server(kind, proxy, access, tls, {
      env,
      restart: (o) => env.restartApiServer(o),
      compact: async () => void (await env.compact()),
      close: () => env.stop(),
    });
  } catch (error) {
    await env.stop();
    throw error;
  }
}

/** Where a server is and how to reach it. */
export interface Credentials {
  readonly url: string;
  readonly token?: string;
  readonly ca?: string;
}

function server(
  kind: ServerKind,
  proxy: FaultProxy,
  access: Credentials,
  proxyTls: ServingCertificate | undefined,
  parts: Pick<TestServer, 'sim' | 'env' | 'restart' | 'compact'> & { close(): Promise<void> },
): TestServer {
  const api = createApi(access);
  // The proxy's certificate is self-signed or kube-apiserver's, whose chain is the server's CA.
  const proxyCa = proxyTls?.cert;
  return {
    kind,
    proxy,
    proxyTls,
    api,
    sim: parts.sim,
    env: parts.env,
    credentials: access,
    kubeConfig: (as = {}) => kubeConfigFor({ url: proxy.url, token: as.token ?? access.token, ca: proxyCa }),
    directKubeConfig: () => kubeConfigFor(access),
    fetchOptions: (as = {}) => {
      const token = as.token ?? access.token;
      return {
        baseUrl: proxy.url,
        headers: token !== undefined ? { authorization: `Bearer ${token}` } : ({} as Record<string, string>),
        fetch: trustingFetch(proxyCa),
      };
    },
    restart: async (options) => {
      await parts.restart(options);
      api.reconnect();
    },
    compact: parts.compact,
    namespace: async (prefix = 'test') => {
      const name = `${prefix}-${process.pid}-${++serial}`;
      await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      return name;
    },
    close: async () => {
      await api.close();
      await proxy.close();
      await parts.close();
    },
  };
}

/** A fetch (undici's) that trusts `ca` when given. */
function trustingFetch(ca: string | undefined): typeof fetch {
  if (ca === undefined) return fetch;
  const dispatcher = new Agent({ connect: { ca } });
  return ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}

/** A client-node KubeConfig for `access` (plain HTTP is marked insecure-skip-tls-verify, as client-node requires). */
export function kubeConfigFor(access: Credentials): KubeConfig {
  const kc = new KubeConfig();
  const https = access.url.startsWith('https:');
  kc.loadFromOptions({
    clusters: [
      {
        name: 'test',
        server: access.url,
        ...(https && access.ca ? { caData: Buffer.from(access.ca).toString('base64') } : { skipTLSVerify: true }),
      },
    ],
    users: [{ name: 'test', ...(access.token !== undefined && { token: access.token }) }],
    contexts: [{ name: 'test', cluster: 'test', user: 'test', namespace: 'default' }],
    currentContext: 'test',
  });
  return kc;
}
export { makePki, type Pki } from './pki.ts';

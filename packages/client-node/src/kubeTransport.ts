/**
 * HTTP to the cluster of a client-node `KubeConfig`: its auth headers and TLS options, over ONE
 * keep-alive undici dispatcher per KubeConfig, cluster and user (client-node builds a new agent
 * per request when TLS options are set; every connection here is reused).
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiErrorFromResponse, InvalidOptionsError, type HttpGet, type HttpResponse } from '@rxinformer/core';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';

/** The HTTP side of a KubeConfig, as the ListerWatchers and discovery use it. */
export interface KubeTransport {
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** `GET` a path with query through the shared dispatcher, with fresh auth headers. */
  readonly get: HttpGet;
  /** `GET` a path and parse its JSON body; an error answer rejects with a `KubeApiError`. */
  getJson<T>(path: string, signal?: AbortSignal): Promise<T>;
  /** Closes the dispatcher's connections once their requests end. Later requests open a new one. */
  close(): Promise<void>;
}

/** Options of `createKubeTransport`. */
export interface KubeTransportOptions {
  /** The undici dispatcher to send through. Default: one keep-alive Agent (or ProxyAgent) built from the KubeConfig's TLS options. */
  dispatcher?: Dispatcher;
  /** `User-Agent` header. Default `rxinformer/0.1.0`. */
  userAgent?: string;
}

/**
 * Creates the transport of the KubeConfig's current context (resolved now). Each request asks the
 * KubeConfig for its headers (so exec and OIDC tokens refresh); the TLS options are read once.
 *
 * Caveat: `http://` servers are refused unless the cluster sets `insecure-skip-tls-verify`, as in client-node.
 *
 * @example
 * const transport = createKubeTransport(kc);
 * const version = await transport.getJson<{ gitVersion: string }>('/version');
 * await transport.close();
 */
export function createKubeTransport(kc: KubeConfig, options: KubeTransportOptions = {}): KubeTransport {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new InvalidOptionsError('the KubeConfig has no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  if (server.startsWith('http:') && !cluster.skipTLSVerify) throw new InvalidOptionsError('HTTP servers need insecure-skip-tls-verify in the kubeconfig (as client-node requires)');
  if (cluster.proxyUrl?.startsWith('socks')) throw new InvalidOptionsError('SOCKS proxies are not supported; use an HTTP(S) proxy');
  const userAgent = options.userAgent ?? 'rxinformer/0.1.0';
  let dispatcher: Dispatcher | undefined = options.dispatcher;
  let closed: Promise<void> | undefined;

  const prepare = async (): Promise<{ headers: Record<string, string>; dispatcher: Dispatcher }> => {
    const opts: RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    dispatcher ??= makeDispatcher(opts, cluster.proxyUrl);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': userAgent };
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    return { headers, dispatcher };
  };

  const get: HttpGet = async (pathAndQuery, signal, kind) => {
    const { headers, dispatcher: d } = await prepare();
    // A watch body may stay silent for minutes: the reflector's idle check ends it, not undici.
    const r = await request(server + pathAndQuery, { method: 'GET', headers, dispatcher: d, signal, bodyTimeout: kind === 'watch' ? 0 : 300_000 });
    return undiciResponse(r);
  };

  return {
    server,
    get,
    async getJson<T>(path: string, signal: AbortSignal = new AbortController().signal): Promise<T> {
      const r = await get(path, signal, 'list');
      const text = await r.text();
      if (r.status < 200 || r.status > 299) throw apiErrorFromResponse(r.status, text, r.header('retry-after'));
      return JSON.parse(text) as T;
    },
    close() {
      const d = dispatcher;
      if (!d || options.dispatcher) return closed ??= Promise.resolve();
      dispatcher = undefined;
      return d.close();
    },
  };
}

function makeDispatcher(opts: RequestOptions, proxyUrl: string | undefined): Dispatcher {
  const tls = {
    ...(opts.ca !== undefined && { ca: opts.ca }),
    ...(opts.cert !== undefined && { cert: opts.cert }),
    ...(opts.key !== undefined && { key: opts.key }),
    ...(opts.pfx !== undefined && { pfx: opts.pfx }),
    ...(opts.passphrase !== undefined && { passphrase: opts.passphrase }),
    ...(opts.rejectUnauthorized !== undefined && { rejectUnauthorized: opts.rejectUnauthorized }),
    ...(opts.servername !== undefined && { servername: opts.servername }),
  };
  if (proxyUrl) return new ProxyAgent({ uri: proxyUrl, requestTls: tls });
  // Keep-alive probes every 30 s, like client-go, so idle load-balancer timeouts do not cut watches.
  return new Agent({ connect: { ...tls, keepAlive: true, keepAliveInitialDelay: 30_000 } });
}

function undiciResponse(r: Dispatcher.ResponseData): HttpResponse {
  return {
    status: r.statusCode,
    header: (name) => {
      const v = r.headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
    text: () => r.body.text(),
    chunks: () => r.body,
  };
}

const shared = new WeakMap<KubeConfig, Map<string, KubeTransport>>();

/**
 * The transport shared by every ListerWatcher of `kc` for its current cluster and user: one
 * dispatcher, so one pool of keep-alive connections, per KubeConfig.
 *
 * Caveat: it lives as long as `kc`; idle connections close after undici's keep-alive timeout (4 s).
 *
 * @example
 * const lw = kubeConfigListerWatcher(kc, { resource: pods, transport: sharedKubeTransport(kc) });
 */
export function sharedKubeTransport(kc: KubeConfig): KubeTransport {
  let byContext = shared.get(kc);
  if (!byContext) shared.set(kc, (byContext = new Map()));
  const key = JSON.stringify([kc.getCurrentCluster()?.name, kc.getCurrentCluster()?.server, kc.getCurrentUser()?.name]);
  let transport = byContext.get(key);
  if (!transport) byContext.set(key, (transport = createKubeTransport(kc)));
  return transport;
}

/**
 * HTTP to the cluster of a client-node `KubeConfig`: its auth headers and TLS options, over ONE
 * keep-alive undici dispatcher per KubeConfig, cluster and user (client-node builds a new agent
 * per request when TLS options are set; every connection here is reused).
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { InvalidOptionsError } from '@rxinformer/core';
import { type HttpGet, type HttpResponse } from '@rxinformer/core/http';
import { apiErrorFromResponse, errorBody, networkErrorFrom, readBody } from '@rxinformer/core/http';
import { type HttpSend } from '@rxinformer/core/leader-election';
import type { HttpRequestSend } from '@rxinformer/controller';
import { request, type Dispatcher } from 'undici';
import type { SchedulerLike } from 'rxjs';
import { CredentialError, ResponseDecodeError } from './errors.ts';
import { checkExecTimeout } from './execCredential.ts';
import { pinUser } from './kubeCredentials.ts';
import { createTlsDispatcher, type TlsDispatcher } from './tlsDispatcher.ts';

/** The HTTP side of a KubeConfig, as the ListerWatchers and discovery use it. */
export interface KubeTransport {
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** `GET` a path with query through the shared dispatcher, with fresh auth headers. */
  readonly get: HttpGet;
  /** Sends one request with an optional JSON body (the writes of `kubeLeaseClient`), like `get`. */
  readonly send: HttpSend;
  /** Sends any request (PATCH and DELETE too) with its body's media type: the writes of `kubeApiClient`. */
  readonly request: HttpRequestSend;
  /**
   * `GET` a path and parse its JSON body; an error answer rejects with a `KubeApiError`, a failed
   * connection with a `NetworkError`, a body past the limit of `part` (core's `MAX_BODY_BYTES`:
   * 256 MiB for a list, the default; 4 MiB for one object or a discovery document) with a
   * `ResponseTooLargeError`, the request then aborted.
   */
  getJson<T>(path: string, signal?: AbortSignal, part?: 'listBody' | 'objectBody'): Promise<T>;
  /**
   * Closes the connections once their requests end (waits for them, and for requests still reading
   * credentials, which dispatch first). Later requests open new ones.
   */
  close(): Promise<void>;
}

/** Options of `createKubeTransport`. */
export interface KubeTransportOptions {
  /** The undici dispatcher to send through, used as is (TLS changes are then up to it). Default: a keep-alive Agent (or ProxyAgent) built from the KubeConfig's TLS options, rebuilt when they change. */
  dispatcher?: Dispatcher;
  /** `User-Agent` header. Default `rxinformer/0.1.0`. */
  userAgent?: string;
  /**
   * Time limit of one run of the user's exec credential plugin, in ms; past it the plugin is killed
   * and the requests waiting for it fail with a `CredentialError` (cause `ExecPluginError`). A
   * finite number > 0 of any length (a limit past a JavaScript timer's 24.8 days is waited out,
   * no longer refused); 0, NaN, Infinity and negative values throw `InvalidOptionsError`. Default
   * `DEFAULT_EXEC_TIMEOUT_MS` (60 s).
   */
  execTimeoutMs?: number;
  /** Where the exec plugin's time limit runs. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * Creates the transport of the KubeConfig's current context, pinned now: later
 * `kc.setCurrentContext(...)` calls do not move it to another server or user. Each request asks the
 * pinned user for its headers and TLS material (so exec and OIDC tokens refresh, and certificate
 * files are re-read); a changed certificate, key or CA gets a new connection pool, the old one
 * closing once its requests (watches included) end.
 *
 * Caveat: `http://` servers (the scheme in any case: `HTTP://` too) are refused unless the cluster
 * sets `insecure-skip-tls-verify`, as in client-node; a server or proxy that is not an http(s) URL
 * is refused too (`InvalidOptionsError`), and so are a context naming a user the kubeconfig lacks
 * (client-node would go on anonymous, without the cluster's CA) and, for an HTTPS server, inline
 * TLS data (`certificate-authority-data`, `client-certificate-data`, `client-key-data`) that is not
 * PEM. Failing credentials (exec plugin, missing file, a TLS file that is not PEM) reject with a
 * `CredentialError`.
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
  // The scheme decides TLS (undici parses it case-insensitively): parse it the same way.
  const https = schemeOf(server, 'server') === 'https:';
  if (!https && !cluster.skipTLSVerify)
    throw new InvalidOptionsError('HTTP servers need insecure-skip-tls-verify in the kubeconfig (as client-node requires)');
  if (cluster.proxyUrl) schemeOf(cluster.proxyUrl, 'proxy-url');
  const exec = { timeoutMs: checkExecTimeout('execTimeoutMs', options.execTimeoutMs), scheduler: options.scheduler };
  const user = pinUser(kc, { userAgent: options.userAgent ?? 'rxinformer/0.1.0', checkTls: https, exec });
  const tls = createTlsDispatcher(cluster.proxyUrl, https);
  // The requests not dispatched yet (still reading credentials), which `close()` waits for.
  const undispatched = new Set<Promise<void>>();

  /** One request with fresh credentials; a watch body may stay silent for minutes (the reflector's idle check ends it). */
  const dispatch = async (
    method: string,
    pathAndQuery: string,
    body: string | undefined,
    signal: AbortSignal,
    bodyTimeout: number,
    accept?: string,
    contentType = 'application/json',
  ) => {
    let dispatched!: () => void;
    const mark = new Promise<void>((resolve) => {
      dispatched = resolve;
    });
    undispatched.add(mark);
    let answer: Promise<Dispatcher.ResponseData>;
    try {
      const { headers, opts, readAt } = await user.read(signal);
      if (body !== undefined) headers['Content-Type'] = contentType;
      if (accept !== undefined) headers.Accept = accept;
      // The dispatcher is chosen and the request dispatched in one step: a dispatcher retired by a
      // concurrent rotation (or `close()`) still finishes the requests it has, but takes no new one.
      const dispatcher = options.dispatcher ?? dispatcherFor(tls, opts, readAt, user.name);
      answer = request(server + pathAndQuery, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher, signal, bodyTimeout });
    } finally {
      undispatched.delete(mark);
      dispatched();
    }
    const response = await answer;
    if (response.statusCode === 401) user.refused(); // an exec plugin's credential is run again
    return undiciResponse(response);
  };
  const get: HttpGet = (pathAndQuery, signal, kind, accept) =>
    dispatch('GET', pathAndQuery, undefined, signal, kind === 'watch' ? 0 : 300_000, accept);
  const send: HttpSend = (method, path, body, signal) => dispatch(method, path, body, signal, 300_000);
  const requestOf: HttpRequestSend = (r) => dispatch(r.method, r.pathAndQuery, r.body, r.signal, 300_000, undefined, r.contentType);

  return {
    server,
    get,
    send,
    request: requestOf,
    getJson: <T>(path: string, signal?: AbortSignal, part: 'listBody' | 'objectBody' = 'listBody') => getJson<T>(get, path, signal, part),
    async close() {
      // Requests still reading credentials dispatch first (on the pool being closed), not after.
      await Promise.all(undispatched);
      user.close();
      await tls.close();
    },
  };
}

/**
 * `GET path` decoded as JSON, its body bounded by `part`'s limit: a typed network, API, size or
 * decoding error otherwise. The request is aborted once the answer is read or refused.
 */
async function getJson<T>(get: HttpGet, path: string, outer: AbortSignal | undefined, part: 'listBody' | 'objectBody'): Promise<T> {
  const done = new AbortController();
  const signal = outer ? AbortSignal.any([outer, done.signal]) : done.signal;
  let r: HttpResponse;
  let text: string;
  try {
    r = await get(path, signal, 'list');
    const ok = r.status >= 200 && r.status <= 299;
    text = ok ? await readBody(r, path, part) : await errorBody(r, path);
  } catch (e) {
    throw outer?.aborted ? e : networkErrorFrom(e, path); // the caller's abort stays what it was
  } finally {
    done.abort(); // releases a body left unread (refused past its limit)
  }
  if (r.status < 200 || r.status > 299) throw apiErrorFromResponse(r.status, text, r.header('retry-after'));
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new ResponseDecodeError(path, text, { cause: e });
  }
}

/**
 * The scheme of a kubeconfig URL, lower case as the URL parser gives it: `http:` or `https:`; throws
 * `InvalidOptionsError` for anything else (a SOCKS proxy included) or a string that is no URL.
 */
function schemeOf(url: string, field: 'server' | 'proxy-url'): 'http:' | 'https:' {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch (cause) {
    throw new InvalidOptionsError(`the cluster's ${field} is not a URL: ${JSON.stringify(url)}`, { cause });
  }
  if (scheme === 'http:' || scheme === 'https:') return scheme;
  if (field === 'proxy-url' && scheme.startsWith('socks'))
    throw new InvalidOptionsError('SOCKS proxies are not supported; use an HTTP(S) proxy');
  throw new InvalidOptionsError(`the cluster's ${field} must be an http:// or https:// URL, got ${JSON.stringify(url)}`);
}

/** The dispatcher of `material`; material that does not parse (a certificate file rewritten with garbage) is a `CredentialError`. */
function dispatcherFor(tls: TlsDispatcher, material: RequestOptions, readAt: number, user: string): Dispatcher {
  try {
    return tls.forMaterial(material, readAt);
  } catch (cause) {
    throw new CredentialError(user, { cause });
  }
}

function undiciResponse(r: Dispatcher.ResponseData): HttpResponse {
  return {
    status: r.statusCode,
    header: (name) => {
      const v = r.headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
    chunks: () => r.body,
  };
}

type SharedEntry = { cluster: object; user: object | null; transport: KubeTransport };
const shared = new WeakMap<KubeConfig, Map<string, SharedEntry>>();

/**
 * The transport shared by every ListerWatcher of `kc` for its current cluster and user: one
 * connection pool per KubeConfig, cluster and user. Switching the context gives another transport;
 * the ones already handed out stay on the context they were made for.
 *
 * Caveat: it lives as long as `kc`; idle connections close after undici's keep-alive timeout (4 s).
 *
 * @example
 * const lw = kubeConfigListerWatcher(kc, { resource: pods, transport: sharedKubeTransport(kc) });
 */
export function sharedKubeTransport(kc: KubeConfig): KubeTransport {
  let byContext = shared.get(kc);
  if (!byContext) shared.set(kc, (byContext = new Map<string, SharedEntry>()));
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const key = JSON.stringify([cluster?.name, cluster?.server, user?.name]);
  const entry = byContext.get(key);
  // A reloaded kubeconfig has new cluster and user objects under the same names: a new transport.
  if (entry && entry.cluster === cluster && entry.user === user) return entry.transport;
  const transport = createKubeTransport(kc);
  byContext.set(key, { cluster: cluster!, user, transport });
  return transport;
}

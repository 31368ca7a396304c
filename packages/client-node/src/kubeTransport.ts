/**
 * HTTP to the cluster of a client-node `KubeConfig`: its auth headers and TLS options, over ONE
 * keep-alive undici dispatcher per KubeConfig, cluster and user (client-node builds a new agent
 * per request when TLS options are set; every connection here is reused).
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  apiErrorFromResponse,
  errorBody,
  InvalidOptionsError,
  networkErrorFrom,
  readBody,
  type HttpGet,
  type HttpResponse,
  type HttpSend,
} from '@rxinformer/core';
import { request, type Dispatcher } from 'undici';
import { CredentialError, ResponseDecodeError } from './errors.ts';
import { createTlsDispatcher, tlsMaterialProblem, type TlsDispatcher } from './tlsDispatcher.ts';

/** The HTTP side of a KubeConfig, as the ListerWatchers and discovery use it. */
export interface KubeTransport {
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** `GET` a path with query through the shared dispatcher, with fresh auth headers. */
  readonly get: HttpGet;
  /** Sends one request with an optional JSON body (the writes of `kubeLeaseClient`), like `get`. */
  readonly send: HttpSend;
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
  const pinned = pinCurrentContext(kc);
  const cluster = pinned.getCurrentCluster()!;
  const server = cluster.server.replace(/\/+$/, '');
  // The scheme decides TLS (undici parses it case-insensitively): parse it the same way.
  const https = schemeOf(server, 'server') === 'https:';
  if (!https && !cluster.skipTLSVerify)
    throw new InvalidOptionsError('HTTP servers need insecure-skip-tls-verify in the kubeconfig (as client-node requires)');
  if (cluster.proxyUrl) schemeOf(cluster.proxyUrl, 'proxy-url');
  if (https) checkInlineTls(pinned);
  const credentials = credentialReader(pinned, options.userAgent ?? 'rxinformer/0.1.0');
  const tls = createTlsDispatcher(cluster.proxyUrl, https);
  const userName = pinned.getCurrentUser()?.name ?? '';
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
  ) => {
    let dispatched!: () => void;
    const mark = new Promise<void>((resolve) => {
      dispatched = resolve;
    });
    undispatched.add(mark);
    let answer: Promise<Dispatcher.ResponseData>;
    try {
      const { headers, opts, readAt } = await credentials(signal);
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (accept !== undefined) headers.Accept = accept;
      // The dispatcher is chosen and the request dispatched in one step: a dispatcher retired by a
      // concurrent rotation (or `close()`) still finishes the requests it has, but takes no new one.
      const dispatcher = options.dispatcher ?? dispatcherFor(tls, opts, readAt, userName);
      answer = request(server + pathAndQuery, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher, signal, bodyTimeout });
    } finally {
      undispatched.delete(mark);
      dispatched();
    }
    return undiciResponse(await answer);
  };
  const get: HttpGet = (pathAndQuery, signal, kind, accept) =>
    dispatch('GET', pathAndQuery, undefined, signal, kind === 'watch' ? 0 : 300_000, accept);
  const send: HttpSend = (method, path, body, signal) => dispatch(method, path, body, signal, 300_000);

  return {
    server,
    get,
    send,
    getJson: <T>(path: string, signal?: AbortSignal, part: 'listBody' | 'objectBody' = 'listBody') => getJson<T>(get, path, signal, part),
    async close() {
      // Requests still reading credentials dispatch first (on the pool being closed), not after.
      await Promise.all(undispatched);
      await tls.close();
    },
  };
}

/** What one request sends as the pinned user: its headers, its TLS material, and the read's order. */
interface Credentials {
  headers: Record<string, string>;
  opts: RequestOptions;
  /** Credential reads are numbered in order (see `forMaterial`). */
  readAt: number;
}

/** Reads the headers and TLS material of the user of `pinned` at each call; an abort ends the wait at once. */
function credentialReader(pinned: KubeConfig, userAgent: string): (signal: AbortSignal) => Promise<Credentials> {
  const userName = pinned.getCurrentUser()?.name ?? '';
  let reads = 0;
  return async (signal) => {
    const readAt = ++reads;
    const opts: RequestOptions = {};
    const read = pinned.applyToHTTPSOptions(opts).catch((e: unknown) => {
      throw new CredentialError(userName, { cause: e });
    });
    await untilAborted(read, signal);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': userAgent };
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    return { headers, opts, readAt };
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

/** Throws `InvalidOptionsError` when the kubeconfig's inline TLS data (base64 in the file) does not parse. */
function checkInlineTls(pinned: KubeConfig): void {
  const cluster = pinned.getCurrentCluster();
  const user = pinned.getCurrentUser();
  const data = (base64: string | undefined) => (base64 ? Buffer.from(base64, 'base64') : undefined);
  const problem = tlsMaterialProblem({
    ...(cluster?.caData && { ca: data(cluster.caData) }),
    ...(user?.certData && { cert: data(user.certData) }),
    ...(user?.keyData && { key: data(user.keyData) }),
  });
  if (problem !== undefined) throw new InvalidOptionsError(`${problem} (is it the base64 of a PEM file?)`);
}

/**
 * A view of `kc` fixed on its current context's cluster and user objects. It inherits `kc`'s
 * authenticators (exec and OIDC caches, custom ones), so tokens are shared with `kc`, but
 * `setCurrentContext` or a reload of `kc` no longer changes whom it authenticates as.
 */
function pinCurrentContext(kc: KubeConfig): KubeConfig {
  const context = kc.getContextObject(kc.getCurrentContext());
  const cluster = kc.getCurrentCluster();
  if (!context || !cluster) throw new InvalidOptionsError('the KubeConfig has no current cluster');
  const user = kc.getCurrentUser();
  // client-node goes on without the user (and without the cluster's CA, which it applies only with
  // a user): refused, as kubectl refuses it.
  if (!user && context.user)
    throw new InvalidOptionsError(`the context "${context.name}" names user "${context.user}", which the kubeconfig does not have`);
  const pinned = Object.create(kc) as KubeConfig;
  pinned.loadFromOptions({ clusters: [cluster], users: user ? [user] : [], contexts: [context], currentContext: context.name });
  return pinned;
}

/** `p`, or a rejection with the abort reason as soon as `signal` aborts (`p` then runs on, unobserved). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
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

/**
 * HTTP to the cluster of a client-node `KubeConfig`: its auth headers and TLS options, over the
 * connections of the transport (client-node builds a new agent per request when TLS options are
 * set; every connection here is reused): HTTP/2 to an HTTPS server that speaks it, each connection
 * carrying many requests as streams and health-checked with PINGs, else keep-alive HTTP/1.1.
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { InvalidOptionsError } from '@rxinformer/core';
import { type HttpGet, type HttpResponse } from '@rxinformer/core/http';
import { apiErrorFromResponse, errorBody, networkErrorFrom, readBody } from '@rxinformer/core/http';
import { unreferencedScheduler } from '@rxinformer/core/time';
import type { HttpRequestSend } from '@rxinformer/controller';
import { request, type Dispatcher } from 'undici';
import type { SchedulerLike } from 'rxjs';
import { createConnections, undiciResponse, type ConnectionRequest, type Connections, type Http2Options } from './connections.ts';
import { CredentialError, ResponseDecodeError } from './errors.ts';
import { checkExecTimeout } from './execCredential.ts';
import type { Http2Counters, ProtocolMemory } from './http2Pool.ts';
import { pinUser } from './kubeCredentials.ts';
import { createMaterialHolder, type MaterialHolder } from './tlsMaterial.ts';
import { resolveHttp2Options, schemeOf } from './transportOptions.ts';

/** The HTTP side of a KubeConfig, as the ListerWatchers and discovery use it. */
export interface KubeTransport {
  /** The API server URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** `GET` a path with query over the transport's connections, with fresh auth headers. */
  readonly get: HttpGet;
  /** Sends any request with its body's media type: the writes of `kubeApiClient` (leader election's too). */
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
  /**
   * What the connections are doing now, and counters since the transport was made. Transports made
   * by `createKubeTransport` have it (with a `dispatcher` option, only `protocol` stays unknown and
   * the counts stay 0: the connections are the dispatcher's).
   */
  connections?(): TransportConnections;
}

/** The connections of a transport (`KubeTransport.connections()`). */
export interface TransportConnections {
  /**
   * What the server speaks, found on the first HTTPS connection and remembered: `h2`, or
   * `http/1.1` when it (or a TLS proxy in front) did not choose HTTP/2 or asked for HTTP/1.1.
   * Undefined before that, and for `http://` servers and `http2: false` (HTTP/1.1).
   */
  readonly protocol?: 'h2' | 'http/1.1';
  /** HTTP/2 connections open now. */
  readonly http2Connections: number;
  /** Streams open on them: requests in flight, watches included. */
  readonly streams: number;
  /** HTTP/1.1 connections open now. */
  readonly http1Connections: number;
  /** HTTP/2 connections opened so far. */
  readonly opened: number;
  /** PINGs the health check sent. */
  readonly pings: number;
  /** Acks of those PINGs read in time. */
  readonly pingAcks: number;
  /** Connections dropped because a PING's ack did not come in time. */
  readonly unresponsive: number;
  /** GOAWAY frames received (a server restarting or rebalancing: the streams in flight finish). */
  readonly goaways: number;
  /** Requests the server refused unprocessed (REFUSED_STREAM, after a GOAWAY) and that were sent again. */
  readonly retried: number;
}

/** Options of `createKubeTransport`. */
export interface KubeTransportOptions {
  /**
   * An undici dispatcher to send every request through, used as is (TLS changes, HTTP/2 and its
   * health are then up to it; `http2` is ignored). Default: the transport's own connections, built
   * from the KubeConfig's TLS options and rebuilt when they change (see `http2`).
   */
  dispatcher?: Dispatcher;
  /**
   * HTTP/2 to an HTTPS server, or `false` for HTTP/1.1 only. The server is offered `h2` and
   * `http/1.1` by ALPN on the first connection; what it chooses is remembered for the transport's
   * life (a TLS proxy that speaks only HTTP/1.1 is found once). Over HTTP/2 every request is a
   * stream, many on one connection up to `maxStreamsPerConnection`, each connection health-checked
   * with PINGs; over HTTP/1.1 every request in flight (each watch) holds a keep-alive connection.
   * `http://` servers get HTTP/1.1 (kube-apiserver serves no cleartext HTTP/2). Default: `{}`, every
   * field at its default (see `Http2Options`).
   */
  http2?: Http2Options | false;
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
  /** Where the exec plugin's time limit, the HTTP/2 health check and idle closing run. Default: `asyncScheduler` for the exec time limit, core's `unreferencedScheduler` for the HTTP/2 timers (they guard I/O and never keep the process alive by themselves). */
  scheduler?: SchedulerLike;
}

/**
 * Creates the transport of the KubeConfig's current context, pinned now: later
 * `kc.setCurrentContext(...)` calls do not move it to another server or user. Each request asks the
 * pinned user for its headers and TLS material (so exec and OIDC tokens refresh, and certificate
 * files are re-read); a changed certificate, key or CA gets new connections, the old ones closing
 * once their requests (watches included) end. Over HTTP/2 (see `http2`), 300 watches take 3
 * connections of kube-apiserver's 100 streams each, where HTTP/1.1 takes 300.
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
  const http2 = https ? resolveHttp2Options(options.http2) : false;
  const memory: ProtocolMemory = {};
  const counters: Http2Counters = { opened: 0, pings: 0, pingAcks: 0, unresponsive: 0, goaways: 0, retried: 0 };
  const context = { server, proxyUrl: cluster.proxyUrl, http2, memory, counters, scheduler: options.scheduler ?? unreferencedScheduler };
  const holder = createMaterialHolder((material) => createConnections(material, context), https);
  // The requests not dispatched yet (still reading credentials), which `close()` waits for.
  const undispatched = new Set<Promise<void>>();

  /** One request with fresh credentials; a watch body may stay silent for minutes (the reflector's idle check ends it). */
  const dispatch = async (
    method: string,
    pathAndQuery: string,
    body: string | undefined,
    signal: AbortSignal,
    watch: boolean,
    accept?: string,
    contentType = 'application/json',
  ) => {
    let dispatched!: () => void;
    const mark = new Promise<void>((resolve) => {
      dispatched = resolve;
    });
    undispatched.add(mark);
    let answer: Promise<HttpResponse>;
    try {
      const { headers, opts, readAt } = await user.read(signal);
      if (body !== undefined) headers['Content-Type'] = contentType;
      if (accept !== undefined) headers.Accept = accept;
      // The connections are chosen and the request sent in one step: connections retired by a
      // concurrent rotation (or `close()`) still finish the requests they have, but take no new one.
      const r = { method, pathAndQuery, headers, body, signal, watch, idleTimeoutMs: TIMEOUT_MS, bodyTimeoutMs: watch ? 0 : TIMEOUT_MS };
      answer = options.dispatcher ? sendThrough(options.dispatcher, server, r) : connectionsFor(holder, opts, readAt, user.name).send(r);
    } finally {
      undispatched.delete(mark);
      dispatched();
    }
    const response = await answer;
    if (response.status === 401) user.refused(); // an exec plugin's credential is run again
    return response;
  };
  const get: HttpGet = (pathAndQuery, signal, kind, accept) => dispatch('GET', pathAndQuery, undefined, signal, kind === 'watch', accept);
  const requestOf: HttpRequestSend = (r) => dispatch(r.method, r.pathAndQuery, r.body, r.signal, false, undefined, r.contentType);

  return {
    server,
    get,
    request: requestOf,
    getJson: <T>(path: string, signal?: AbortSignal, part: 'listBody' | 'objectBody' = 'listBody') => getJson<T>(get, path, signal, part),
    async close() {
      // Requests still reading credentials dispatch first (on the connections being closed), not after.
      await Promise.all(undispatched);
      user.close();
      await holder.close();
    },
    connections: () => {
      const open = { http2Connections: 0, streams: 0, http1Connections: 0 };
      for (const c of holder.all()) {
        const s = c.stats();
        open.http2Connections += s.http2Connections;
        open.streams += s.streams;
        open.http1Connections += s.http1Connections;
      }
      return { protocol: memory.protocol, ...open, ...counters };
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

/** Silence allowed on a request's headers, and on a body that is not a watch's: 5 minutes (undici's default). */
const TIMEOUT_MS = 300_000;

/** The connections of `material`; material that does not parse (a certificate file rewritten with garbage) is a `CredentialError`. */
function connectionsFor(holder: MaterialHolder<Connections>, material: RequestOptions, readAt: number, user: string): Connections {
  try {
    return holder.forMaterial(material, readAt);
  } catch (cause) {
    throw new CredentialError(user, { cause });
  }
}

/** Sends `r` through the caller's undici dispatcher, as is. */
function sendThrough(dispatcher: Dispatcher, server: string, r: ConnectionRequest): Promise<HttpResponse> {
  const { method, headers, body, signal } = r;
  const options = { method: method as Dispatcher.HttpMethod, headers, body, dispatcher, signal, bodyTimeout: r.bodyTimeoutMs };
  return request(server + r.pathAndQuery, options).then(undiciResponse);
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

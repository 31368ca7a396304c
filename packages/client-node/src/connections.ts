/**
 * The connections of one TLS material to the API server: HTTP/2 (`http2Pool.ts`) for an HTTPS
 * server that chooses `h2` by ALPN, else HTTP/1.1 over a keep-alive undici Agent (or ProxyAgent);
 * which one a server speaks is found on the first connection and remembered by the transport.
 */
import type { SchedulerLike } from 'rxjs';
import type { HttpResponse } from '@rxinformer/core/http';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { createHttp2Pool, USE_HTTP1, type Http2Counters, type Http2Pool, type ProtocolMemory } from './http2Pool.ts';
import type { StreamRequest } from './http2Stream.ts';
import { connectTls, KEEP_ALIVE } from './tlsConnect.ts';
import type { TlsMaterial } from './tlsMaterial.ts';

/** HTTP/2 settings of a transport (`KubeTransportOptions.http2`); every field has a default. */
export interface Http2Options {
  /**
   * The most streams (requests: lists, watches…) one connection carries; a request past it waits
   * for a free stream on another connection, opened when all are full. The server's
   * SETTINGS_MAX_CONCURRENT_STREAMS lowers it (kube-apiserver announces 100, its
   * `--http2-max-streams-per-connection`). Default 1000.
   */
  maxStreamsPerConnection?: number;
  /**
   * A PING goes out on a connection from which nothing was read for this long (client-go's
   * `ReadIdleTimeout`, `HTTP2_READ_IDLE_TIMEOUT_SECONDS`), in ms; 0 sends none. Default 30,000.
   */
  readIdleTimeoutMs?: number;
  /**
   * The connection is dropped when that PING's ack takes longer (client-go's `PingTimeout`), in ms:
   * its streams fail with a `NetworkError` (code `ERR_HTTP2_PING_TIMEOUT`), so watches are made
   * again on a new connection. Default 15,000.
   */
  pingTimeoutMs?: number;
  /** Time limit of a connection's TCP and TLS handshake, in ms. Default 30,000 (client-go's dial timeout). */
  connectTimeoutMs?: number;
}

/** `Http2Options` with every default filled in. */
export type ResolvedHttp2Options = Required<Http2Options>;

/** What a transport's connections share: the server, the remembered protocol, the counters. */
export interface ConnectionsContext {
  server: string;
  proxyUrl?: string;
  /** HTTP/2 settings, or false for HTTP/1.1 only (also for `http://` servers). */
  http2: ResolvedHttp2Options | false;
  memory: ProtocolMemory;
  counters: Http2Counters;
  scheduler: SchedulerLike;
}

/** One request, as the transport sends it. */
export interface ConnectionRequest extends StreamRequest {
  /** For undici: the limit on the silence of the body (0 for a watch) and of the headers. */
  bodyTimeoutMs: number;
}

/** The connections of one TLS material. */
export interface Connections {
  send(r: ConnectionRequest): Promise<HttpResponse>;
  /** HTTP/2 connections and streams open, HTTP/1.1 connections open. */
  stats(): { http2Connections: number; streams: number; http1Connections: number };
  close(): Promise<void>;
}

/**
 * The connections of `material` in `context`.
 *
 * @example
 * const connections = createConnections(material, context);
 * const answer = await connections.send({ method: 'GET', pathAndQuery: '/version', headers, signal, idleTimeoutMs: 300_000, bodyTimeoutMs: 300_000, watch: false });
 */
export function createConnections(material: TlsMaterial, context: ConnectionsContext): Connections {
  const { http2 } = context;
  const pool: Http2Pool | undefined =
    http2 === false
      ? undefined
      : createHttp2Pool({
          ...http2,
          origin: context.server,
          connect: () =>
            connectTls({
              target: new URL(context.server),
              proxyUrl: context.proxyUrl,
              material,
              timeoutMs: http2.connectTimeoutMs,
              scheduler: context.scheduler,
            }),
          scheduler: context.scheduler,
          memory: context.memory,
          counters: context.counters,
        });
  let h1: Dispatcher | undefined;
  let closed = false;
  const sendHttp1 = (r: ConnectionRequest): Promise<HttpResponse> => {
    if (closed) return Promise.reject(new Error('the connections were closed'));
    h1 ??= http1Dispatcher(material, context.proxyUrl);
    const { method, headers, body, signal } = r;
    const url = context.server + r.pathAndQuery;
    return request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: h1,
      signal,
      bodyTimeout: r.bodyTimeoutMs,
    }).then(undiciResponse);
  };
  return {
    send(r) {
      if (!pool || context.memory.protocol === 'http/1.1') return sendHttp1(r);
      return pool.request(r).then((answer) => (answer === USE_HTTP1 ? sendHttp1(r) : answer));
    },
    stats: () => {
      const { connections, streams } = pool?.stats() ?? { connections: 0, streams: 0 };
      return { http2Connections: connections, streams, http1Connections: http1Count(h1) };
    },
    async close() {
      await pool?.close();
      closed = true;
      await h1?.close();
    },
  };
}

/**
 * The HTTP/1.1 dispatcher of `material`: keep-alive probes on every connection; through a proxy the
 * TCP socket is the one to the proxy (proxyTls's connector) and the server's TLS runs inside.
 */
function http1Dispatcher(material: TlsMaterial, proxyUrl: string | undefined): Dispatcher {
  if (proxyUrl)
    return new ProxyAgent({ uri: proxyUrl, allowH2: false, requestTls: { ...material, ...KEEP_ALIVE }, proxyTls: { ...KEEP_ALIVE } });
  return new Agent({ allowH2: false, connect: { ...material, ...KEEP_ALIVE } });
}

function http1Count(d: Dispatcher | undefined): number {
  const stats = (d as { stats?: Record<string, { connected?: number }> } | undefined)?.stats ?? {};
  return Object.values(stats).reduce((n, s) => n + (s.connected ?? 0), 0);
}

export function undiciResponse(r: Dispatcher.ResponseData): HttpResponse {
  return {
    status: r.statusCode,
    header: (name) => {
      const v = r.headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
    chunks: () => r.body,
  };
}

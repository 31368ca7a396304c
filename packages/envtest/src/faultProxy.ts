/**
 * A fault proxy of ours in front of an API server: it forwards every request and lets a test break
 * the connections as a real network and a real server do — streams cut (FIN) or reset (RST) mid-way,
 * stalled (open, silent), whole connections blackholed, HTTP/2 connections sent a GOAWAY, requests
 * delayed or answered with an error status.
 */
import { Agent as HttpAgent, createServer as createHttpServer, type Server } from 'node:http';
import { createSecureServer, type Http2Session } from 'node:http2';
import { Agent as HttpsAgent, createServer as createHttpsServer } from 'node:https';
import { InvalidOptionsError } from './errors.ts';
import { checkCount, cutResponse, handler, type Exchange, type ProxyState } from './faultProxyForward.ts';
export { PROXY_LOG_SIZE } from './faultProxyForward.ts';
import { startTcpRelay } from './tcpRelay.ts';
import type { ServingCertificate } from './testEnvironment.ts';

/** Options of `startFaultProxy`. */
export interface FaultProxyOptions {
  /** The server behind the proxy, e.g. `env.url`. Required. */
  target: string;
  /** The CA bundle (PEM) of an HTTPS target. Default: the system's. */
  targetCa?: string;
  /** Serve HTTPS with this certificate chain and key (PEM); default plain HTTP. */
  tls?: ServingCertificate;
  /**
   * Speak HTTP/2 to clients that offer `h2` by ALPN (HTTP/1.1 to the others), as kube-apiserver
   * does; needs `tls`. `maxConcurrentStreams` is announced in SETTINGS (default 100, as
   * kube-apiserver). The proxy speaks HTTP/1.1 to the target either way. Default: HTTP/1.1 only.
   */
  http2?:
    | boolean
    | {
        /** SETTINGS_MAX_CONCURRENT_STREAMS the proxy announces. Default 100. */
        maxConcurrentStreams?: number;
      };
  /**
   * Rewrites each request's path and query before it is forwarded, e.g. to drop a parameter an
   * older server would ignore. Default: forwarded as is.
   */
  rewrite?: (pathAndQuery: string) => string;
}

/** Which open responses a fault hits: watches only (default) or every open response. */
export type StreamFilter = 'watches' | 'all';

/** An error status the proxy answers instead of forwarding. */
export interface InjectedFailure {
  /** The HTTP status, e.g. 500, 503, 429. */
  code: number;
  /** Which requests: watches, lists (GETs that are not watches), writes (every other method) or any. Default any. */
  on?: 'watch' | 'list' | 'write' | 'any';
  /** Only requests whose path contains this, e.g. `/leases/`. Default: any path. */
  pathContains?: string;
  /** `Retry-After` seconds to send: a whole number >= 0 of any size (a header, no timer here); else `failNext` throws `InvalidOptionsError`. Default none. */
  retryAfterSeconds?: number;
}

/** Which watches `endNextWatches` ends. */
export interface WatchEnding {
  /** Only watches whose `User-Agent` contains this, e.g. `rxinformer` or `clientgo-peer`. Default: any watch. */
  userAgentContains?: string;
}

/** What a fault proxy saw. */
export interface ProxyCounts {
  /** Requests received. */
  readonly requests: number;
  /** Requests that were watches. */
  readonly watches: number;
  /** Requests answered with an injected failure. */
  readonly failed: number;
  /** Watches ended at once by `endNextWatches`. */
  readonly ended: number;
  /** TCP connections accepted. */
  readonly connections: number;
  /** HTTP/2 connections (sessions) among them. */
  readonly http2Sessions: number;
  /** HTTP/2 PING frames received from clients. */
  readonly pings: number;
  /** TLS handshakes in which the client offered `h2` by ALPN (whether or not the proxy speaks it). */
  readonly h2Offers: number;
}

/** A running fault proxy. */
export interface FaultProxy {
  /** Where clients connect: `http(s)://127.0.0.1:PORT`. */
  readonly url: string;
  /** Requests forwarded so far, and how many of them were watches. */
  readonly counts: ProxyCounts;
  /**
   * The latest requests (up to `PROXY_LOG_SIZE`), oldest first, as `METHOD path?query` as the
   * server got them (after `rewrite`; an injected failure's as received): what a test counts by
   * kind, e.g. the lists and the streaming lists (`sendInitialEvents=true`) an informer made.
   */
  readonly requests: readonly string[];
  /** Responses open now (streaming or not yet finished) that `filter` selects. */
  open(filter?: StreamFilter): number;
  /** Closes the selected open streams mid-way (the client sees the connection end); returns how many. */
  cut(filter?: StreamFilter): number;
  /** Resets the selected open streams (TCP RST); returns how many. */
  reset(filter?: StreamFilter): number;
  /** Stops forwarding bytes on the selected open streams, which stay open and silent; returns how many. */
  stall(filter?: StreamFilter): number;
  /**
   * Blackholes every client connection open now: no byte passes in either direction (requests,
   * answers, PINGs and their acks), and the connections stay open — a network that silently dropped
   * the flow (a NAT or load balancer that forgot it, a cable pulled). Later connections pass as
   * usual. Returns how many connections.
   */
  blackhole(): number;
  /**
   * Sends a GOAWAY (NO_ERROR) on every HTTP/2 connection, as a server shutting down or rebalancing
   * does: the streams in flight finish, new requests need a new connection. Returns how many.
   */
  goaway(): number;
  /** TCP connections open now (blackholed ones included). */
  openConnections(): number;
  /** Delays every request by this many ms before it is forwarded (0 to stop): from 0 to 600 000; else (NaN too) `InvalidOptionsError`. */
  setLatency(ms: number): void;
  /** Answers the next `count` matching requests with `failure` instead of forwarding them. */
  failNext(count: number, failure: InjectedFailure): void;
  /**
   * Ends the next `count` watches `which` selects as soon as the server has answered them 200: the
   * client gets the server's headers and an empty body, a watch closed at once with no event (as a
   * gateway or a restarting server may close one). A watch the server refused is passed on, and
   * still counts. Counted in `counts.ended`.
   */
  endNextWatches(count: number, which?: WatchEnding): void;
  /** Ends every fault: no latency, no pending failures or endings (open stalled streams stay stalled until cut). */
  clear(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

const FAILURE_TARGETS: readonly unknown[] = ['watch', 'list', 'write', 'any'] satisfies InjectedFailure['on'][];

/**
 * Starts a fault proxy on 127.0.0.1 (a free port) in front of `target`.
 *
 * @example
 * const proxy = await startFaultProxy({ target: env.url, targetCa: env.ca, tls: env.servingCertificate() });
 * proxy.cut(); // every open watch ends at once
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new InvalidOptionsError(`target must be http(s), not ${options.target}`);
  if (options.http2 && !options.tls) throw new InvalidOptionsError('http2 needs tls: HTTP/2 is offered by ALPN during the TLS handshake');
  const state: ProxyState = {
    exchanges: new Set(),
    counts: { requests: 0, watches: 0, failed: 0, ended: 0, pings: 0, h2Offers: 0 },
    log: [],
    failures: [],
    endings: [],
    latencyMs: 0,
  };
  const agent =
    target.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, ca: options.targetCa }) : new HttpAgent({ keepAlive: true });
  const { server, sessions } = innerServer(options, handler(target, agent, options.rewrite, state), state);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Clients reach the server through a TCP relay, which can reset or blackhole their connections.
  const relay = await startTcpRelay((server.address() as { port: number }).port);
  const counts = liveCounts(state, () => relay.accepted(), sessions);
  const selected = (filter: StreamFilter = 'watches') => [...state.exchanges].filter((ex) => filter === 'all' || ex.watch);
  const each = (filter: StreamFilter | undefined, act: (ex: Exchange) => void) => {
    const hit = selected(filter);
    hit.forEach(act);
    return hit.length;
  };
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${relay.port}`,
    counts,
    requests: state.log,
    open: (filter) => selected(filter).length,
    cut: (filter) => each(filter, (ex) => cutResponse(ex.res)),
    reset: (filter) => each(filter, (ex) => relay.reset(ex.res.socket?.remotePort ?? -1)),
    stall: (filter) =>
      each(filter, (ex) => {
        ex.stalled = true;
        ex.upstream?.unpipe(ex.res);
        ex.upstream?.pause();
      }),
    setLatency: (ms) => {
      if (!(ms >= 0 && ms <= 600_000)) throw new InvalidOptionsError(`latency must be in [0, 600000] ms, not ${ms}`);
      state.latencyMs = ms;
    },
    failNext: (count, failure) => {
      checkCount(count);
      if (!(Number.isInteger(failure.code) && failure.code >= 400 && failure.code <= 599))
        throw new InvalidOptionsError(`code must be an HTTP error status, not ${failure.code}`);
      const retry = failure.retryAfterSeconds;
      if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0))
        throw new InvalidOptionsError(`retryAfterSeconds must be a whole number of seconds >= 0, not ${retry}`);
      if (failure.on !== undefined && !FAILURE_TARGETS.includes(failure.on))
        throw new InvalidOptionsError(`on must be one of ${FAILURE_TARGETS.join(', ')}, not ${String(failure.on)}`);
      for (let i = 0; i < count; i++) state.failures.push(failure);
    },
    endNextWatches: (count, which = {}) => {
      checkCount(count);
      for (let i = 0; i < count; i++) state.endings.push(which);
    },
    blackhole: () => relay.blackhole(),
    goaway: () => {
      for (const session of sessions.open) session.close();
      return sessions.open.size;
    },
    openConnections: () => relay.open(),
    clear: () => {
      state.latencyMs = 0;
      state.failures.length = 0;
      state.endings.length = 0;
    },
    close: async () => {
      await relay.close();
      for (const session of sessions.open) session.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The counts as they are when read: the state's, the relay's connections, the HTTP/2 sessions. */
function liveCounts(state: ProxyState, accepted: () => number, sessions: Sessions): ProxyCounts {
  const counts = {} as ProxyCounts;
  for (const key of ['requests', 'watches', 'failed', 'ended', 'pings', 'h2Offers'] as const)
    Object.defineProperty(counts, key, { get: () => state.counts[key], enumerable: true });
  Object.defineProperty(counts, 'connections', { get: accepted, enumerable: true });
  Object.defineProperty(counts, 'http2Sessions', { get: () => sessions.opened, enumerable: true });
  return counts;
}

/** The HTTP sessions of the inner server: HTTP/2 sessions open, and how many were opened. */
interface Sessions {
  readonly open: Set<Http2Session>;
  opened: number;
}

/** The proxy's HTTP server, reached through the relay: HTTP/1.1, HTTPS, or HTTPS with HTTP/2 by ALPN. */
function innerServer(
  options: FaultProxyOptions,
  handle: ReturnType<typeof handler>,
  state: ProxyState,
): { server: Server; sessions: Sessions } {
  const sessions: Sessions = { open: new Set(), opened: 0 };
  if (!options.tls) return { server: createHttpServer(handle), sessions };
  const { cert, key } = options.tls;
  if (!options.http2) {
    // Speaking HTTP/1.1 only, the proxy still sees which clients offered h2.
    const ALPNCallback = ({ protocols }: { protocols: string[] }) => {
      if (protocols.includes('h2')) state.counts.h2Offers++;
      return protocols.includes('http/1.1') ? 'http/1.1' : undefined;
    };
    return { server: createHttpsServer({ cert, key, ALPNCallback }, handle), sessions };
  }
  const maxConcurrentStreams = (typeof options.http2 === 'object' ? options.http2.maxConcurrentStreams : undefined) ?? 100;
  // The compatibility request and response stand in for node:http's (see `ProxyRequest`).
  const server = createSecureServer({ cert, key, allowHTTP1: true, settings: { maxConcurrentStreams } }, handle as never);
  server.on('session', (session: Http2Session) => {
    sessions.opened++;
    state.counts.h2Offers++; // a session is an h2 handshake
    sessions.open.add(session);
    session.on('ping', () => state.counts.pings++);
    session.once('close', () => sessions.open.delete(session));
    session.on('error', () => undefined); // a client that went away; its streams end with it
  });
  return { server: server as unknown as Server, sessions };
}

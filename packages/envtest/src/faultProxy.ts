/**
 * A fault proxy of ours in front of an API server: it forwards every request and lets a test break
 * the connections as a real network and a real server do — streams cut (FIN) or reset (RST) mid-way,
 * stalled (open, silent), requests delayed or answered with an error status.
 */
import {
  Agent as HttpAgent,
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { InvalidOptionsError } from './errors.ts';
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
}

/** A running fault proxy. */
export interface FaultProxy {
  /** Where clients connect: `http(s)://127.0.0.1:PORT`. */
  readonly url: string;
  /** Requests forwarded so far, and how many of them were watches. */
  readonly counts: ProxyCounts;
  /** Responses open now (streaming or not yet finished) that `filter` selects. */
  open(filter?: StreamFilter): number;
  /** Closes the selected open streams mid-way (the client sees the connection end); returns how many. */
  cut(filter?: StreamFilter): number;
  /** Resets the selected open streams (TCP RST); returns how many. */
  reset(filter?: StreamFilter): number;
  /** Stops forwarding bytes on the selected open streams, which stay open and silent; returns how many. */
  stall(filter?: StreamFilter): number;
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

interface Exchange {
  readonly watch: boolean;
  readonly res: ServerResponse;
  upstream?: IncomingMessage;
  stalled: boolean;
  /** Ended once the server answered 200 (`endNextWatches`). */
  endAtOnce: boolean;
}

const FAILURE_TARGETS: readonly unknown[] = ['watch', 'list', 'write', 'any'] satisfies InjectedFailure['on'][];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** The proxy's state: the open exchanges, the counts and the pending faults. */
interface ProxyState {
  readonly exchanges: Set<Exchange>;
  readonly counts: { requests: number; watches: number; failed: number; ended: number };
  readonly failures: InjectedFailure[];
  readonly endings: WatchEnding[];
  latencyMs: number;
}

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
  const state: ProxyState = {
    exchanges: new Set(),
    counts: { requests: 0, watches: 0, failed: 0, ended: 0 },
    failures: [],
    endings: [],
    latencyMs: 0,
  };
  const agent =
    target.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, ca: options.targetCa }) : new HttpAgent({ keepAlive: true });
  const handle = handler(target, agent, options.rewrite, state);
  const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createHttpServer(handle);
  // The TCP connections by client port: under TLS a response's socket is a TLSSocket, which cannot
  // send a reset; the TCP socket under it can.
  const sockets = new Map<number, Socket>();
  server.on('connection', (socket: Socket) => {
    const port = socket.remotePort!;
    sockets.set(port, socket);
    socket.on('close', () => sockets.delete(port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const selected = (filter: StreamFilter = 'watches') => [...state.exchanges].filter((ex) => filter === 'all' || ex.watch);
  const each = (filter: StreamFilter | undefined, act: (ex: Exchange) => void) => {
    const hit = selected(filter);
    hit.forEach(act);
    return hit.length;
  };
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    counts: state.counts,
    open: (filter) => selected(filter).length,
    cut: (filter) => each(filter, (ex) => ex.res.socket?.destroy()),
    reset: (filter) => each(filter, (ex) => sockets.get(ex.res.socket?.remotePort ?? -1)?.resetAndDestroy()),
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
    clear: () => {
      state.latencyMs = 0;
      state.failures.length = 0;
      state.endings.length = 0;
    },
    close: async () => {
      for (const s of sockets.values()) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request handler: answers an injected failure, or forwards (after the latency) and tracks the exchange. */
function handler(target: URL, agent: HttpAgent, rewrite: FaultProxyOptions['rewrite'], state: ProxyState) {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const forward = (req: IncomingMessage, res: ServerResponse, ex: Exchange) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    for (const h of HOP_BY_HOP) delete headers[h];
    const path = rewrite ? rewrite(req.url ?? '/') : (req.url ?? '/');
    const up = send(new URL(path, target), { method: req.method, headers, agent }, (upRes) => {
      ex.upstream = upRes;
      const out = { ...upRes.headers };
      for (const h of HOP_BY_HOP) delete out[h];
      res.writeHead(upRes.statusCode ?? 502, out);
      // Send the headers now, as the server did: a quiet watch is established before its first event.
      res.flushHeaders();
      if (ex.endAtOnce && upRes.statusCode === 200) {
        state.counts.ended++;
        upRes.destroy();
        res.end();
        return;
      }
      upRes.pipe(res);
      if (ex.stalled) upRes.unpipe(res);
      // A server that dies mid-response (killed, restarted) ends the client's response the same way.
      upRes.on('close', () => !upRes.complete && res.destroy());
    });
    up.on('error', (error) => {
      if (!res.headersSent) statusAnswer(res, 502, 'ServiceUnavailable', `the proxy could not reach ${target.host}: ${error.message}`);
      else res.destroy();
    });
    res.on('close', () => {
      state.exchanges.delete(ex);
      up.destroy();
    });
    req.pipe(up);
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const watch = /[?&]watch=(true|1)(&|$)/.test(req.url ?? '');
    state.counts.requests++;
    if (watch) state.counts.watches++;
    const i = state.failures.findIndex((f) => matches(f, watch, req.method, req.url ?? '/'));
    if (i >= 0) {
      const [f] = state.failures.splice(i, 1);
      state.counts.failed++;
      req.resume();
      statusAnswer(res, f.code, reasonOf(f.code), `injected by the fault proxy`, f.retryAfterSeconds);
      return;
    }
    const ending = watch ? state.endings.findIndex((w) => (req.headers['user-agent'] ?? '').includes(w.userAgentContains ?? '')) : -1;
    if (ending >= 0) state.endings.splice(ending, 1);
    const ex: Exchange = { watch, res, stalled: false, endAtOnce: ending >= 0 };
    state.exchanges.add(ex);
    if (state.latencyMs > 0) setTimeout(() => !res.destroyed && forward(req, res, ex), state.latencyMs);
    else forward(req, res, ex);
  };
}

function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count >= 0 && count <= 1e6))
    throw new InvalidOptionsError(`count must be an integer in [0, 1e6], not ${count}`);
}

function matches(f: InjectedFailure, watch: boolean, method: string | undefined, url: string): boolean {
  if (f.pathContains !== undefined && !url.split('?')[0].includes(f.pathContains)) return false;
  const on = f.on ?? 'any';
  if (on === 'write') return method !== 'GET' && method !== 'HEAD';
  return on === 'any' || (on === 'watch' ? watch : !watch && method === 'GET');
}

const REASONS: Record<number, string> = {
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'ServiceUnavailable',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};
function reasonOf(code: number): string {
  return REASONS[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest');
}

/** Answers with a Kubernetes Status body (and `Retry-After` when given). */
function statusAnswer(res: ServerResponse, code: number, reason: string, message: string, retryAfterSeconds?: number): void {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  res.writeHead(code, {
    'content-type': 'application/json',
    ...(retryAfterSeconds !== undefined && { 'retry-after': String(retryAfterSeconds) }),
  });
  res.end(JSON.stringify(status));
}

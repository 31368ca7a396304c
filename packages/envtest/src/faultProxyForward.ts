/**
 * The HTTP side of the fault proxy: each request answered with an injected failure, or forwarded to
 * the target (after the latency) and tracked as an exchange the faults act on. Clients speak
 * HTTP/1.1 or HTTP/2 to the proxy; the proxy speaks HTTP/1.1 to the target.
 */
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import { constants as http2Constants, type Http2ServerResponse } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { InvalidOptionsError } from './errors.ts';
import type { FaultProxyOptions, InjectedFailure, WatchEnding } from './faultProxy.ts';

/**
 * A request of either protocol, and its response: HTTP/2's compatibility objects are used through
 * the HTTP/1.1 API they mirror (headers, `writeHead`, `flushHeaders`, piping).
 */
export type ProxyRequest = IncomingMessage;
export type ProxyResponse = ServerResponse;

/** One forwarded request the faults can act on. */
export interface Exchange {
  readonly watch: boolean;
  readonly res: ProxyResponse;
  upstream?: IncomingMessage;
  stalled: boolean;
  /** Ended once the server answered 200 (`endNextWatches`). */
  endAtOnce: boolean;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** The proxy's state: the open exchanges, the counts and the pending faults. */
export interface ProxyState {
  readonly exchanges: Set<Exchange>;
  readonly counts: { requests: number; watches: number; failed: number; ended: number; pings: number; h2Offers: number };
  /** The latest requests, `METHOD path?query`, oldest first (see `FaultProxy.requests`). */
  readonly log: string[];
  readonly failures: InjectedFailure[];
  readonly endings: WatchEnding[];
  latencyMs: number;
}

/**
 * Ends a response mid-way as a broken network or a dying server does: over HTTP/1.1 its connection
 * is closed; over HTTP/2 its stream is reset (INTERNAL_ERROR), the connection's other streams left
 * alone.
 */
export function cutResponse(res: ProxyResponse): void {
  const { stream } = res as unknown as Partial<Http2ServerResponse>;
  if (stream) stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR);
  else res.socket?.destroy();
}

/** The request handler: answers an injected failure, or forwards (after the latency) and tracks the exchange. */
export function handler(target: URL, agent: HttpAgent, rewrite: FaultProxyOptions['rewrite'], state: ProxyState) {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const forward = (req: ProxyRequest, res: ProxyResponse, ex: Exchange) => {
    const headers: Record<string, string | string[] | undefined> = {};
    // HTTP/2's pseudo-headers (`:path`…) are not headers of the HTTP/1.1 request to the target.
    for (const [name, value] of Object.entries(req.headers)) if (!name.startsWith(':') && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.host = target.host;
    const path = rewrite ? rewrite(req.url ?? '/') : (req.url ?? '/');
    logRequest(state.log, `${req.method} ${path}`);
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
      upRes.on('close', () => !upRes.complete && cutResponse(res));
    });
    up.on('error', (error) => {
      if (!res.headersSent) statusAnswer(res, 502, 'ServiceUnavailable', `the proxy could not reach ${target.host}: ${error.message}`);
      else cutResponse(res);
    });
    res.on('close', () => {
      state.exchanges.delete(ex);
      up.destroy();
    });
    req.pipe(up);
  };
  return (req: ProxyRequest, res: ProxyResponse) => {
    const watch = /[?&]watch=(true|1)(&|$)/.test(req.url ?? '');
    state.counts.requests++;
    if (watch) state.counts.watches++;
    const i = state.failures.findIndex((f) => matches(f, watch, req.method, req.url ?? '/'));
    if (i >= 0) {
      const [f] = state.failures.splice(i, 1);
      state.counts.failed++;
      logRequest(state.log, `${req.method} ${req.url ?? '/'}`);
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

/** How many requests the proxy keeps in its `requests` log: the latest this many. */
export const PROXY_LOG_SIZE = 10_000;

/** Adds `line` to the log, dropping the oldest past `PROXY_LOG_SIZE`. */
function logRequest(log: string[], line: string): void {
  log.push(line);
  if (log.length > PROXY_LOG_SIZE) log.splice(0, log.length - PROXY_LOG_SIZE);
}

export function checkCount(count: number): void {
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
function statusAnswer(res: ProxyResponse, code: number, reason: string, message: string, retryAfterSeconds?: number): void {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  res.writeHead(code, {
    'content-type': 'application/json',
    ...(retryAfterSeconds !== undefined && { 'retry-after': String(retryAfterSeconds) }),
  });
  res.end(JSON.stringify(status));
}

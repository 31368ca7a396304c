/**
 * The page server's forwarding of the Kubernetes API paths (`/api`, `/apis`, `/version`) to an API
 * server, the way `kubectl proxy` or an app's backend stands between a browser and a cluster.
 * Bodies are streamed both ways, never buffered, so each watch line reaches the page as the API
 * server writes it; a page that leaves aborts the upstream request, and an upstream answer that
 * breaks breaks the page's (an HTTP/1.1 response cut short, an HTTP/2 stream reset). The page may
 * speak HTTP/1.1 or HTTP/2 (node's compatibility API gives both the same request and response);
 * the upstream is spoken to over HTTP/1.1, one keep-alive connection per request in flight.
 */
import { Agent, request, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { sendText, writable, type PageRequest, type PageResponse } from './pageHttp.ts';

/**
 * Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1), and those HTTP/2
 * forbids (RFC 9113 §8.2.2: `proxy-connection` too).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** True for the paths the API server answers: `/api`, `/apis`, `/version` and below. */
export function isApiPath(pathname: string): boolean {
  return /^\/(api|apis|version)(\/|$)/.test(pathname);
}

/**
 * `headers` without the hop-by-hop ones, those the `Connection` header names, and HTTP/2's
 * pseudo-headers (`:method`, `:path`, `:authority`…), which no HTTP/1.1 request may carry.
 */
export function forwardableHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  );
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name) && !name.startsWith(':')) out[name] = value;
  }
  return out;
}

/** Forwards API requests to `upstream`; `close()` drops its upstream connections. */
export interface ApiProxy {
  /** Forwards one request and streams its answer back. */
  forward(req: PageRequest, res: PageResponse): void;
  /** Destroys every upstream socket (open watches included). */
  close(): void;
}

/**
 * The forwarding to `upstream` (an `http:` URL).
 *
 * @example
 * const proxy = apiProxy(new URL('http://127.0.0.1:6443'));
 * createServer((req, res) => (isApiPath(req.url!) ? proxy.forward(req, res) : serveOther(req, res)));
 */
export function apiProxy(upstream: URL): ApiProxy {
  const agent = new Agent({ keepAlive: true });
  const forward = (req: PageRequest, res: PageResponse): void => {
    const target = new URL(req.url ?? '/', upstream);
    const upstreamReq = request(target, {
      method: req.method,
      headers: { ...forwardableHeaders(req.headers), host: upstream.host },
      agent,
    });
    upstreamReq.on('response', (upstreamRes) => {
      const headers = forwardableHeaders(upstreamRes.headers);
      // HTTP/2 has no reason phrase.
      if (req.httpVersionMajor === 2) res.writeHead(upstreamRes.statusCode ?? 502, headers);
      else (res as ServerResponse).writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, headers);
      // A watch sends its headers at once and its first event much later (an HTTP/2 response sends its headers at once).
      (res as Partial<ServerResponse>).flushHeaders?.();
      // An upstream that ends abruptly ends the page's response abruptly too (the reflector then
      // re-watches); a page that goes away aborts the upstream request.
      pipeline(upstreamRes, writable(res), () => undefined);
    });
    upstreamReq.on('error', (e) => {
      if (res.headersSent) res.destroy();
      else sendStatus(res, 502, `the API server at ${upstream.origin} is unreachable: ${e.message}`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    pipeline(req, upstreamReq, () => undefined);
  };
  return { forward, close: () => agent.destroy() };
}

/** A `meta/v1` Status, the error body every Kubernetes client (the core's `KubeApiError`) reads. */
function sendStatus(res: PageResponse, code: number, message: string): void {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'ServiceUnavailable',
    code,
  });
  sendText(res, code, body, { 'Content-Type': 'application/json' });
}

/**
 * The page's own origin: a node:http server that serves the built page and forwards the
 * Kubernetes API paths (`/api`, `/apis`, `/version`) to an API server, the way `kubectl proxy` or an
 * app's backend stands between a browser and a cluster. Bodies are streamed both ways, never
 * buffered, so watch events reach the page as the API server writes them.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import type { PageBundle } from './bundle.ts';
import { serveSite, type StaticSite } from './staticSite.ts';

export type { StaticSite } from './staticSite.ts';

/** Options of `startPageServer`. */
export interface PageServerOptions {
  /** The API server every API path is forwarded to, e.g. `http://127.0.0.1:6443`. Required. */
  upstream: string;
  /**
   * What to serve besides the API: a page bundle (`/` and `/app.js`), or a built site's directory
   * (every file in it, `index.html` at `/` and for the app's routes). Required.
   */
  page: PageBundle | StaticSite;
  /** TCP port. Default 0 (a free port). */
  port?: number;
  /** Listen address. Default `127.0.0.1`: the proxy adds no authentication of its own. */
  host?: string;
}

/** A running page server. */
export interface PageServer {
  /** `http://<host>:<port>`: open it in a browser. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and drops every connection (open watches included) and the upstream sockets. */
  close(): Promise<void>;
}

/** Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** True for the paths the API server answers: `/api`, `/apis`, `/version` and below. */
export function isApiPath(pathname: string): boolean {
  return /^\/(api|apis|version)(\/|$)/.test(pathname);
}

/** `headers` without the hop-by-hop ones, nor those the `Connection` header names. */
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
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  }
  return out;
}

/**
 * Starts the server.
 *
 * @example
 * const server = await startPageServer({ upstream: sim.url, page: await buildPage() });
 * console.log(`open ${server.url}`);
 * await server.close();
 *
 * Caveat: any method is forwarded (the page only reads, but kubectl-style writes pass too), and
 * no credentials are added: against a real cluster, put the proxy's auth in front of `upstream`.
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const upstream = new URL(options.upstream);
  const agent = new Agent({ keepAlive: true });
  const { page } = options;

  const serveStatic = (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    if ('root' in page) {
      serveSite(page, req, res, pathname).catch(() => res.destroy());
      return;
    }
    if (pathname === '/' || pathname === '/index.html')
      return sendText(res, 200, page.html, { 'Content-Type': 'text/html; charset=utf-8' }, req.method === 'HEAD');
    if (pathname === '/app.js')
      return sendText(res, 200, page.js, { 'Content-Type': 'text/javascript; charset=utf-8' }, req.method === 'HEAD');
    if (pathname === '/favicon.ico') return sendText(res, 204, '');
    sendText(res, 404, 'not found\n');
  };

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const target = new URL(req.url ?? '/', upstream);
    const upstreamReq = request(target, {
      method: req.method,
      headers: { ...forwardableHeaders(req.headers), host: upstream.host },
      agent,
    });
    upstreamReq.on('response', (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, forwardableHeaders(upstreamRes.headers));
      res.flushHeaders(); // a watch sends its headers at once and its first event much later
      // An upstream that ends abruptly ends the page's response abruptly too (the reflector then
      // re-watches); a page that goes away aborts the upstream request.
      pipeline(upstreamRes, res, () => undefined);
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

  const server = createServer((req, res) => {
    const url = URL.parse(req.url ?? '/', 'http://page');
    if (!url) return sendText(res, 400, 'bad request target\n');
    const pathname = url.pathname;
    if (isApiPath(pathname)) forward(req, res);
    else serveStatic(req, res, pathname);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

function sendText(res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}, headOnly = false): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(headOnly ? undefined : body);
}

/** A `meta/v1` Status, the error body every Kubernetes client (the core's `KubeApiError`) reads. */
function sendStatus(res: ServerResponse, code: number, message: string): void {
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

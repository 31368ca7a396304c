/**
 * The page's own origin: a server that serves the built page and forwards the Kubernetes API paths
 * (`/api`, `/apis`, `/version`) to an API server (`apiProxy.ts`), the way `kubectl proxy` or an
 * app's backend stands between a browser and a cluster. With `tls` it speaks HTTP/2 over TLS (and
 * HTTP/1.1 to clients that ask for it): every request of a page shares one connection, so any
 * number of informers stay live. Without, plain HTTP/1.1, where a browser holds 6 connections per
 * origin and each informer's watch keeps one.
 */
import { createServer, type Server } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { apiProxy, isApiPath } from './apiProxy.ts';
import { sendText, type PageRequest, type PageResponse } from './pageHttp.ts';
import type { PageBundle } from './bundle.ts';
import type { TlsCredentials } from './devCertificate.ts';
import { serveSite, type StaticSite } from './staticSite.ts';

export type { StaticSite } from './staticSite.ts';
export type { TlsCredentials } from './devCertificate.ts';
export { forwardableHeaders, isApiPath } from './apiProxy.ts';

/** Options of `startPageServer`. */
export interface PageServerOptions {
  /** The API server every API path is forwarded to, e.g. `http://127.0.0.1:6443`. Required. */
  upstream: string;
  /**
   * What to serve besides the API: a page bundle (`/` and `/app.js`), or a built site's directory
   * (every file in it, `index.html` at `/` and for the app's routes). Required.
   */
  page: PageBundle | StaticSite;
  /**
   * Serve HTTP/2 over TLS with this certificate and key (`devCertificate()` makes one for
   * localhost; `loadCertificate()` reads yours), still answering HTTP/1.1 clients over TLS.
   * Default: none, plain HTTP/1.1 (6 connections per origin in a browser: at most 5 live informers).
   */
  tls?: TlsCredentials;
  /** TCP port. Default 0 (a free port). */
  port?: number;
  /** Listen address. Default `127.0.0.1`: the proxy adds no authentication of its own. */
  host?: string;
}

/** A running page server. */
export interface PageServer {
  /** `https://<host>:<port>` (with `tls`) or `http://<host>:<port>`: open it in a browser. */
  readonly url: string;
  readonly port: number;
  /** `h2` (HTTP/2 over TLS, HTTP/1.1 for clients that ask) or `http/1.1` (plain). */
  readonly protocol: 'h2' | 'http/1.1';
  /** Stops listening and drops every connection (open watches included) and the upstream sockets. */
  close(): Promise<void>;
}

/**
 * Starts the server.
 *
 * @example
 * const server = await startPageServer({ upstream: sim.url, page: await buildPage(), tls: await devCertificate() });
 * console.log(`open ${server.url}`); // https://127.0.0.1:<port>, HTTP/2
 * await server.close();
 *
 * Caveat: any method is forwarded (the page only reads, but kubectl-style writes pass too), and
 * no credentials are added: against a real cluster, put the proxy's auth in front of `upstream`.
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const proxy = apiProxy(new URL(options.upstream));
  const { page } = options;

  const serveStatic = (req: PageRequest, res: PageResponse, pathname: string): void => {
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
  const handle = (req: PageRequest, res: PageResponse): void => {
    const url = URL.parse(req.url ?? '/', 'http://page');
    if (!url) return sendText(res, 400, 'bad request target\n');
    if (isApiPath(url.pathname)) proxy.forward(req, res);
    else serveStatic(req, res, url.pathname);
  };

  const server: Server | Http2SecureServer = options.tls
    ? createSecureServer({ cert: options.tls.cert, key: options.tls.key, allowHTTP1: true }, handle)
    : createServer(handle);
  // Every connection, to drop at close: HTTP/2 sessions hold open streams that `close()` waits for.
  const sockets = new Set<Socket>();
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
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
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    protocol: options.tls ? 'h2' : 'http/1.1',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        proxy.close();
      }),
  };
}

/**
 * A hub and a page on one origin: an HTTP server that serves the files of a built page and answers
 * the hub's WebSocket on its path, for an example dashboard or a small deployment.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { createHub, type Hub } from './hub.ts';
import type { HubOptions } from './options.ts';

/** Options of `startHub`: the hub's, and where to listen and what to serve. */
export interface StartHubOptions extends HubOptions {
  /** The folder of the built page (its `index.html` at `/`). Absent: only the hub. */
  staticDir?: string;
  /** Port (0: any free one). Default 8080. */
  port?: number;
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /**
   * Serve HTTPS (`wss://`) with these options of `node:https` (`key`, `cert`; `ca` and
   * `requestCert: true` for a `requestHeaderAuthenticator` that checks a proxy's client
   * certificate). Default: plain HTTP.
   */
  tls?: HttpsServerOptions;
}

/** A hub listening with its page. */
export interface StartedHub {
  /** The hub. */
  readonly hub: Hub;
  /** The HTTP (or, with `tls`, HTTPS) server it is attached to. */
  readonly server: Server | HttpsServer;
  /** `http://host:port` (`https://` with `tls`). */
  readonly url: string;
  /** Closes the hub, then the server. */
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

/**
 * Starts a hub and serves `staticDir` on the same origin (so the hub's same-origin check passes).
 *
 * @example
 * const { url } = await startHub({ clusters: { default: factory }, authenticator, authorizer, staticDir: 'dist', port: 8080 });
 * // the page: hubListerWatcherSource('/hub')
 *
 * Caveat: plain HTTP unless `tls` is given: anywhere but the loopback, give `tls`, put it behind a
 * TLS proxy, or attach `createHub` to an https or http2 server of your own.
 */
export async function startHub(options: StartHubOptions): Promise<StartedHub> {
  const { staticDir, port = 8080, host = '127.0.0.1', tls, ...hubOptions } = options;
  const hub = createHub(hubOptions);
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    if (!staticDir || req.method !== 'GET') return void res.writeHead(404).end();
    void fileOf(staticDir, req.url ?? '/').then((file) => {
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache' }).end(file.body);
    });
  };
  const server = tls ? createHttpsServer(tls, serve) : createServer(serve);
  hub.attach(server);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    hub,
    server,
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: async () => {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The file a URL names under `root` (`index.html` for a folder), never outside it. */
async function fileOf(root: string, url: string): Promise<{ body: Buffer; type: string } | undefined> {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url, 'http://x').pathname);
  } catch {
    return undefined;
  }
  const full = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
  if (!full.startsWith(normalize(root + sep)) && full !== normalize(root)) return undefined;
  try {
    return { body: await readFile(full), type: TYPES[extname(full)] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}

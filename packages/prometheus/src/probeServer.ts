/**
 * The probes and the metrics over node:http, no framework: `/readyz`, `/healthz` (and `/livez`, its
 * alias) and `/metrics`, as a request handler to mount in a server of your own or as a server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register as globalRegistry, type Registry } from 'prom-client';
import type { Probes, ProbeReport } from './probes.ts';

/** An HTTP answer: status code, content type, body. */
export interface ProbeResponse {
  /** 200 when passed, 500 when failed (as the Kubernetes API server answers its own probes). */
  status: number;
  /** `text/plain; charset=utf-8`. */
  contentType: string;
  /** `ok` when passed and not verbose; otherwise one `[+]name ok` / `[-]name failed: why` line per check and a verdict. */
  body: string;
}

/**
 * Renders a probe's report as the Kubernetes API server renders its own: `ok`, or with `verbose` (and
 * always on failure) a line per check then `<probe> check passed|failed`. For any framework.
 *
 * @example
 * app.get('/readyz', (req, res) => { const r = probeResponse('readyz', probes.readyz(), 'verbose' in req.query); res.status(r.status).type(r.contentType).send(r.body); });
 */
export function probeResponse(probe: string, report: ProbeReport, verbose = false): ProbeResponse {
  const contentType = 'text/plain; charset=utf-8';
  if (report.ok && !verbose) return { status: 200, contentType, body: 'ok\n' };
  const lines = report.checks.map((c) => (c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.message ?? 'reason withheld'}`));
  lines.push(`${probe} check ${report.ok ? 'passed' : 'failed'}`);
  return { status: report.ok ? 200 : 500, contentType, body: `${lines.join('\n')}\n` };
}

/** Options of `probeHandler` and `serveProbes`. */
export interface ProbeHandlerOptions {
  /** The probes of `/readyz` and `/healthz`; without them those paths are not served. */
  probes?: Probes;
  /** The registry `/metrics` serves; `null` serves no `/metrics`. Default: prom-client's global `register`. */
  registry?: Registry | null;
}

/**
 * A node:http request handler for `/readyz`, `/healthz`, `/livez` and `/metrics` (GET and HEAD).
 * Returns false, answering nothing, for any other path (or a request target that is not a URL), so it
 * mounts in front of your own routes.
 *
 * @example
 * const probe = probeHandler({ probes });
 * createServer((req, res) => { if (!probe(req, res)) myRoutes(req, res); }).listen(8080);
 */
export function probeHandler(options: ProbeHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const registry = options.registry === undefined ? globalRegistry : options.registry;
  return (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return false; // `GET //[`: thrown out of the server's request listener, it would end the process
    }
    const path = url.pathname.replace(/\/+$/, '');
    const probe = path === '/readyz' ? 'readyz' : path === '/healthz' || path === '/livez' ? 'healthz' : undefined;
    if (probe === undefined ? path !== '/metrics' || registry === null : options.probes === undefined) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return true;
    }
    if (probe !== undefined) {
      const r = probeResponse(path.slice(1), options.probes![probe](), url.searchParams.has('verbose'));
      send(req, res, r.status, r.contentType, r.body);
      return true;
    }
    registry!.metrics().then(
      (text) => send(req, res, 200, registry!.contentType, text),
      (e: unknown) => send(req, res, 500, 'text/plain; charset=utf-8', `metrics failed: ${e instanceof Error ? e.message : String(e)}\n`),
    );
    return true;
  };
}

function send(req: IncomingMessage, res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A running probe server. */
export interface ProbeServer {
  /** E.g. `http://127.0.0.1:9090`. */
  readonly url: string;
  /** The port it listens on (the one chosen when 0 was asked). */
  readonly port: number;
  /** Stops listening and closes its connections; resolves once closed. */
  close(): Promise<void>;
}

/**
 * Serves `probeHandler` on its own port (404 for other paths).
 *
 * @example
 * const server = await serveProbes({ probes, port: 9090 }); // http://127.0.0.1:9090/metrics
 * await server.close();
 */
export async function serveProbes(options: ProbeHandlerOptions & { port?: number; host?: string } = {}): Promise<ProbeServer> {
  const handle = probeHandler(options);
  const server = createServer((req, res) => {
    if (!handle(req, res)) res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

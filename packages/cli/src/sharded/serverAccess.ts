/**
 * How the sharded demo and its replicas reach an API server over fetch: the server's URL, the auth
 * headers of a kubeconfig's user, and a fetch trusting the cluster's CA (with the user's client
 * certificate, if any) — the simulator over plain HTTP, kube-apiserver over HTTPS alike.
 */
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, fetch as undiciFetch } from 'undici';

/** What a fetch-based client needs of a server. */
export interface ServerAccess {
  /** The API server URL, e.g. `https://127.0.0.1:6443`. */
  readonly url: string;
  /** Auth headers of the kubeconfig's user (`Authorization`). */
  readonly headers: Record<string, string>;
  /** The bearer token, when the user has one (a proxy in front of the server can forward it). */
  readonly token?: string;
  /** The CA bundle (PEM) the server's certificate is checked against, when the kubeconfig names one. */
  readonly ca?: string;
  /** A fetch over one keep-alive connection pool with the kubeconfig's TLS settings. */
  readonly fetch: typeof fetch;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

/** The access of a plain URL (the simulator): no auth, the global fetch. */
export function urlAccess(url: string): ServerAccess {
  return { url: url.replace(/\/+$/, ''), headers: {}, fetch: (input, init) => fetch(input, init), close: () => Promise.resolve() };
}

/**
 * The access of the current context of the kubeconfig file `path`: its server, its user's headers
 * (a token, or what an exec plugin gives), its CA and client certificate. `maxConnections` (default
 * 32; `Infinity`: no limit) caps the pool: over HTTP/1.1 each open watch holds one connection, so
 * a process with more informers than that must lift it, or its other lists and watches wait.
 *
 * @example
 * const access = await kubeconfigAccess('./envtest.kubeconfig');
 * const r = await access.fetch(`${access.url}/version`, { headers: access.headers });
 */
export async function kubeconfigAccess(path: string, options: { maxConnections?: number } = {}): Promise<ServerAccess> {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${path}: the current context names no cluster`);
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {}))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  // client-node reads the CA and the client certificate (files or inline data) into these
  const ca = Buffer.isBuffer(opts.ca) ? opts.ca.toString('utf8') : typeof opts.ca === 'string' ? opts.ca : undefined;
  const max = options.maxConnections ?? 32;
  const dispatcher = new Agent({
    connections: max === Infinity ? null : max,
    connect: { ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: !cluster.skipTLSVerify },
  });
  const bearer = /^Bearer (.+)$/.exec(headers.Authorization ?? headers.authorization ?? '');
  return {
    url: cluster.server.replace(/\/+$/, ''),
    headers,
    ...(bearer && { token: bearer[1] }),
    ...(ca !== undefined && { ca }),
    fetch: ((input: string | URL, init?: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch,
    close: () => dispatcher.close(),
  };
}

/**
 * A TLS connection to the API server that offers HTTP/2 and HTTP/1.1 by ALPN: straight to the
 * server, or through an HTTP(S) proxy's `CONNECT` tunnel (the cluster's `proxy-url`), with the TCP
 * keep-alive probes of every connection of ours (30 s, as client-go's dialer).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { SchedulerLike } from 'rxjs';
import { asError } from './errors.ts';
import type { TlsMaterial } from './tlsMaterial.ts';

/** TCP keep-alive probes after 30 s idle, like client-go's dialer, so idle load-balancer timeouts do not cut watches. */
export const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelay: 30_000 } as const;

/** Where and how to connect. */
export interface TlsConnectOptions {
  /** The server, `https://host:port`. */
  target: URL;
  /** The cluster's `proxy-url`, when set. */
  proxyUrl?: string;
  /** The TLS material of the user and cluster (CA, client certificate…). */
  material: TlsMaterial;
  /** Time limit until the TLS handshake is done, in ms. */
  timeoutMs: number;
  /** Where that time limit runs. */
  scheduler: SchedulerLike;
}

/** A failed `CONNECT` to the proxy: its status, typed a `NetworkError` by core (code `ERR_PROXY_TUNNEL`). */
export class ProxyTunnelError extends Error {
  /** Always `ProxyTunnelError`: set as a string, so it survives minification. */
  override readonly name: string = 'ProxyTunnelError';
  /** The code core's `networkErrorFrom` reports on the `NetworkError`. */
  readonly code = 'ERR_PROXY_TUNNEL';
  /** The proxy's answer to `CONNECT`. */
  readonly status: number;

  constructor(status: number, proxy: string) {
    super(`the proxy ${proxy} refused the tunnel with HTTP ${status}`);
    this.status = status;
  }
}

/**
 * Connects and resolves once the TLS handshake is done; the socket's `alpnProtocol` says what the
 * server chose (`h2`, `http/1.1`, or `false` when it takes no ALPN). Past `timeoutMs` it rejects
 * with an `ETIMEDOUT` error (typed `ConnectTimeout` by core).
 *
 * @example
 * const socket = await connectTls({ target: new URL(server), material, timeoutMs: 30_000, scheduler: asyncScheduler });
 * if (socket.alpnProtocol !== 'h2') socket.destroy();
 */
export function connectTls(options: TlsConnectOptions): Promise<TLSSocket> {
  const { target, material } = options;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port || 443);
  return new Promise((resolve, reject) => {
    let socket: TLSSocket | undefined;
    let tunnel: Socket | undefined;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      timer.unsubscribe();
      if (error === undefined) return resolve(socket!);
      socket?.destroy();
      tunnel?.destroy();
      reject(error);
    };
    const timer = options.scheduler.schedule(
      () => settle(Object.assign(new Error(`no TLS connection to ${target.host} within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
      options.timeoutMs,
    );
    const handshake = () => {
      const servername = material.servername ?? (isIP(host) === 0 ? host : undefined);
      socket = connect({ ...material, ...KEEP_ALIVE, host, port, servername, ALPNProtocols: ['h2', 'http/1.1'], socket: tunnel });
      socket.once('secureConnect', () => settle());
      socket.once('error', settle);
    };
    if (options.proxyUrl === undefined) return handshake();
    openTunnel(new URL(options.proxyUrl), `${target.hostname}:${port}`).then(
      (through) => {
        tunnel = through;
        if (settled)
          through.destroy(); // timed out meanwhile
        else handshake();
      },
      (error: unknown) => settle(asError(error)),
    );
  });
}

/** A `CONNECT authority` tunnel through `proxy` (basic auth from its user info), with keep-alive probes. */
function openTunnel(proxy: URL, authority: string): Promise<Socket> {
  const user = decodeURIComponent(proxy.username);
  const auth = user === '' ? undefined : `Basic ${Buffer.from(`${user}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = send({
    host: proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
    method: 'CONNECT',
    path: authority,
    headers: { host: authority, ...(auth !== undefined && { 'proxy-authorization': auth }) },
    agent: false,
  });
  return new Promise((resolve, reject) => {
    req.once('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new ProxyTunnelError(res.statusCode ?? 0, proxy.host));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      socket.setKeepAlive(KEEP_ALIVE.keepAlive, KEEP_ALIVE.keepAliveInitialDelay);
      resolve(socket);
    });
    req.once('error', reject);
    req.end();
  });
}

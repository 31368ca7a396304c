/**
 * Test helpers for the wire behaviour of both HTTP ListerWatchers (fetch, browser-safe; KubeConfig
 * over undici): a node:http server on 127.0.0.1 whose answers each test writes by hand, and a maker
 * of each ListerWatcher against it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { fetchListerWatcher, type HttpLimitOptions, type KubeObject, type ListerWatcher } from '@rxinformer/core';
import { createKubeTransport, kubeConfigListerWatcher, pods, type KubeTransport } from '../src/index.ts';

/** How the server answers one request. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server whose `handler` answers every request; it records each request, and each one closed. */
export interface RawServer {
  readonly url: string;
  handler: Handler;
  readonly requests: { url: string; auth?: string; socket: Socket }[];
  /** The URL of every request whose connection closed (answered, aborted by the client, or cut). */
  readonly closedRequests: string[];
  close(): Promise<void>;
}

export async function startRawServer(): Promise<RawServer> {
  const raw: RawServer = {
    url: '',
    handler: (_req, res) => res.end(),
    requests: [],
    closedRequests: [],
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server: Server = createServer((req, res) => {
    raw.requests.push({ url: req.url ?? '', auth: req.headers.authorization, socket: req.socket });
    res.on('close', () => raw.closedRequests.push(req.url ?? ''));
    raw.handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(raw, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** A KubeConfig of one cluster at `server`, with `token` when given. */
export function plainKubeConfig(server: string, token?: string, skipTLSVerify = true): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify }],
    users: [{ name: 'u', ...(token && { token }) }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** The options each maker passes on: the scope and the limits. */
export type MakerOptions = { labelSelector?: string; namespace?: string } & HttpLimitOptions;

/**
 * Makers of both HTTP ListerWatchers of pods against `server()`, with the token `t`; the transports
 * made are pushed to `transports` for the caller to close.
 */
export function listerWatcherMakers(
  server: () => string,
  transports: KubeTransport[],
): [string, (opts: MakerOptions) => ListerWatcher<KubeObject>][] {
  return [
    ['fetchListerWatcher', (o) => fetchListerWatcher({ baseUrl: server(), resource: pods, headers: { Authorization: 'Bearer t' }, ...o })],
    [
      'kubeConfigListerWatcher',
      (o) => {
        const transport = createKubeTransport(plainKubeConfig(server(), 't'));
        transports.push(transport);
        return kubeConfigListerWatcher(plainKubeConfig(server(), 't'), { resource: pods, transport, ...o });
      },
    ],
  ];
}

/** Polls `check` every 10 ms, 200 times at most. */
export async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

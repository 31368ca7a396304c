/** A small HTTP(S) client for the environment's own calls to an API server (readiness, setup, CRDs). */
import type { KubeConfig } from '@kubernetes/client-node';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { InvalidOptionsError } from './errors.ts';

/** Where and as whom to call. */
export interface ServerAccess {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The CA bundle (PEM) the server's certificate chains to. */
  readonly ca: string;
  /** The bearer token. */
  readonly token: string;
}

/** An answer: status and body text (at most 1 MiB is kept). */
export interface Answer {
  readonly status: number;
  readonly body: string;
}

/** Calls `method path` with an optional JSON body; rejects only when there is no answer within `timeoutMs` (default 10 000). */
export type ServerCall = (method: string, path: string, body?: unknown, timeoutMs?: number) => Promise<Answer>;

/** Calls `method path` of the server of `access`; see `ServerCall`. */
export function callServer(access: ServerAccess, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Answer> {
  return send(access.url, { ca: access.ca, headers: { authorization: `Bearer ${access.token}` } }, method, path, body, timeoutMs);
}

/** The `ServerCall` of `access`. */
export const accessCall =
  (access: ServerAccess): ServerCall =>
  (method, path, body, timeoutMs) =>
    callServer(access, method, path, body, timeoutMs);

/**
 * The `ServerCall` of a kubeconfig's current context: its server, CA, client certificate, token,
 * exec plugin or auth provider, as client-node applies them.
 */
export function kubeConfigCall(kubeConfig: KubeConfig): ServerCall {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server)
    throw new InvalidOptionsError(
      `the kubeconfig's current context (${JSON.stringify(kubeConfig.getCurrentContext())}) names no cluster server`,
    );
  return async (method, path, body, timeoutMs = 10_000) => {
    const options: RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(options);
    return send(server.replace(/\/+$/, ''), options, method, path, body, timeoutMs);
  };
}

function send(base: string, options: RequestOptions, method: string, path: string, body: unknown, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const request = base.startsWith('http:') ? httpRequest : httpsRequest;
    const req = request(
      `${base}${path}`,
      {
        ...options,
        method,
        headers: {
          ...options.headers,
          accept: 'application/json',
          ...(data !== undefined && { 'content-type': 'application/json' }),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 1 << 20) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(data);
  });
}

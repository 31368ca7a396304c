/**
 * Test helpers: a KubeConfig for a simulator, a transport that records (and can intercept) every
 * request path, polling until a condition holds, and a proxy that drops the Accept header.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { ApiServer } from '@rxinformer/apiserver-sim';
import type { KubeObject, Store } from '@rxinformer/core';
import type { HttpResponse } from '@rxinformer/core/http';
import {
  START_TIMEOUT_MS,
  startTestServer,
  type Credentials,
  type ServerKind,
  type TestServer,
  type TestServerOptions,
} from '@rxinformer/testing/servers';
import {
  createKubeInformerFactory,
  createKubeTransport,
  type KubeInformerFactory,
  type KubeInformerFactoryOptions,
  type KubeTransport,
} from '../src/index.ts';

/** A KubeConfig pointing at the simulator, with `token` (default: the simulator's, when auth is on). */
export function simKubeConfig(sim: ApiServer, token: string | undefined = sim.faults.token): KubeConfig {
  return serverKubeConfig(sim.url, token);
}

/** A KubeConfig pointing at any server URL (the simulator, a test's node:http server), with an optional token. */
export function serverKubeConfig(server: string, token?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'sim', server, skipTLSVerify: true }],
    users: [{ name: 'sim', ...(token !== undefined && { token }) }],
    contexts: [{ name: 'sim', cluster: 'sim', user: 'sim', namespace: 'default' }],
    currentContext: 'sim',
  });
  return kc;
}

/** A transport that records each request's path and lets `intercept` answer (or act, and be waited for) first. */
export interface RecordingTransport extends KubeTransport {
  readonly paths: string[];
  intercept?: (path: string) => HttpResponse | undefined | void | Promise<HttpResponse | undefined | void>;
}

export function recordingTransport(kc: KubeConfig): RecordingTransport {
  const inner = createKubeTransport(kc);
  const t: RecordingTransport = {
    server: inner.server,
    paths: [],
    get: async (path, signal, kind, accept) => {
      t.paths.push(path);
      const answer = await t.intercept?.(path);
      return answer ?? inner.get(path, signal, kind, accept);
    },
    request: (r) => inner.request(r),
    getJson: (path, signal) => inner.getJson(path, signal),
    close: () => inner.close(),
  };
  return t;
}

/**
 * The lists among request paths (a transport's, or the fault proxy's `requests`): each streaming
 * list (`sendInitialEvents=true`) and each paged list's first page (`limit=`, no `continue=`; the
 * stall check's `limit=1` aside).
 */
export function listsIn(paths: readonly string[]): string[] {
  return paths.filter((p) => /[?&]sendInitialEvents=true(&|$)/.test(p) || (/[?&]limit=(?!1(&|$))/.test(p) && !/[?&]continue=/.test(p)));
}

/** A synthetic JSON answer, for a transport to return instead of the server's. */
export function jsonAnswer(status: number, body: unknown): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    header: () => undefined,
    chunks: async function* () {
      yield text;
    },
  };
}

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes; returns its last value. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** `namespace/name → uid@resourceVersion` of a list of objects, sorted: what convergence compares. */
export function view(objects: readonly KubeObject[]): string[] {
  return objects.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}=${o.metadata?.uid}@${o.metadata?.resourceVersion}`).sort();
}

/** The same view of a store snapshot. */
export function storeView(store: Store<KubeObject>): string[] {
  return view(store.list());
}

/** Reflector timings that make a test's watches short and its retries quick. */
export const fastReflector = { minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 20, maxMs: 200 } };

/**
 * Informer factories of a test file over recording transports of `kubeConfig()`, every one closed
 * by `closeAll()` (in `afterAll`).
 */
export function factoryKit(kubeConfig: (as?: { token?: string }) => KubeConfig) {
  const opened: KubeInformerFactory[] = [];
  return {
    /** A factory (and its recording transport) as the server's user, or as `token`'s. */
    open(options: KubeInformerFactoryOptions & { token?: string } = {}) {
      const { token, ...factoryOptions } = options;
      const kc = kubeConfig(token === undefined ? undefined : { token });
      const transport = recordingTransport(kc);
      const factory = createKubeInformerFactory(kc, { ...factoryOptions, transport });
      opened.push(factory);
      return { factory, transport };
    },
    async closeAll() {
      for (const f of opened.splice(0)) await f.close();
    },
  };
}

/** The informer factories of a test file: `factoryKit`'s result. */
export type FactoryKit = ReturnType<typeof factoryKit>;

/**
 * A test server of `kind` for the enclosing `describe`, started in its `beforeAll` with a
 * `factoryKit` over it, both closed in its `afterAll`. Read `server` and `kit` inside the tests.
 */
export function serverWithKit(kind: ServerKind, options?: TestServerOptions): { readonly server: TestServer; readonly kit: FactoryKit } {
  const env = {} as { server: TestServer; kit: FactoryKit };
  beforeAll(async () => {
    env.server = await startTestServer(kind, options);
    env.kit = factoryKit((as) => env.server.kubeConfig(as));
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await env.kit?.closeAll();
    await env.server?.close();
  });
  return env;
}

/** A pod named `name` that a real API server accepts (one container). */
export function podBody(name: string, labels?: Record<string, string>): Record<string, unknown> & KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(labels && { labels }) },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
}

/** Resource versions compared as the numbers both servers make them (a test's check, never the informer's). */
export function rvAtLeast(rv: string | undefined, min: string): boolean {
  return rv !== undefined && /^\d+$/.test(rv) && BigInt(rv) >= BigInt(min);
}

/** A plain-HTTP proxy to the server that drops the Accept header, as an old server or a careless proxy does; it records what was asked. */
export async function acceptStrippingProxy(target: Credentials): Promise<{ url: string; accepts(): string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const https = target.url.startsWith('https:');
  const server: Server = createServer((req, res) => {
    seen.push(String(req.headers.accept));
    const { accept: _dropped, host: _host, ...headers } = req.headers;
    const options = { method: req.method, headers, ...(https && { ca: target.ca }) };
    const upstream = (https ? httpsRequest : httpRequest)(target.url + req.url, options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepts: () => seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

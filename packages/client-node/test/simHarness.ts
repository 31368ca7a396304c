/**
 * Test helpers: a KubeConfig for a simulator, a transport that records (and can intercept) every
 * request path, and polling until a condition holds.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ApiServer } from '@rxinformer/apiserver-sim';
import type { HttpResponse, KubeObject, Store } from '@rxinformer/core';
import { createKubeTransport, type KubeTransport } from '../src/index.ts';

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

/** A transport that records each request's path and lets `intercept` answer (or act) first. */
export interface RecordingTransport extends KubeTransport {
  readonly paths: string[];
  intercept?: (path: string) => HttpResponse | undefined | void;
}

export function recordingTransport(kc: KubeConfig): RecordingTransport {
  const inner = createKubeTransport(kc);
  const t: RecordingTransport = {
    server: inner.server,
    paths: [],
    get: async (path, signal, kind) => {
      t.paths.push(path);
      const answer = t.intercept?.(path);
      return answer ?? inner.get(path, signal, kind);
    },
    send: (method, path, body, signal) => inner.send(method, path, body, signal),
    getJson: (path, signal) => inner.getJson(path, signal),
    close: () => inner.close(),
  };
  return t;
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
export async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
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

/**
 * The server the sharded demo runs against: the simulator in this process (`sim`), a real etcd and
 * kube-apiserver it starts (`real`, `@rxinformer/envtest`, with the `ShardedListAndWatch` gate), or
 * the server of a kubeconfig file. Every replica and the demo's judge reach it the same way —
 * through a kubeconfig — in a namespace of the demo's own; a replica can be given a fault proxy of
 * its own in front of the server (so that only its requests fail).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, writeKubeconfigFile } from '@rxinformer/apiserver-sim';
import { startFaultProxy, startTestEnvironment, type FaultProxy } from '@rxinformer/envtest';
import { kubeconfigAccess, type ServerAccess } from './serverAccess.ts';

/** Which server: the simulator, kube-apiserver started for the demo, or the server of a kubeconfig file. */
export type DemoServerKind = 'sim' | 'real' | 'kubeconfig';

/** Options of `startDemoServer`. */
export interface DemoServerOptions {
  /** `sim` (default) or `real`; ignored when `kubeconfig` is given. */
  server?: 'sim' | 'real';
  /** A kubeconfig file: run against its current context's server, starting none. */
  kubeconfig?: string;
  /** Turn the `ShardedListAndWatch` gate on (the simulator's option, kube-apiserver's gate). Default true. */
  shardSelector?: boolean;
}

/** A server ready for the demo. */
export interface DemoServer {
  readonly kind: DemoServerKind;
  /** The demo's own client of the server. */
  readonly access: ServerAccess;
  /** A kubeconfig file straight to the server, for replicas. */
  readonly kubeconfig: string;
  /** The namespace the demo made for its objects and Leases (deleted on close). */
  readonly namespace: string;
  /** A fault proxy of its own in front of the server, and a kubeconfig file through it (a user with a bearer token, or none). */
  proxied(name: string): Promise<{ kubeconfig: string; proxy: FaultProxy }>;
  /** Deletes the namespace, stops the proxies and the server the demo started, removes its files. */
  close(): Promise<void>;
}

/** Starts (or finds) the demo's server and makes its namespace. */
export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-demo-'));
  const stops: (() => Promise<void>)[] = [() => Promise.resolve(rmSync(dir, { recursive: true, force: true }))];
  const closeAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const { kind, kubeconfig } = await serverKubeconfig(options, dir, stops);
    const access = await kubeconfigAccess(kubeconfig);
    stops.push(() => access.close());
    const namespace = `demo-sharded-${randomBytes(3).toString('hex')}`;
    await call(access, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    stops.push(async () => void (await call(access, 'DELETE', `/api/v1/namespaces/${namespace}`)));
    return {
      kind,
      access,
      kubeconfig,
      namespace,
      proxied: async (name) => {
        const auth = Object.keys(access.headers).some((h) => h.toLowerCase() === 'authorization');
        if (auth && access.token === undefined)
          throw new Error('a replica behind a fault proxy needs a kubeconfig user with a bearer token (or none)');
        const proxy = await startFaultProxy({ target: access.url, ...(access.ca !== undefined && { targetCa: access.ca }) });
        stops.push(() => proxy.close());
        const file = join(dir, `${name}.kubeconfig`);
        await writeKubeconfigFile(file, { server: proxy.url, ...(access.token !== undefined && { token: access.token }), namespace });
        return { kubeconfig: file, proxy };
      },
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

/** The kubeconfig file of the server: the one given, or that of a server started now (its stop pushed on `stops`). */
async function serverKubeconfig(
  options: DemoServerOptions,
  dir: string,
  stops: (() => Promise<void>)[],
): Promise<{ kind: DemoServerKind; kubeconfig: string }> {
  if (options.kubeconfig !== undefined) return { kind: 'kubeconfig', kubeconfig: options.kubeconfig };
  const gate = options.shardSelector ?? true;
  if (options.server === 'real') {
    const env = await startTestEnvironment({ featureGates: { ShardedListAndWatch: gate } });
    stops.push(() => env.stop());
    return { kind: 'real', kubeconfig: env.kubeconfigPath };
  }
  const sim = await startApiServer({ port: 0, seed: 11, shardedListAndWatch: gate });
  stops.push(() => sim.close());
  const kubeconfig = join(dir, 'sim.kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  return { kind: 'sim', kubeconfig };
}

/**
 * One request of the demo's own to the server, JSON in and out; rejects on an error status.
 *
 * @example
 * await call(access, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'a' } });
 */
export async function call<T = unknown>(access: ServerAccess, method: string, path: string, body?: unknown): Promise<T> {
  const r = await access.fetch(`${access.url}${path}`, {
    method,
    headers: { ...access.headers, Accept: 'application/json', ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createInformerFactory,
  type InformerFactory,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { hubListerWatcherSource, type WebSocketConstructor } from '@rxinformer/hub/browser';
import { until } from '@rxinformer/testing';
import { apiChurn, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { WebSocket } from 'undici';
import { killAll, startCli } from './cliProcess.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const TABS = 6;

/** A replica process: `rxinformer hub`, and where it listens. */
interface Replica {
  readonly proc: ReturnType<typeof startCli>;
  readonly port: number;
  readonly metrics: string;
  readonly name: string;
}

// Several hub replicas as real processes (`rxinformer hub`), each with its own caches, behind one
// round-robin TCP proxy (a Service); one is killed with SIGKILL while the tabs watch under churn.
describe.each(serverKinds())('hub replicas against the %s server', (kind) => {
  let server: TestServer;
  let dir: string;
  let balancer: Balancer;
  const replicas: Replica[] = [];
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
    dir = mkdtempSync(join(tmpdir(), 'hub-replicas-'));
    writeFileSync(join(dir, 'kubeconfig'), server.kubeConfig().exportConfig(), { mode: 0o600 });
    writeFileSync(join(dir, 'users.csv'), 'token-a,alice,u1,"dev"\ntoken-b,bob,u2\n', { mode: 0o600 });
    replicas.push(...(await Promise.all(['hub-0', 'hub-1'].map((name) => startReplica(dir, name)))));
    balancer = await roundRobin(replicas.map((r) => r.port));
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    killAll();
    await balancer?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('should move the tabs of a replica killed with SIGKILL to another, each ending equal to the server, nothing lost or doubled', async () => {
    const ns = await server.namespace('hubs');
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    const churn = apiChurn(server.api, { collections: [collection], make: (name) => ({ metadata: { name }, data: { v: '0' } }), seed: 6 });
    await churn.seed(20);
    const tabs = Array.from({ length: TABS }, (_, i) => {
      const source = hubListerWatcherSource(`ws://127.0.0.1:${balancer.port}/hub`, {
        token: () => (i % 2 ? 'token-a' : 'token-b'),
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        reconnectBackoff: { initialMs: 50, maxMs: 1000 },
      });
      const factory = createInformerFactory(source, { namespace: ns });
      factories.push(factory);
      const informer = factory.informerFor(CONFIGMAPS);
      const tab = { informer, mirror: mirrorOf(informer) };
      factory.start();
      return tab;
    });
    const converge = async (step: string) => {
      const want = view((await server.api.get(collection)).items as KubeObject[]);
      await until(() => tabs.every((t) => same(t.informer.getStore().list(), want)), {
        timeoutMs: 90_000,
        intervalMs: 50,
        what: `every tab at the server's list after ${step}`,
      });
    };
    await converge('the initial list');
    // Round robin: each replica serves half the tabs, from its own informer (one watch each).
    const before = await Promise.all(replicas.map((r) => scrape(r)));
    expect(before.map((m) => m.get('rxinformer_hub_clients'))).toEqual([TABS / 2, TABS / 2]);
    expect(before.map((m) => m.get('rxinformer_hub_informers'))).toEqual([1, 1]);

    const running = churn.run({ count: 40 });
    replicas[0].proc.child.kill('SIGKILL');
    await running.done;
    await converge('churn, with a replica killed');
    const after = await scrape(replicas[1]);
    expect(after.get('rxinformer_hub_clients')).toBe(TABS);
    expect(after.get('rxinformer_hub_informers')).toBe(1);
    for (const t of tabs) {
      expect(t.mirror.errors).toEqual([]);
      expect(view([...t.mirror.objects.values()])).toEqual(view(t.informer.getStore().list()));
    }
    expect((await replicas[0].proc.exit).signal).toBe('SIGKILL');
  }, 240_000);
});

/** Starts `rxinformer hub` on any free ports; resolves once it prints where it listens. */
async function startReplica(dir: string, name: string): Promise<Replica> {
  const proc = startCli([
    'hub',
    '--kubeconfig',
    join(dir, 'kubeconfig'),
    '--token-auth-file',
    join(dir, 'users.csv'),
    '--authorize-as-hub',
    '--port',
    '0',
    '--metrics-port',
    '0',
    '--name',
    name,
  ]);
  let line = '';
  proc.child.stdout!.on('data', (d: string) => (line += d));
  await proc.waitFor(/"hub":".*\n/);
  const printed = JSON.parse(line.split('\n')[0]) as { hub: string; metrics: string; name: string };
  return { proc, port: Number(new URL(printed.hub).port), metrics: printed.metrics, name: printed.name };
}

/** The `rxinformer_hub_*` samples of a replica's `/metrics` (its own `hub` label), by name. */
async function scrape(replica: Replica): Promise<Map<string, number>> {
  const text = await (await fetch(`${replica.metrics}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const m of text.matchAll(/^(rxinformer_hub_\w+)\{hub="([^"]+)"\} (\S+)$/gm))
    if (m[2] === replica.name) samples.set(m[1], Number(m[3]));
  return samples;
}

/** A round-robin TCP proxy (a Service in front of the replicas); a target that refuses is skipped. */
interface Balancer {
  readonly port: number;
  close(): Promise<void>;
}

async function roundRobin(ports: number[]): Promise<Balancer> {
  const open = new Set<Socket>();
  let next = 0;
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    const attempt = (tries: number) => {
      if (tries === 0) return client.destroy();
      const upstream = createConnection(ports[next++ % ports.length], '127.0.0.1');
      let connected = false;
      upstream.on('connect', () => {
        connected = true;
        client.pipe(upstream).pipe(client);
      });
      upstream.on('error', () => (connected ? client.destroy() : attempt(tries - 1)));
      upstream.on('close', () => connected && client.destroy());
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
    };
    attempt(ports.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A copy of the informer's objects kept from its handler's notifications, and every inconsistent one. */
function mirrorOf(informer: SharedInformer<KubeObject>) {
  const objects = new Map<string, KubeObject>();
  const errors: string[] = [];
  const key = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  informer.addEventHandler({
    onAdd: (o) => {
      if (objects.has(key(o))) errors.push(`added twice: ${key(o)}`);
      objects.set(key(o), o);
    },
    onUpdate: (_old, o) => {
      if (!objects.has(key(o))) errors.push(`updated, never added: ${key(o)}`);
      objects.set(key(o), o);
    },
    onDelete: (d) => {
      if (!objects.delete(d.key)) errors.push(`deleted, never added: ${d.key}`);
    },
  });
  return { objects, errors };
}

/** `name=uid@rv`, sorted. */
const view = (objects: readonly KubeObject[]) =>
  objects.map((o) => `${o.metadata?.name}=${o.metadata?.uid}@${o.metadata?.resourceVersion}`).sort();

const same = (objects: readonly KubeObject[], want: string[]) => JSON.stringify(view(objects)) === JSON.stringify(want);

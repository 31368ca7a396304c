/**
 * One contender of `npm run bench:http2`, in a process of its own: one informer for each of the
 * bench's CRDs over one transport (`--transport http1 | undici-h2 | node-h2`), started together;
 * prints one JSON line with the time to sync them all, the CPU the process spent, its memory, and
 * the TCP connections it holds to the server once every watch is open.
 *
 *   node --expose-gc packages/cli/bench/http2Child.ts --kubeconfig PATH --crds 300 --transport node-h2
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, createKubeTransport, defineResource, type KubeTransportOptions } from '@rxinformer/client-node';
import { Agent } from 'undici';
import { crdNames, type Http2Transport } from './http2Crds.ts';

/** What one contender's run measured. */
export interface Http2ChildResult {
  transport: Http2Transport;
  informers: number;
  objects: number;
  /** `start()` until every informer has synced. */
  syncMs: number;
  /** CPU time (user + system) from the start until every watch was open, in ms. */
  cpuMs: number;
  /** Resident memory and live heap (after a full collection) once every watch was open, minus before the start, in MiB. */
  rssMiB: number;
  heapMiB: number;
  /** TCP connections of this process to the server, counted by the kernel (/proc). */
  tcpConnections: number;
  /** The transport's own view: HTTP/2 connections and streams (undefined for a dispatcher's). */
  http2Connections?: number;
  streams?: number;
}

/** The TCP connections of this process to `port` in state ESTABLISHED: its socket inodes matched against /proc/net/tcp(6). */
export function tcpConnectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[2]?.endsWith(hexPort) && f[3] === '01' && inodes.has(f[9]!)) count++;
    }
  }
  return count;
}

/**
 * The transport's options, and how many requests it has in flight: ours (node:http2) from its
 * streams; HTTP/1.1 and undici's own HTTP/2 (ALPN, its defaults: the alternative measured against
 * node:http2) are an undici Agent, as the transport's HTTP/1.1 fallback is, read from its stats.
 */
async function contender(kc: KubeConfig, kind: Http2Transport): Promise<{ options: KubeTransportOptions; running?: () => number }> {
  if (kind === 'node-h2') return { options: {} };
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const agent = new Agent({ allowH2: kind === 'undici-h2', connect: { ca: tls.ca, cert: tls.cert, key: tls.key } });
  const running = () => Object.values(agent.stats).reduce((n, s) => n + (s as { running?: number }).running!, 0);
  return { options: { dispatcher: agent }, running };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, crds: { type: 'string' }, transport: { type: 'string' } } });
  const kind = values.transport as Http2Transport;
  const kc = new KubeConfig();
  kc.loadFromFile(values.kubeconfig!);
  const port = Number(new URL(kc.getCurrentCluster()!.server).port);
  const { options, running } = await contender(kc, kind);
  const transport = createKubeTransport(kc, options);
  const factory = createKubeInformerFactory(kc, { transport });
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, cpu: process.cpuUsage() };
  const informers = crdNames(Number(values.crds)).map((n) => factory.informerFor(defineResource({ ...n, namespaced: true })));
  const started = performance.now();
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 600_000 });
  const syncMs = performance.now() - started;
  // Every watch open: the server holds one stream (HTTP/2) or connection (HTTP/1.1) for each.
  const open = () => (running?.() ?? transport.connections!().streams) >= informers.length;
  while (!open()) await new Promise((r) => setTimeout(r, 50));
  const cpu = process.cpuUsage(before.cpu);
  gc();
  const stats = kind === 'node-h2' ? transport.connections!() : undefined;
  const result: Http2ChildResult = {
    transport: kind,
    informers: informers.length,
    objects: informers.reduce((n, i) => n + i.getStore().size, 0),
    syncMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssMiB: (process.memoryUsage().rss - before.rss) / 2 ** 20,
    heapMiB: (process.memoryUsage().heapUsed - before.heap) / 2 ** 20,
    tcpConnections: tcpConnectionsTo(port),
    http2Connections: stats?.http2Connections,
    streams: stats?.streams,
  };
  await factory.close();
  await transport.close();
  console.log(JSON.stringify(result));
}

await main();

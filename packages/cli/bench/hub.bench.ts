/**
 * `npm run bench:hub`: one hub process (`rxinformer hub`) serving many simulated tabs.
 *
 *   simulator child (10k pods over 100 namespaces) ◀── one list + watch per informer ── hub process
 *   client children (1,000 WebSockets, a pod informer each, 10 per namespace) ─────────▶ hub process
 *
 * Measures: the watches open on the API server (counted by the simulator; the goal is one per
 * resource and scope, as many as the hub's informers), its CPU per event delivered during churn (its `process_cpu_seconds_total`
 * over the deliveries the clients counted), its memory per client (RSS and heap after the last
 * 900 clients, less after the first 100, over 900), and the delivery latency (from the update's
 * write to each client's informer event) p50/p99. Prints JSON.
 *
 *   npm run bench:hub -- [--clients 1000] [--pods 10000] [--namespaces 100] [--processes 4] [--updates 1600] [--burst 20]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startSimProcess } from './simProcess.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    pods: { type: 'string', default: '10000' },
    namespaces: { type: 'string', default: '100' },
    processes: { type: 'string', default: '4' },
    updates: { type: 'string', default: '1600' },
    burst: { type: 'string', default: '20' },
  },
});
const [CLIENTS, PODS, NAMESPACES, PROCESSES, UPDATES, BURST] = [
  values.clients,
  values.pods,
  values.namespaces,
  values.processes,
  values.updates,
  values.burst,
].map(Number);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/** A child speaking JSON lines; `next(pred)` resolves with the first line matching. */
function child(args: string[]) {
  const c = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(c);
  const lines: unknown[] = [];
  const waiters: { pred: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }[] = [];
  createInterface({ input: c.stdout! }).on('line', (line) => {
    const m = JSON.parse(line) as Record<string, unknown>;
    const w = waiters.findIndex((x) => x.pred(m));
    if (w >= 0) waiters.splice(w, 1)[0].resolve(m);
    else lines.push(m);
  });
  const next = (pred: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const i = lines.findIndex((m) => pred(m as Record<string, unknown>));
      if (i >= 0) resolve(lines.splice(i, 1)[0] as Record<string, unknown>);
      else waiters.push({ pred, resolve });
    });
  return { c, next };
}

/** The hub's samples now (its own metrics and Node's process metrics), by name. */
async function scrape(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const m = new Map<string, number>();
  for (const [, name, value] of text.matchAll(/^(\w+)(?:\{[^}]*\})? (\S+)$/gm)) m.set(name, (m.get(name) ?? 0) + Number(value));
  return m;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hub-'));
  try {
    const sim = await startSimProcess({ namespaces: NAMESPACES, historyEvents: 50_000, maxOldSpaceMiB: 4096 });
    await sim.send({ cmd: 'seed', count: PODS });
    writeFileSync(join(dir, 'kubeconfig'), sim.kubeconfig);
    writeFileSync(join(dir, 'users.csv'), Array.from({ length: CLIENTS }, (_, i) => `token-${i},user-${i},u${i}`).join('\n'));
    const hub = child([
      '--max-old-space-size=4096',
      here('../src/main.ts'),
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
      'bench',
    ]);
    const { hub: hubUrl, metrics } = (await hub.next((m) => 'hub' in m)) as { hub: string; metrics: string };
    const url = `${hubUrl.replace('http:', 'ws:')}/hub`;
    const startClients = (first: number, count: number) => {
      const per = Math.ceil(count / PROCESSES);
      const started = [];
      for (let f = first; f < first + count; f += per) {
        const n = Math.min(per, first + count - f);
        const c = child([here('./hubClients.ts'), url, String(f), String(n), String(NAMESPACES)]);
        started.push(c);
      }
      return started;
    };
    const firstBatch = Math.min(NAMESPACES, CLIENTS);
    const clients = startClients(0, firstBatch);
    await Promise.all(clients.map((c) => c.next((m) => 'synced' in m)));
    const atFirst = await scrape(metrics);
    const t0 = Date.now();
    const rest = startClients(firstBatch, CLIENTS - firstBatch);
    await Promise.all(rest.map((c) => c.next((m) => 'synced' in m)));
    const syncMs = Date.now() - t0;
    clients.push(...rest);
    const synced = await scrape(metrics);
    // Counted where they are served: a watch the hub holds an informer for but never got a
    // connection for (the CLI's pool was once capped at 32) shows here as missing.
    const serverWatches = (await sim.send({ cmd: 'state' })).watches;

    // Churn: bursts of updates, each burst's write time recorded against the revision it ends at.
    const bursts: { rv: number; at: number }[] = [];
    for (let done = 0; done < UPDATES; done += BURST) {
      const at = Date.now();
      const state = await sim.send({ cmd: 'update', count: Math.min(BURST, UPDATES - done) });
      bursts.push({ rv: Number(state.resourceVersion), at });
      await new Promise((r) => setTimeout(r, 250));
    }
    // The last deliveries: until every client has them, or the count stops moving for 10 s.
    const expected = Math.round((UPDATES * CLIENTS) / NAMESPACES);
    const report = () =>
      Promise.all(
        clients.map((c) => {
          c.c.stdin!.write('{"cmd":"report"}\n');
          return c.next((m) => 'deliveries' in m);
        }),
      );
    let reports = await report();
    const count = () => reports.reduce((n, r) => n + (r.deliveries as unknown[]).length, 0);
    for (let last = -1, still = 0; count() < expected && still < 5;) {
      await new Promise((r) => setTimeout(r, 2000));
      reports = await report();
      still = count() === last ? still + 1 : 0;
      last = count();
    }
    const churned = await scrape(metrics);
    const latencies: number[] = [];
    for (const r of reports)
      for (const [rv, t] of r.deliveries as [string, number][]) {
        const burst = bursts.find((b) => b.rv >= Number(rv));
        if (burst) latencies.push(t - burst.at);
      }
    latencies.sort((a, b) => a - b);
    const cpu = (churned.get('process_cpu_seconds_total') ?? 0) - (synced.get('process_cpu_seconds_total') ?? 0);
    const perClient = (name: string) => ((synced.get(name) ?? 0) - (atFirst.get(name) ?? 0)) / (CLIENTS - firstBatch);
    const result = {
      clients: CLIENTS,
      pods: PODS,
      namespaces: NAMESPACES,
      updates: UPDATES,
      hubInformers: synced.get('rxinformer_hub_informers'),
      apiServerWatches: serverWatches,
      hubClients: synced.get('rxinformer_hub_clients'),
      syncLastClientsMs: syncMs,
      deliveries: latencies.length,
      expectedDeliveries: expected,
      eventsCoalesced: churned.get('rxinformer_hub_events_coalesced_total'),
      resyncs: churned.get('rxinformer_hub_resyncs_total'),
      hubCpuMicrosPerDelivery: latencies.length ? Math.round((cpu * 1e6) / latencies.length) : undefined,
      hubRssBytesPerClient: Math.round(perClient('process_resident_memory_bytes')),
      hubHeapBytesPerClient: Math.round(perClient('nodejs_heap_size_used_bytes')),
      hubRssMiB: Math.round((synced.get('process_resident_memory_bytes') ?? 0) / 2 ** 20),
      latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies.at(-1) },
      bytesSentPerClient: Math.round((churned.get('rxinformer_hub_sent_bytes_total') ?? 0) / CLIENTS),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    for (const c of clients) c.c.stdin!.end();
    hub.c.kill('SIGTERM');
    await sim.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

/**
 * Benchmark of the shared informer: one cache whatever the number of handlers, and delivery
 * latency of healthy handlers next to a slow one.
 *
 *   npm run bench:informer            # a table
 *   npm run bench:informer -- --json  # one JSON object
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Subject, of } from 'rxjs';
import { createSharedInformer, type KubeObject, type ListerWatcher, type WatchEvent } from '@rxinformer/core';
import { benchPod } from './core.bench.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:informer does)');
  process.exit(2);
}
const heap = (): number => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};

/** An in-memory ListerWatcher: one list of `items`, then a watch fed through `watch`. */
function memoryLw(items: KubeObject[], watch: Subject<WatchEvent>): ListerWatcher {
  return { list: () => of({ metadata: { resourceVersion: '1' }, items }), watch: () => watch };
}

/** Retained heap of an informer holding `n` pods with `handlers` handlers that have all synced. */
async function heapWithHandlers(n: number, handlers: number): Promise<number> {
  const base = heap();
  const items = Array.from({ length: n }, (_, i) => benchPod(i, i + 2)); // the decoded list: part of the cache
  const watch = new Subject<WatchEvent>();
  const informer = createSharedInformer(memoryLw(items, watch));
  const regs = Array.from({ length: handlers }, () => informer.addEventHandler({ onAdd: () => {}, onUpdate: () => {} }));
  informer.start();
  while (!regs.every((r) => r.hasSynced())) await sleep(1);
  items.length = 0; // only the informer keeps the objects now
  const bytes = heap() - base;
  informer.stop();
  for (const r of regs) r.remove(); // release everything before the next measurement
  await sleep(20);
  return bytes;
}

/** p50/p99 delivery latency (ms) of healthy handlers while one handler takes `slowMs` per event. */
async function latencyWithSlowHandler(
  events = 3000,
  ratePerSecond = 1000,
  slowMs = 10,
): Promise<{ p50: number; p99: number; slowBacklog: number }> {
  const watch = new Subject<WatchEvent>();
  const informer = createSharedInformer(memoryLw([], watch));
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  for (let h = 0; h < 3; h++)
    informer.addEventHandler({
      onAdd: (o) => {
        latencies.push(performance.now() - sent.get(o.metadata!.name!)!);
      },
    });
  const slow = informer.addEventHandler({ onAdd: () => sleep(slowMs) });
  let backlog = 0;
  slow.metrics$.subscribe((m) => {
    backlog = Math.max(backlog, m.depth);
  });
  informer.start();
  const start = performance.now();
  for (let i = 0; i < events; i++) {
    const due = start + (i * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const pod = benchPod(i, i + 10);
    sent.set(pod.metadata!.name!, performance.now());
    watch.next({ type: 'ADDED', object: pod });
  }
  while (latencies.length < events * 3) await sleep(1);
  informer.stop();
  slow.remove();
  const sorted = latencies.sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length * 0.5)], p99: sorted[Math.floor(sorted.length * 0.99)], slowBacklog: backlog };
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const one = await heapWithHandlers(10_000, 1);
  const eight = await heapWithHandlers(10_000, 8);
  const latency = await latencyWithSlowHandler();
  const result = {
    heap10k: { oneHandlerMiB: one / 2 ** 20, eightHandlersMiB: eight / 2 ** 20, ratio: eight / one, goal: '<= 1.05' },
    slowHandler: { healthyP50Ms: latency.p50, healthyP99Ms: latency.p99, slowHandlerMaxBacklog: latency.slowBacklog, goal: 'p99 < 5 ms' },
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log('informer benchmark (node %s)', process.version);
  console.log(`  10k pods, heap with 1 handler:  ${result.heap10k.oneHandlerMiB.toFixed(1)} MiB`);
  console.log(
    `  10k pods, heap with 8 handlers: ${result.heap10k.eightHandlersMiB.toFixed(1)} MiB  (${result.heap10k.ratio.toFixed(3)}x, goal <= 1.05)`,
  );
  console.log(`  1,000 events/s, 4 handlers, one taking 10 ms per event:`);
  console.log(`    healthy handlers' delivery latency p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms (goal < 5 ms)`);
  console.log(`    slow handler's largest backlog: ${latency.slowBacklog} events (it has its own buffer)`);
}

await main();

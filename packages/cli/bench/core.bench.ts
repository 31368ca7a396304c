/**
 * Benchmark of @rxinformer/core alone: the cost of applying one watch event with 1k, 10k and 100k
 * objects cached, and the peak heap of a 100k-object relist against the store's steady heap.
 *
 *   npm run bench:core            # a table
 *   npm run bench:core -- --json  # one JSON object
 *
 * Runs with --expose-gc (the npm script passes it) so heap figures are taken after a full GC.
 */
import { performance } from 'node:perf_hooks';
import { createDeltaReducer, initialDeltaState, type DeltaStoreState, type KubeObject } from '@rxinformer/core';
import { realisticPod } from '@rxinformer/apiserver-sim';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:core does)');
  process.exit(2);
}

/** The simulator's realistic pod (~4 KB with managedFields), with what the server would fill in. */
export function benchPod(i: number, rv: number, ns = `ns-${i % 20}`): KubeObject {
  const pod = realisticPod(i);
  return { ...pod, metadata: { ...pod.metadata, namespace: ns, uid: `0000-${i}`, resourceVersion: String(rv) } };
}

const heap = (): number => { gc!(); gc!(); return process.memoryUsage().heapUsed; };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function loaded(n: number): { state: DeltaStoreState<KubeObject>; apply: ReturnType<typeof createDeltaReducer<KubeObject>> } {
  const apply = createDeltaReducer<KubeObject>();
  const state = apply(initialDeltaState(), { type: 'replace', items: Array.from({ length: n }, (_, i) => benchPod(i, i + 1)), resourceVersion: String(n) });
  return { state, apply };
}

/** Nanoseconds per applied MODIFIED event with `n` objects cached (median of rounds). */
export function eventCost(n: number, events = 20_000, rounds = 7): number {
  let { state, apply } = loaded(n);
  let rv = n + 1;
  // Pre-build the events so only the apply is timed.
  const batch = Array.from({ length: events }, (_, j) => benchPod((j * 7919) % n, ++rv));
  const samples: number[] = [];
  for (let r = 0; r < rounds + 2; r++) {
    const t0 = performance.now();
    for (const object of batch) state = apply(state, { type: 'modified', object: { ...object, metadata: { ...object.metadata, resourceVersion: String(++rv) } } });
    const ns = ((performance.now() - t0) * 1e6) / events;
    if (r >= 2) samples.push(ns); // two warm-up rounds
  }
  return median(samples);
}

/** Steady heap of a `n`-object store and the peak while a relist of `n` changed objects is applied. */
export function relistHeap(n = 100_000): { steadyBytes: number; peakBytes: number } {
  const base = heap();
  let { state, apply } = loaded(n);
  const steadyBytes = heap() - base;
  const items = Array.from({ length: n }, (_, i) => benchPod(i, n + i + 1)); // the decoded list, all changed
  state = apply(state, { type: 'replace', items, resourceVersion: String(2 * n + 1) });
  // Live heap at the relist's peak: the decoded list, the new store and the deltas (which hold the
  // old objects) are all reachable here; garbage is collected first so only live bytes count.
  const peakBytes = heap() - base;
  if (state.store.size !== n) throw new Error('relist lost objects');
  return { steadyBytes, peakBytes };
}

function main(): void {
  const json = process.argv.includes('--json');
  const cost = { 1_000: eventCost(1_000), 10_000: eventCost(10_000), 100_000: eventCost(100_000) };
  const { steadyBytes, peakBytes } = relistHeap();
  const result = {
    eventCostNs: cost,
    costRatio100kVs1k: cost[100_000] / cost[1_000],
    relist100k: { steadyMiB: steadyBytes / 2 ** 20, peakMiB: peakBytes / 2 ** 20, peakVsSteady: peakBytes / steadyBytes },
    goals: { costRatio100kVs1k: '<= 1.5', peakVsSteady: '<= 2' },
  };
  if (json) { console.log(JSON.stringify(result)); return; }
  console.log('core benchmark (node %s)', process.version);
  console.log('  cost per applied watch event:');
  for (const [n, ns] of Object.entries(cost)) console.log(`    ${String(n).padStart(7)} cached  ${(ns / 1000).toFixed(2).padStart(7)} µs/event`);
  console.log(`  cost 100k / 1k:         ${result.costRatio100kVs1k.toFixed(2)}  (goal <= 1.5)`);
  console.log(`  100k store steady heap: ${result.relist100k.steadyMiB.toFixed(1)} MiB`);
  console.log(`  100k relist peak heap:  ${result.relist100k.peakMiB.toFixed(1)} MiB  (${result.relist100k.peakVsSteady.toFixed(2)}x steady, goal <= 2)`);
}

if (import.meta.main ?? process.argv[1]?.endsWith('core.bench.ts')) main();

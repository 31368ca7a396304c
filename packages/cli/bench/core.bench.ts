/**
 * Benchmark of @rxinformer/core alone: the cost of applying one watch event (a realistic pod
 * update, decoded fresh from its line) with 1k, 3k, 10k and 100k objects cached, and the peak heap
 * of a 100k-object relist against the store's steady heap. 3k is shown because between 1k and 3k the
 * stored objects stop dying in the young generation (see docs/benchmarks.md).
 *
 *   npm run bench:core            # a table
 *   npm run bench:core -- --json  # one JSON object
 *
 * Runs with --expose-gc (the npm script passes it) so heap figures are taken after a full GC.
 */
import { performance } from 'node:perf_hooks';
import { createDeltaReducer, initialDeltaState, metaNamespaceKeyFunc, type DeltaStoreState, type KubeObject } from '@rxinformer/core';
import { realisticPod } from '@rxinformer/apiserver-sim';
import { median } from './rounds.ts';

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

function loaded(n: number): { state: DeltaStoreState<KubeObject>; apply: ReturnType<typeof createDeltaReducer<KubeObject>> } {
  const apply = createDeltaReducer<KubeObject>();
  const state = apply(initialDeltaState(), { type: 'replace', items: Array.from({ length: n }, (_, i) => benchPod(i, i + 1)), resourceVersion: String(n) });
  return { state, apply };
}

/**
 * A realistic kubelet status update of pod `i` as its watch line would carry it: a new
 * resourceVersion, a restarted container, the Ready condition's transition time and the kubelet's
 * managedFields entry change; everything else is as stored.
 */
export function updatedPodLine(i: number, serial: number, rv: number): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a fixture edited in place
  const pod = benchPod(i, rv) as any;
  const time = new Date(Date.UTC(2025, 0, 2, 0, 0, serial % 86_400)).toISOString().replace('.000', '');
  pod.status.containerStatuses[0].restartCount = serial;
  pod.status.containerStatuses[0].state = { running: { startedAt: time } };
  pod.status.conditions[1] = { ...pod.status.conditions[1], lastTransitionTime: time };
  pod.metadata.managedFields[1] = { ...pod.metadata.managedFields[1], time };
  return JSON.stringify(pod);
}

const cpuMs = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/**
 * Per-event cost of one loop shape, in ns: the median round's CPU and wall time, the range of the
 * rounds' CPU, and the mean CPU over all rounds (`meanCpuNs`: a major GC that falls in one round is
 * spread over all events instead of being dropped with that round by the median).
 */
export interface EventCost { cpuNs: number; wallNs: number; cpuSpreadNs: [number, number]; meanCpuNs: number }

/**
 * The cost of applying one MODIFIED event with `n` objects cached. Each event is decoded from its
 * line as the watch decoder would (a fresh, unfrozen object), so the measure is the marginal cost:
 * rounds of "decode + apply" alternate with rounds of "decode only" over the same lines, after two
 * warm-up rounds of each, and the difference of the medians is reported. Garbage collection is
 * inside both loops (CPU time counts the GC threads too): keeping the decoded objects alive is the
 * store's cost. The same `events` events (same pods modulo n, same changes) at every size.
 */
export function eventCost(n: number, events = 20_000, rounds = 7): { apply: EventCost; decodeOnly: EventCost; both: EventCost } {
  let { state, apply } = loaded(n);
  const cost = marginalCost(n, events, rounds, (object) => { state = apply(state, { type: 'modified', object }); });
  if (state.store.size !== n) throw new Error('the store lost objects');
  return cost;
}

/**
 * `eventCost` with a bare `Map` in place of the delta store (each decoded object `set` under its
 * key; no freeze, sharing, index or delta): a reference for how any cache's per-event cost grows
 * with its size on this runtime, as the garbage collector copies and marks what it keeps.
 */
export function mapEventCost(n: number, events = 20_000, rounds = 7): { apply: EventCost; decodeOnly: EventCost; both: EventCost } {
  const map = new Map<string, KubeObject>();
  for (let i = 0; i < n; i++) {
    const pod = benchPod(i, i + 1);
    map.set(metaNamespaceKeyFunc(pod), pod);
  }
  const cost = marginalCost(n, events, rounds, (object) => { map.set(metaNamespaceKeyFunc(object), object); });
  if (map.size !== n) throw new Error('the map lost objects');
  return cost;
}

/** The method of `eventCost`, applying each decoded event with `applyOne`. */
function marginalCost(n: number, events: number, rounds: number, applyOne: (object: KubeObject) => void): { apply: EventCost; decodeOnly: EventCost; both: EventCost } {
  let rv = n + 1;
  const samples = { both: [] as number[][], decodeOnly: [] as number[][] };
  let sink = 0;
  for (let r = 0; r < rounds + 2; r++) {
    const lines = Array.from({ length: events }, (_, j) => updatedPodLine((j * 7919) % n, r * events + j + 1, ++rv));
    for (const shape of ['both', 'decodeOnly'] as const) {
      const c0 = cpuMs();
      const t0 = performance.now();
      if (shape === 'both') for (const line of lines) applyOne(JSON.parse(line) as KubeObject);
      else for (const line of lines) sink += (JSON.parse(line) as KubeObject).metadata!.name!.length;
      const sample = [((cpuMs() - c0) * 1e6) / events, ((performance.now() - t0) * 1e6) / events];
      if (r >= 2) samples[shape].push(sample); // two warm-up rounds
    }
  }
  if (sink === 0) throw new Error('nothing decoded');
  const cost = (xs: number[][]): EventCost => {
    const cpu = xs.map((x) => x[0]);
    return { cpuNs: median(cpu), wallNs: median(xs.map((x) => x[1])), cpuSpreadNs: [Math.min(...cpu), Math.max(...cpu)], meanCpuNs: cpu.reduce((a, b) => a + b, 0) / cpu.length };
  };
  const both = cost(samples.both);
  const decodeOnly = cost(samples.decodeOnly);
  const applied = {
    cpuNs: both.cpuNs - decodeOnly.cpuNs,
    wallNs: both.wallNs - decodeOnly.wallNs,
    cpuSpreadNs: [both.cpuSpreadNs[0] - decodeOnly.cpuSpreadNs[1], both.cpuSpreadNs[1] - decodeOnly.cpuSpreadNs[0]] as [number, number],
    meanCpuNs: both.meanCpuNs - decodeOnly.meanCpuNs,
  };
  return { apply: applied, decodeOnly, both };
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
  const sizes = [1_000, 3_000, 10_000, 100_000];
  const cost = Object.fromEntries(sizes.map((n) => [n, eventCost(n)]));
  const mapCost = Object.fromEntries([1_000, 100_000].map((n) => [n, mapEventCost(n).apply]));
  const { steadyBytes, peakBytes } = relistHeap();
  const result = {
    eventCost: cost,
    costRatio100kVs1k: { cpu: cost[100_000].apply.cpuNs / cost[1_000].apply.cpuNs, wall: cost[100_000].apply.wallNs / cost[1_000].apply.wallNs, meanCpu: cost[100_000].apply.meanCpuNs / cost[1_000].apply.meanCpuNs },
    costRatio100kVs3k: { cpu: cost[100_000].apply.cpuNs / cost[3_000].apply.cpuNs, wall: cost[100_000].apply.wallNs / cost[3_000].apply.wallNs },
    bareMapCostRatio100kVs1k: { cpu: mapCost[100_000].cpuNs / mapCost[1_000].cpuNs, wall: mapCost[100_000].wallNs / mapCost[1_000].wallNs, meanCpu: mapCost[100_000].meanCpuNs / mapCost[1_000].meanCpuNs, cpuNs1k: mapCost[1_000].cpuNs, cpuNs100k: mapCost[100_000].cpuNs },
    relist100k: { steadyMiB: steadyBytes / 2 ** 20, peakMiB: peakBytes / 2 ** 20, peakVsSteady: peakBytes / steadyBytes },
    goals: { costRatio100kVs1k: '<= 1.5', peakVsSteady: '<= 2' },
  };
  if (json) { console.log(JSON.stringify(result)); return; }
  const us = (ns: number) => (ns / 1000).toFixed(2).padStart(6);
  console.log('core benchmark (node %s)', process.version);
  console.log('  cost per applied MODIFIED event (decode+apply minus decode alone), µs; median of 7 rounds of 20k events');
  console.log('     cached   apply CPU [spread]        apply wall   apply CPU, mean   decode+apply CPU   decode CPU');
  for (const n of sizes) {
    const c = cost[n];
    console.log(`    ${String(n).padStart(7)}   ${us(c.apply.cpuNs)} [${us(c.apply.cpuSpreadNs[0])}–${us(c.apply.cpuSpreadNs[1])}]   ${us(c.apply.wallNs)}       ${us(c.apply.meanCpuNs)}            ${us(c.both.cpuNs)}             ${us(c.decodeOnly.cpuNs)}`);
  }
  console.log(`  cost 100k / 1k:         CPU ${result.costRatio100kVs1k.cpu.toFixed(2)}, wall ${result.costRatio100kVs1k.wall.toFixed(2)}, mean CPU ${result.costRatio100kVs1k.meanCpu.toFixed(2)}  (goal <= 1.5)`);
  const mr = result.bareMapCostRatio100kVs1k;
  console.log(`  reference, a bare Map (decode + set minus decode): ${us(mr.cpuNs1k)} µs at 1k, ${us(mr.cpuNs100k)} µs at 100k; 100k / 1k: CPU ${mr.cpu.toFixed(2)}, wall ${mr.wall.toFixed(2)}, mean CPU ${mr.meanCpu.toFixed(2)}`);
  console.log(`  cost 100k / 3k:         CPU ${result.costRatio100kVs3k.cpu.toFixed(2)}, wall ${result.costRatio100kVs3k.wall.toFixed(2)}`);
  console.log(`  100k store steady heap: ${result.relist100k.steadyMiB.toFixed(1)} MiB`);
  console.log(`  100k relist peak heap:  ${result.relist100k.peakMiB.toFixed(1)} MiB  (${result.relist100k.peakVsSteady.toFixed(2)}x steady, goal <= 2)`);
}

if (import.meta.main ?? process.argv[1]?.endsWith('core.bench.ts')) main();

/**
 * Benchmark of @rxinformer/core alone: the cost of applying one watch event (a realistic pod
 * update, decoded fresh from its line) with 1k, 3k, 10k and 100k objects cached, and the peak heap
 * of a 100k-object relist against the store's steady heap. 3k is shown because between 1k and 3k the
 * stored objects stop dying in the young generation (see docs/benchmarks.md).
 *
 *   npm run bench:core            # a table
 *   npm run bench:core -- --json  # one JSON object
 *
 * Runs with --expose-gc (the npm script passes it) so heap figures are taken after a full GC. The
 * goal's ratio (cost at 100k ÷ at 1k) is applyCost.ts's, whose 1k and 100k run in processes of
 * their own, rounds in turn; the table's sizes run one after the other in this process.
 */
import { performance } from 'node:perf_hooks';
import { metaNamespaceKeyFunc, type KubeObject } from '@rxinformer/core';
import { type ReflectorEvent } from '@rxinformer/core/reflector';
import { applyEvent, createPrepare, prepareEvent, initialDeltaState, type DeltaStoreState } from '@rxinformer/core/store';
import { realisticPod } from '@rxinformer/apiserver-sim';
import { applyCost } from './applyCost.ts';
import { median } from './rounds.ts';

const gc = (globalThis as { gc?: () => void }).gc;

/** The simulator's realistic pod (~4 KB with managedFields), with what the server would fill in. */
export function benchPod(i: number, rv: number, ns = `ns-${i % 20}`): KubeObject {
  const pod = realisticPod(i);
  return { ...pod, metadata: { ...pod.metadata, namespace: ns, uid: `0000-${i}`, resourceVersion: String(rv) } };
}

const heap = (): number => {
  if (!gc) throw new Error('heap figures need node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** A store of `n` pods, and the informer's prepare stage and delta store as one function. */
function loaded(n: number): {
  state: DeltaStoreState<KubeObject>;
  apply: (s: DeltaStoreState<KubeObject>, e: ReflectorEvent<KubeObject>) => DeltaStoreState<KubeObject>;
} {
  const prepare = createPrepare<KubeObject>();
  const apply = (s: DeltaStoreState<KubeObject>, e: ReflectorEvent<KubeObject>) => applyEvent(s, prepareEvent(prepare, e)).state;
  const state = apply(initialDeltaState(), {
    type: 'LIST',
    items: Array.from({ length: n }, (_, i) => benchPod(i, i + 1)),
    resourceVersion: String(n),
  });
  return { state, apply };
}

/**
 * A realistic kubelet status update of pod `i` as its watch line would carry it: a new
 * resourceVersion, a restarted container, the Ready condition's transition time and the kubelet's
 * managedFields entry change; everything else is as stored.
 */
export function updatedPodLine(i: number, serial: number, rv: number): string {
  const pod = benchPod(i, rv) as any;
  const time = updateTime(serial);
  pod.status.containerStatuses[0].restartCount = serial;
  pod.status.containerStatuses[0].state = { running: { startedAt: time } };
  pod.status.conditions[1] = { ...pod.status.conditions[1], lastTransitionTime: time };
  pod.metadata.managedFields[1] = { ...pod.metadata.managedFields[1], time };
  return JSON.stringify(pod);
}

/** `updatedPodLine`'s time for `serial`. */
const updateTime = (serial: number): string => new Date(Date.UTC(2025, 0, 2, 0, 0, serial % 86_400)).toISOString().replace('.000', '');

const HOLES = { rv: '@@RV@@', serial: '"@@SERIAL@@"', time: '@@TIME@@' } as const;
type Hole = keyof typeof HOLES;

/**
 * `updatedPodLine` from a template of each pod's line, made once per pod: the same text (a test
 * checks it), built by joining a dozen strings instead of building and stringifying a pod. The
 * benchmark loops build their lines with it as they go, so no round keeps 80 MB of lines alive
 * (the garbage collector would charge them to whichever loop it meets).
 */
export function updatedPodLines(): (i: number, serial: number, rv: number) => string {
  const templates = new Map<number, { parts: string[]; holes: Hole[] }>();
  const template = (i: number) => {
    const pod = JSON.parse(updatedPodLine(i, 0, 0)) as any;
    pod.metadata.resourceVersion = HOLES.rv;
    pod.status.containerStatuses[0].restartCount = HOLES.serial.slice(1, -1);
    pod.status.containerStatuses[0].state.running.startedAt = HOLES.time;
    pod.status.conditions[1].lastTransitionTime = HOLES.time;
    pod.metadata.managedFields[1].time = HOLES.time;
    const text = JSON.stringify(pod);
    const parts: string[] = [];
    const holes: Hole[] = [];
    let from = 0;
    for (const m of text.matchAll(/@@RV@@|"@@SERIAL@@"|@@TIME@@/g)) {
      parts.push(text.slice(from, m.index));
      holes.push((Object.keys(HOLES) as Hole[]).find((h) => HOLES[h] === m[0])!);
      from = m.index + m[0].length;
    }
    parts.push(text.slice(from));
    const t = { parts, holes };
    templates.set(i, t);
    return t;
  };
  return (i, serial, rv) => {
    const { parts, holes } = templates.get(i) ?? template(i);
    const values = { rv: String(rv), serial: String(serial), time: updateTime(serial) };
    const pieces = [parts[0]];
    for (let k = 0; k < holes.length; k++) pieces.push(values[holes[k]], parts[k + 1]);
    return pieces.join(''); // one flat string, as a socket's line is
  };
}

/** This process's CPU time so far (user + system, GC threads included), in ms. */
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Per-event cost of one loop shape, in ns: the median round's CPU and wall time, the range of the
 * rounds' CPU, and the mean CPU over all rounds (`meanCpuNs`: a major GC that falls in one round is
 * spread over all events instead of being dropped with that round by the median).
 */
export interface EventCost {
  cpuNs: number;
  wallNs: number;
  cpuSpreadNs: [number, number];
  meanCpuNs: number;
}

/**
 * The cost of applying one MODIFIED event with `n` objects cached. Each event is decoded from its
 * line as the watch decoder would (a fresh, unfrozen object), so the measure is the marginal cost:
 * rounds of "decode + apply" alternate with rounds of "decode only" over the same lines, after two
 * warm-up rounds of each, and the difference of the medians is reported. Garbage collection is
 * inside both loops (CPU time counts the GC threads too): keeping the decoded objects alive is the
 * store's cost. The same `events` events (same pods modulo n, same changes) at every size.
 */
export function eventCost(n: number, events = 20_000, rounds = 7): { apply: EventCost; decodeOnly: EventCost; both: EventCost } {
  const store = storeRounds(n, events);
  const cost = marginalCost(store.run, rounds);
  store.check();
  return cost;
}

/** CPU and wall ns per event of one timed loop. */
export interface LoopCost {
  cpuNs: number;
  wallNs: number;
}

/** The two loops of the method: "decode + apply" and "decode only". */
export type Shape = 'both' | 'decodeOnly';

/** Runs loop `shape` of round `r` (a round's events follow the previous round's resourceVersions). */
export type RoundRunner = (r: number, shape: Shape) => LoopCost;

/**
 * A runner of the method's loops over a cache of `n` (`applyOne` applies each decoded event; without
 * it only "decode only" can run). Both loops of round `r` go over the same `events` update lines,
 * building each as they go (`updatedPodLines`: the cost is the same in both and cancels out).
 */
export function roundRunner(n: number, events: number, applyOne?: (object: KubeObject) => void): RoundRunner {
  const lineOf = updatedPodLines();
  const firstRv = n + 1;
  let sink = 0;
  return (r, shape) => {
    const line = (j: number) => lineOf((j * 7919) % n, r * events + j + 1, firstRv + r * events + j);
    const c0 = cpuMs();
    const t0 = performance.now();
    if (shape === 'decodeOnly') for (let j = 0; j < events; j++) sink += (JSON.parse(line(j)) as KubeObject).metadata!.name!.length;
    else if (applyOne) for (let j = 0; j < events; j++) applyOne(JSON.parse(line(j)) as KubeObject);
    else throw new Error('this runner only decodes');
    const cost = { cpuNs: ((cpuMs() - c0) * 1e6) / events, wallNs: ((performance.now() - t0) * 1e6) / events };
    if (shape === 'decodeOnly' && sink === 0) throw new Error('nothing decoded');
    return cost;
  };
}

/** A runner of rounds over a delta store of `n` pods (see `eventCost`), and a check that it still holds them all. */
export function storeRounds(n: number, events = 20_000): { run: RoundRunner; check(): void } {
  let { state, apply } = loaded(n);
  return {
    run: roundRunner(n, events, (object) => {
      state = apply(state, { type: 'MODIFIED', object });
    }),
    check: () => {
      if (state.store.size !== n) throw new Error('the store lost objects');
    },
  };
}

/**
 * A runner of rounds over a bare `Map` of `n` pods (each decoded object `set` under its key; no
 * freeze, sharing, index or delta), and a check that it still holds them all: a reference for how
 * any cache's per-event cost grows with its size on this runtime, as the garbage collector copies
 * and marks what it keeps.
 */
export function mapRounds(n: number, events = 20_000): { run: RoundRunner; check(): void } {
  const map = new Map<string, KubeObject>();
  for (let i = 0; i < n; i++) {
    const pod = benchPod(i, i + 1);
    map.set(metaNamespaceKeyFunc(pod), pod);
  }
  return {
    run: roundRunner(n, events, (object) => {
      map.set(metaNamespaceKeyFunc(object), object);
    }),
    check: () => {
      if (map.size !== n) throw new Error('the map lost objects');
    },
  };
}

/** The method of `eventCost`: `rounds` rounds of `run` after two warm-up rounds, summarised. */
function marginalCost(run: RoundRunner, rounds: number): { apply: EventCost; decodeOnly: EventCost; both: EventCost } {
  const samples = { both: [] as number[][], decodeOnly: [] as number[][] };
  for (let r = 0; r < rounds + 2; r++) {
    // Decode first: garbage collection the apply loop leaves behind then runs after it, not in
    // the decode loop it would make look cheaper.
    const decodeOnly = run(r, 'decodeOnly');
    const both = run(r, 'both');
    if (r < 2) continue; // two warm-up rounds
    samples.both.push([both.cpuNs, both.wallNs]);
    samples.decodeOnly.push([decodeOnly.cpuNs, decodeOnly.wallNs]);
  }
  const cost = (xs: number[][]): EventCost => {
    const cpu = xs.map((x) => x[0]);
    return {
      cpuNs: median(cpu),
      wallNs: median(xs.map((x) => x[1])),
      cpuSpreadNs: [Math.min(...cpu), Math.max(...cpu)],
      meanCpuNs: cpu.reduce((a, b) => a + b, 0) / cpu.length,
    };
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
  state = apply(state, { type: 'LIST', items, resourceVersion: String(2 * n + 1) });
  // Live heap at the relist's peak: the decoded list, the new store and the deltas (which hold the
  // old objects) are all reachable here; garbage is collected first so only live bytes count.
  const peakBytes = heap() - base;
  if (state.store.size !== n) throw new Error('relist lost objects');
  return { steadyBytes, peakBytes };
}

async function main(): Promise<void> {
  if (!gc) {
    console.error('run with node --expose-gc (npm run bench:core does)');
    process.exit(2);
  }
  const json = process.argv.includes('--json');
  const sizes = [1_000, 3_000, 10_000, 100_000];
  const cost = Object.fromEntries(sizes.map((n) => [n, eventCost(n)]));
  const { steadyBytes, peakBytes } = relistHeap();
  // The goal's measure, and its bare-Map reference: processes of their own, rounds in turn.
  const paired = await applyCost();
  const pairedMap = await applyCost({ map: true });
  const result = {
    eventCost: cost,
    costRatio100kVs1k: { median: paired.ratio, mean: paired.meanRatio, ns1k: paired.ns1k, ns100k: paired.ns100k, ratios: paired.ratios },
    bareMapCostRatio100kVs1k: {
      median: pairedMap.ratio,
      mean: pairedMap.meanRatio,
      ns1k: pairedMap.ns1k,
      ns100k: pairedMap.ns100k,
      ratios: pairedMap.ratios,
    },
    inOneProcess: {
      costRatio100kVs1k: {
        cpu: cost[100_000].apply.cpuNs / cost[1_000].apply.cpuNs,
        wall: cost[100_000].apply.wallNs / cost[1_000].apply.wallNs,
        meanCpu: cost[100_000].apply.meanCpuNs / cost[1_000].apply.meanCpuNs,
      },
      costRatio100kVs3k: {
        cpu: cost[100_000].apply.cpuNs / cost[3_000].apply.cpuNs,
        wall: cost[100_000].apply.wallNs / cost[3_000].apply.wallNs,
      },
    },
    relist100k: { steadyMiB: steadyBytes / 2 ** 20, peakMiB: peakBytes / 2 ** 20, peakVsSteady: peakBytes / steadyBytes },
    goals: { costRatio100kVs1k: '<= 1.5', peakVsSteady: '<= 2' },
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  const us = (ns: number) => (ns / 1000).toFixed(2).padStart(6);
  console.log('core benchmark (node %s)', process.version);
  console.log(
    '  cost per applied MODIFIED event (decode+apply minus decode alone), µs; median of 7 rounds of 20k events, one size after the other in this process',
  );
  console.log('     cached   apply CPU [spread]        apply wall   apply CPU, mean   decode+apply CPU   decode CPU');
  for (const n of sizes) {
    const c = cost[n];
    console.log(
      `    ${String(n).padStart(7)}   ${us(c.apply.cpuNs)} [${us(c.apply.cpuSpreadNs[0])}–${us(c.apply.cpuSpreadNs[1])}]   ${us(c.apply.wallNs)}       ${us(c.apply.meanCpuNs)}            ${us(c.both.cpuNs)}             ${us(c.decodeOnly.cpuNs)}`,
    );
  }
  const one = result.inOneProcess;
  console.log(
    `    from this table, 100k / 1k: CPU ${one.costRatio100kVs1k.cpu.toFixed(2)}, wall ${one.costRatio100kVs1k.wall.toFixed(2)}, mean CPU ${one.costRatio100kVs1k.meanCpu.toFixed(2)}; 100k / 3k: CPU ${one.costRatio100kVs3k.cpu.toFixed(2)}`,
  );
  const line = (what: string, c: typeof paired) =>
    `${what} ${c.ratio.toFixed(2)} (rounds ${Math.min(...c.ratios).toFixed(2)}–${Math.max(...c.ratios).toFixed(2)}; mean cost ${c.meanRatio.toFixed(2)}); ${us(c.ns1k)} µs at 1k, ${us(c.ns100k)} µs at 100k`;
  console.log(
    "  cost 100k / 1k, the goal's measure (applyCost.ts: 1k and 100k in processes of their own, rounds in turn; median of the rounds' ratios):",
  );
  console.log(`    ${line('delta store:', paired)}  (goal <= 1.5)`);
  console.log(`    ${line('reference, a bare Map (decode + set minus decode):', pairedMap)}`);
  console.log(`  100k store steady heap: ${result.relist100k.steadyMiB.toFixed(1)} MiB`);
  console.log(
    `  100k relist peak heap:  ${result.relist100k.peakMiB.toFixed(1)} MiB  (${result.relist100k.peakVsSteady.toFixed(2)}x steady, goal <= 2)`,
  );
}

if (import.meta.main ?? process.argv[1]?.endsWith('core.bench.ts')) await main();

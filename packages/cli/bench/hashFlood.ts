/**
 * Benchmark of the delta store under hash flooding: the cost of an initial list and of an update
 * when 16,384 pods have names crafted so that their keys share one 32-bit FNV-1a hash, against
 * the same with ordinary names. Two crafted sets: against the unseeded FNV-1a (what anyone can
 * compute) and against this process's own seed (what someone who knew it could compute: the
 * store's worst case). See docs/architecture.md, "Keys chosen by an adversary".
 *
 *   node packages/cli/bench/hashFlood.ts            # a table
 *   node packages/cli/bench/hashFlood.ts --json     # one JSON object
 *
 * Rounds of the three name sets run in turn (so a busy machine slows all three alike); each
 * figure is the median round's CPU time.
 */
import { type KubeObject } from '@rxinformer/core';
import { applyEvent, createPrepare, prepareEvent, initialDeltaState } from '@rxinformer/core/store';
import { collidingKeys, processHashSeed } from '@rxinformer/testing';
import { cpuMs } from './core.bench.ts';
import { median } from './rounds.ts';

/** The delta store entry points measured (another build of core can be passed to compare). */
export interface StoreApi {
  applyEvent: typeof applyEvent;
  createPrepare: typeof createPrepare;
  initialDeltaState: typeof initialDeltaState;
  prepareEvent: typeof prepareEvent;
}

const NAMESPACE = 'flood';
const namedPod = (name: string, i: number, rv: number): KubeObject => ({
  metadata: { namespace: NAMESPACE, name, uid: `uid-${i}`, resourceVersion: String(rv), labels: { app: 'flood' } },
});

/** 2^`bits` pod names whose keys (`flood/<name>`) share one hash under `seededFnv1a(seed)` (0: the unseeded `fnv1a`). */
export function craftedNames(bits: number, seed = 0): string[] {
  return collidingKeys(`${NAMESPACE}/p`, bits, seed).map((key) => key.slice(NAMESPACE.length + 1));
}

/** Ordinary names as long as the crafted ones. */
export const ordinaryNames = (n: number, length: number): string[] =>
  Array.from({ length: n }, (_, i) => `web-${i}-`.padEnd(length, 'abcdefghijklmnopqrstuvwxyz0123456789'));

/** One round over `names`: the CPU ms of an initial list of them, then the CPU µs per MODIFIED event of `updates` events. */
export function floodRound(api: StoreApi, names: readonly string[], updates: number): { listMs: number; updateUs: number } {
  const prepare = api.createPrepare<KubeObject>();
  let deltas = 0;
  const reduce: typeof api.applyEvent<KubeObject> = (s, e) => {
    const step = api.applyEvent(s, api.prepareEvent(prepare, e));
    deltas = step.deltas.length;
    return step;
  };
  const items = names.map((name, i) => namedPod(name, i, i + 1));
  const c0 = cpuMs();
  let state = reduce(api.initialDeltaState<KubeObject>(), { type: 'LIST', items, resourceVersion: String(names.length) }).state;
  const listMs = cpuMs() - c0;
  let rv = names.length;
  const events = Array.from({ length: updates }, (_, j) => {
    const i = (j * 7919) % names.length;
    return namedPod(names[i], i, ++rv);
  });
  const c1 = cpuMs();
  for (const object of events) state = reduce(state, { type: 'MODIFIED', object }).state;
  const updateUs = ((cpuMs() - c1) * 1000) / updates;
  if (state.store.size !== names.length || deltas !== 1) throw new Error('the store lost objects');
  return { listMs, updateUs };
}

/** Medians over `rounds` rounds (after one warm-up) of each name set, rounds in turn. */
export function floodCost(
  api: StoreApi,
  sets: Record<string, readonly string[]>,
  { rounds = 7, updates = 5_000 } = {},
): Record<string, { listMs: number; updateUs: number }> {
  const samples = Object.fromEntries(Object.keys(sets).map((k) => [k, [] as { listMs: number; updateUs: number }[]]));
  for (let r = 0; r <= rounds; r++) {
    for (const [name, names] of Object.entries(sets)) {
      const round = floodRound(api, names, updates);
      if (r > 0) samples[name].push(round);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, xs]) => [k, { listMs: median(xs.map((x) => x.listMs)), updateUs: median(xs.map((x) => x.updateUs)) }]),
  );
}

async function main(): Promise<void> {
  const bits = 14;
  const unseeded = craftedNames(bits);
  const sets = {
    ordinary: ordinaryNames(unseeded.length, unseeded[0].length),
    craftedUnseeded: unseeded,
    craftedForThisSeed: craftedNames(bits, processHashSeed),
  };
  const cost = floodCost({ applyEvent, createPrepare, initialDeltaState, prepareEvent }, sets);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ pods: unseeded.length, cost }));
    return;
  }
  console.log(`hash flooding, ${unseeded.length} pods (node ${process.version}); CPU, median of 7 rounds`);
  console.log('    names                    initial list ms  (× ordinary)   µs per update  (× ordinary)');
  const base = cost.ordinary;
  for (const [name, c] of Object.entries(cost)) {
    console.log(
      `    ${name.padEnd(22)}   ${c.listMs.toFixed(1).padStart(12)}  (${(c.listMs / base.listMs).toFixed(2)})   ${c.updateUs.toFixed(2).padStart(12)}  (${(c.updateUs / base.updateUs).toFixed(2)})`,
    );
  }
}

if (import.meta.main ?? process.argv[1]?.endsWith('hashFlood.ts')) await main();

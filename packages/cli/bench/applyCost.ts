/**
 * applyCost100kVs1k: how the delta store's per-event cost grows with the cache. The reducer holds
 * `cached` realistic pods; a batch of MODIFIED events (the same pods at new resourceVersions, built
 * before timing) is applied and timed per event. Median of `rounds` after two warm-up rounds, at 1k
 * and at 100k cached; the metric is their ratio (rxinformer only: the peers have no such reducer).
 *
 * Each round runs in its own process (`measureApplyCost`) so the 100k store (~600 MB) does not weigh
 * on the other measurements:
 *
 *   node --expose-gc applyCost.ts [rounds]   → {"ns1k": …, "ns100k": …, "ratio": …}
 */
import { createDeltaReducer, initialDeltaState, type KubeObject } from '@rxinformer/core';
import { realisticPod } from '@rxinformer/apiserver-sim';
import { runChild } from './childRun.ts';
import { median, runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** The i-th realistic pod as the server would store it, at revision `rv`. */
function storedPod(i: number, rv: number): KubeObject {
  const pod = realisticPod(i);
  return { ...pod, metadata: { ...pod.metadata, namespace: `team-${i % 10}`, uid: `uid-${i}`, resourceVersion: String(rv) } };
}

/**
 * Nanoseconds per applied MODIFIED event with `cached` pods in the store.
 *
 * @example
 * const ratio = nsPerEvent(100_000) / nsPerEvent(1_000);
 *
 * Caveat: the batch's objects are reused across rounds (already frozen after the first), as in
 * `core.bench.ts`; the figure is the store's work per event, not the decoding's.
 */
export function nsPerEvent(cached: number, rounds = 7, batchSize = 20_000): number {
  const reduce = createDeltaReducer<KubeObject>();
  const items: KubeObject[] = [];
  for (let i = 0; i < cached; i++) items.push(storedPod(i, i + 1));
  let state = reduce(initialDeltaState(), { type: 'replace', items, resourceVersion: String(cached) });
  items.length = 0;
  let rv = cached;
  // Spread over the whole cache with a stride prime to its size.
  const batch: KubeObject[] = [];
  for (let j = 0; j < batchSize; j++) batch.push(storedPod((j * 7919) % cached, ++rv));
  const perRound: number[] = [];
  for (let round = -2; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (const pod of batch) {
      rv += 1;
      state = reduce(state, { type: 'modified', object: { ...pod, metadata: { ...pod.metadata, resourceVersion: String(rv) } } });
    }
    const elapsed = Number(process.hrtime.bigint() - started);
    if (round >= 0) perRound.push(elapsed / batchSize);
  }
  if (state.store.size !== cached) throw new Error(`the store holds ${state.store.size} of ${cached} pods`);
  return median(perRound);
}

/** Both costs and their ratio. */
export function applyCost(rounds = 7): { ns1k: number; ns100k: number; ratio: number } {
  const ns1k = nsPerEvent(1_000, rounds);
  const ns100k = nsPerEvent(100_000, rounds);
  return { ns1k, ns100k, ratio: ns100k / ns1k };
}

/**
 * The metric: `applyCost()` in a fresh process per round (`rounds` of them, no warm-up), the median
 * of their ratios.
 *
 * @example
 * const out = await measureApplyCost({ rounds: 3 }); // { median, samples } or { error }
 */
export async function measureApplyCost(options: RotatingOptions = {}): Promise<Outcome> {
  const run = async () => {
    const { ratio } = await runChild<ReturnType<typeof applyCost>>('applyCost.ts', ['5'], { nodeFlags: ['--expose-gc', '--max-old-space-size=8192'], timeoutMs: 600_000 });
    return ratio;
  };
  return (await runRotating({ rxinformer: run }, { ...options, warmup: 0 })).rxinformer;
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 7);
  process.stdout.write(`${JSON.stringify(applyCost(rounds))}\n`);
}

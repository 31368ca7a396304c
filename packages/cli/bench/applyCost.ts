/**
 * applyCost100kVs1k: how the delta store's per-event cost grows with the cache — the CPU cost of
 * applying one realistic MODIFIED event (freshly decoded, as from a watch line) with 100k pods
 * cached, divided by the same with 1k cached. The measure is core.bench.ts's `eventCost` (decode +
 * apply minus decode alone, GC included), so `npm run bench` and `npm run bench:core` agree.
 *
 * Each round runs in its own process (`measureApplyCost`) so the 100k store does not weigh on the
 * other measurements:
 *
 *   node --expose-gc applyCost.ts [rounds]   → {"ns1k": …, "ns100k": …, "ratio": …}
 */
import { eventCost } from './core.bench.ts';
import { runChild } from './childRun.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** Both costs (CPU ns per applied event) and their ratio. */
export function applyCost(rounds = 7): { ns1k: number; ns100k: number; ratio: number; meanRatio: number } {
  const small = eventCost(1_000, 20_000, rounds).apply;
  const large = eventCost(100_000, 20_000, rounds).apply;
  return { ns1k: small.cpuNs, ns100k: large.cpuNs, ratio: large.cpuNs / small.cpuNs, meanRatio: large.meanCpuNs / small.meanCpuNs };
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

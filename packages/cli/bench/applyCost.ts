/**
 * applyCost100kVs1k: how the delta store's per-event cost grows with the cache — the CPU cost of
 * applying one realistic MODIFIED event (freshly decoded, as from a watch line) with 100k pods
 * cached, divided by the same with 1k cached. The measure is core.bench.ts's `eventCost` (decode +
 * apply minus decode alone, GC included), so `npm run bench` and `npm run bench:core` agree.
 *
 * Each round runs in its own process (`measureApplyCost`) so the 100k store does not weigh on the
 * other measurements:
 *
 *   node --expose-gc applyCost.ts [rounds] [--map]   → {"ns1k": …, "ns100k": …, "ratio": …}
 *
 * `--map` measures the reference instead: a bare `Map` in place of the delta store. Its cost grows
 * with the cache too (the garbage collector copies and marks what a cache keeps), which shows how
 * much of the ratio is the runtime's and how much the store's.
 */
import { eventCost, mapEventCost } from './core.bench.ts';
import { runChild } from './childRun.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** Both costs (CPU ns per applied event) and their ratio: of the delta store, or with `map` of a bare `Map` (the reference). */
export function applyCost(rounds = 7, map = false): { ns1k: number; ns100k: number; ratio: number; meanRatio: number } {
  const measure = map ? mapEventCost : eventCost;
  const small = measure(1_000, 20_000, rounds).apply;
  const large = measure(100_000, 20_000, rounds).apply;
  return { ns1k: small.cpuNs, ns100k: large.cpuNs, ratio: large.cpuNs / small.cpuNs, meanRatio: large.meanCpuNs / small.meanCpuNs };
}

/** What the metric's reference is. */
export const BARE_MAP = 'the same method with a bare Map in place of the delta store: decode + set minus decode';

/**
 * The metric: `applyCost()` in a fresh process per round (`rounds` of them, no warm-up), the median
 * of their ratios; and the same for the bare-Map reference (`bareMap`), its processes alternating
 * with rxinformer's.
 *
 * @example
 * const out = await measureApplyCost({ rounds: 3 }); // { rxinformer: { median, samples } or { error }, bareMap: … }
 */
export async function measureApplyCost(options: RotatingOptions = {}): Promise<Record<'rxinformer' | 'bareMap', Outcome>> {
  const run = (map: boolean) => async () => {
    const { ratio } = await runChild<ReturnType<typeof applyCost>>('applyCost.ts', map ? ['5', '--map'] : ['5'], { nodeFlags: ['--expose-gc', '--max-old-space-size=8192'], timeoutMs: 600_000 });
    return ratio;
  };
  return (await runRotating({ rxinformer: run(false), bareMap: run(true) }, { ...options, warmup: 0 })) as Record<'rxinformer' | 'bareMap', Outcome>;
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 7);
  process.stdout.write(`${JSON.stringify(applyCost(rounds, process.argv.includes('--map')))}\n`);
}

/**
 * applyCost100kVs1k: how the delta store's per-event cost grows with the cache — the CPU cost of
 * applying one realistic MODIFIED event (freshly decoded, as from a watch line) with 100k pods
 * cached, divided by the same with 1k cached. The cost is core.bench.ts's: decode + apply minus
 * decode alone, over the same 20,000 lines, GC included.
 *
 * The loops run in processes of their own, round by round in turn: a 1k store and a 100k store
 * (decode + apply), and beside each a process without any cache decoding the same lines (decode
 * only). A round's four loops run one after the other in rotating order, and the figure is the
 * median of the rounds' ratios:
 * - the machine's speed drifts (a shared host: the same loop runs 1.6× slower for ten seconds,
 *   then not), so two figures measured minutes apart compare the machine as much as the store;
 *   the loops of one round share its state;
 * - a store process never runs the decode-only loop: whatever the store leaves for the garbage
 *   collector (a major GC of its heap may finish in any later loop) lands in its own loops, and
 *   CPU it spends between them is charged to its next loop. Whatever keeping the store makes
 *   decoding cost (a bigger heap to collect) thereby counts as the store's cost.
 *
 *   node --expose-gc applyCost.ts [rounds] [--map]   → {"ns1k": …, "ns100k": …, "ratio": …, …}
 *   node --expose-gc applyCost.ts --serve <n> [--map | --decode-only]
 *     (a child: answers each {"round": r} with a ServedLoop)
 *
 * `--map` measures the reference instead: a bare `Map` in place of the delta store. Its cost grows
 * with the cache too (the garbage collector copies and marks what a cache keeps), which shows how
 * much of the ratio is the runtime's and how much the store's.
 */
import { createInterface } from 'node:readline';
import { cpuMs, mapRounds, roundRunner, storeRounds, type LoopCost } from './core.bench.ts';
import { startChildServer, type ChildServer } from './childRun.ts';
import { median, rotation, runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** Events per round. */
const EVENTS = 20_000;

/** A loop as a `--serve` child answers it: its cost, and the CPU the child spent since its previous loop ended. */
export interface ServedLoop extends LoopCost {
  idleCpuNs: number;
}

/** The paired measurement's result: medians (CPU ns per applied event), the median of the rounds' ratios, and every ratio. */
export interface ApplyCost {
  ns1k: number;
  ns100k: number;
  ratio: number;
  meanRatio: number;
  ratios: number[];
}

/** CPU per event of a served loop, with what its process spent since its previous loop. */
const cpuOf = (c: ServedLoop): number => c.cpuNs + c.idleCpuNs;

/**
 * Measures the ratio: `warmup` unmeasured rounds then `rounds` measured ones of the four loops.
 * With `map`, of a bare `Map` (the reference).
 *
 * @example
 * const { ratio, ratios } = await applyCost({ rounds: 9 }); // ratio: the median of ratios
 */
export async function applyCost(options: { rounds?: number; warmup?: number; map?: boolean } = {}): Promise<ApplyCost> {
  const { rounds = 9, warmup = 2, map = false } = options;
  const serve = (n: number, mode: string[]) =>
    startChildServer('applyCost.ts', ['--serve', String(n), ...mode], {
      nodeFlags: ['--expose-gc', '--max-old-space-size=8192'],
      timeoutMs: 300_000,
    });
  const children: ChildServer[] = [];
  try {
    // Started one after the other: loading the 100k store takes seconds of both cores.
    const cacheMode = map ? ['--map'] : [];
    for (const [n, mode] of [
      [1_000, cacheMode],
      [100_000, cacheMode],
      [1_000, ['--decode-only']],
      [100_000, ['--decode-only']],
    ] as const)
      children.push(await serve(n, [...mode]));
    const costs: [number, number][] = [];
    for (let r = 0; r < warmup + rounds; r++) {
      const cpu = new Map<ChildServer, number>();
      for (const child of rotation(children, r)) cpu.set(child, cpuOf(await child.ask<ServedLoop>({ round: r })));
      const [small, large, decodeSmall, decodeLarge] = children.map((c) => cpu.get(c)!);
      if (r >= warmup) costs.push([small - decodeSmall, large - decodeLarge]);
    }
    const ratios = costs.map(([s, l]) => l / s);
    const mean = (i: 0 | 1) => costs.reduce((sum, c) => sum + c[i], 0) / costs.length;
    return {
      ns1k: median(costs.map((c) => c[0])),
      ns100k: median(costs.map((c) => c[1])),
      ratio: median(ratios),
      meanRatio: mean(1) / mean(0),
      ratios,
    };
  } finally {
    for (const child of children) child.close();
  }
}

/** What the metric's reference is. */
export const BARE_MAP = 'the same method with a bare Map in place of the delta store: decode + set minus decode';

/**
 * The metric: `rounds` measurements (`applyCost`, 7 rounds after 1 warm-up each) of the delta store
 * and as many of the bare-Map reference, alternating; each figure is the median of their ratios.
 *
 * @example
 * const out = await measureApplyCost({ rounds: 3 }); // { rxinformer: { median, samples } or { error }, bareMap: … }
 */
export async function measureApplyCost(options: RotatingOptions = {}): Promise<Record<'rxinformer' | 'bareMap', Outcome>> {
  const run = (map: boolean) => async () => (await applyCost({ rounds: 7, warmup: 1, map })).ratio;
  return (await runRotating({ rxinformer: run(false), bareMap: run(true) }, { ...options, warmup: 0 })) as Record<
    'rxinformer' | 'bareMap',
    Outcome
  >;
}

/** The `--serve` child: one loop per request line (of a cache of `n`, or decode only), until stdin ends. */
async function serveLoops(n: number, mode: 'store' | 'map' | 'decodeOnly'): Promise<void> {
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`--serve needs a positive whole number of objects, not ${process.argv[process.argv.indexOf('--serve') + 1]}`);
  const cache =
    mode === 'store' ? storeRounds(n, EVENTS) : mode === 'map' ? mapRounds(n, EVENTS) : { run: roundRunner(n, EVENTS), check() {} };
  const shape = mode === 'decodeOnly' ? 'decodeOnly' : 'both';
  const cpuNs = (): number => cpuMs() * 1e6;
  process.stdout.write(`${JSON.stringify({ ready: n })}\n`);
  let idleSince = cpuNs();
  for await (const line of createInterface({ input: process.stdin })) {
    const { round } = JSON.parse(line) as { round: number };
    const idleCpuNs = (cpuNs() - idleSince) / EVENTS;
    const cost: ServedLoop = { ...cache.run(round, shape), idleCpuNs };
    idleSince = cpuNs();
    process.stdout.write(`${JSON.stringify(cost)}\n`);
  }
  cache.check();
}

if (import.meta.main) {
  const at = process.argv.indexOf('--serve');
  const map = process.argv.includes('--map');
  if (at >= 0)
    await serveLoops(Number(process.argv[at + 1]), map ? 'map' : process.argv.includes('--decode-only') ? 'decodeOnly' : 'store');
  else
    process.stdout.write(
      `${JSON.stringify(await applyCost({ rounds: Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 9), map }))}\n`,
    );
}

/**
 * The browser bench's rounds: every page once per round in a rotating order (no page always runs
 * first or after the same neighbour), each in a fresh browser context, and the median and range
 * of the rounds per figure. Heap per object is each round's heap minus the baseline page's heap of
 * that round, divided by the objects the page holds.
 */
import type { Browser } from 'playwright-core';
import { startPageServer } from '../src/pageServer.ts';
import { launchChromium } from '../test/chromium.ts';
import { buildSite, type WorkerSite } from '../test/workerSite.ts';
import type { BenchCluster } from './cluster.ts';
import { measurePage, type PageConfig, type PageFigures, type Timing } from './measurePage.ts';

/** The pages, the baseline first. */
export const BENCH_PAGES: readonly PageConfig[] = [
  { name: 'none', path: '/?mode=none' },
  ...(['main', 'worker'] as const).flatMap((mode) =>
    (['full', 'projected', 'metadata'] as const).map((view) => ({ name: `${mode} ${view}`, path: `/?mode=${mode}&view=${view}` })),
  ),
  { name: 'shared full', path: '/?mode=shared&view=full' },
  { name: 'react worker projected', path: '/react.html?mode=worker&view=projected', react: true },
];

/**
 * Variants of the Worker page, run only when `--only` names them: the worker's `batchMs` and
 * `encoding` (`?batch=`, `?json=0|1`), and the page's mirror without freezing (`?freeze=0`).
 * `worker full unbatched` is the Worker page as it was before batches and JSON. The floor pages
 * (`?floor=parse|keep`) receive the same messages from the same worker and only parse them
 * (`keep`: and keep the objects in a Map): what any mirror of full objects pays at the least.
 */
export const VARIANT_PAGES: readonly PageConfig[] = [
  { name: 'worker full unbatched', path: '/?mode=worker&view=full&batch=0&json=0' },
  { name: 'worker projected unbatched', path: '/?mode=worker&view=projected&batch=0&json=0' },
  { name: 'worker full batch0', path: '/?mode=worker&view=full&batch=0' },
  { name: 'worker full batch50', path: '/?mode=worker&view=full&batch=50' },
  { name: 'worker full clone', path: '/?mode=worker&view=full&json=0' },
  { name: 'worker full nofreeze', path: '/?mode=worker&view=full&freeze=0' },
  { name: 'worker full floor keep', path: '/?mode=worker&view=full&floor=keep' },
  { name: 'worker full floor parse', path: '/?mode=worker&view=full&floor=parse' },
];

/** Options of `runBench`. */
export interface BenchOptions {
  rounds: number;
  timing: Timing;
  pages: readonly PageConfig[];
  /** Progress lines. */
  log: (line: string) => void;
}

/** A figure's median and range over the rounds. */
export interface Stat {
  median: number;
  min: number;
  max: number;
}

/** One page over every round. */
export interface PageSummary {
  name: string;
  /** Each round's figures, or the failure of the round. */
  rounds: (PageFigures | { error: string })[];
  syncMs?: Stat;
  busyMsPerS?: Stat;
  /** Busy ms per second over the baseline page's of the same round: what the informers add. */
  addedBusyMsPerS?: Stat;
  /** Main-thread CPU ms per second, and over the baseline page's of the same round. */
  cpuMsPerS?: Stat;
  addedCpuMsPerS?: Stat;
  worstStallMs?: Stat;
  longTaskMsPerS?: Stat;
  worstFrameGapMs?: Stat;
  /** Heap per object held, in bytes, beside the baseline page. */
  heapPerObject?: Stat;
  /** Relists of the page's informers, start to end of the window. */
  relists?: Stat;
  /** Objects held at the end of the last round. */
  held?: { pods: number; nodes: number };
  burstCommitsPerS?: Stat;
  burstBusyMsPerS?: Stat;
  burstWorstStallMs?: Stat;
}

/** The median (upper middle of an even count) and range of `xs`; undefined for none. */
export function stat(xs: readonly number[]): Stat | undefined {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}

/**
 * Builds the bench's pages (minified, as a production site is, unless `minify` is false: a profile's names), React's with its profiling build
 * (a production React whose `<Profiler>` reports commits; the plain one never calls `onRender`).
 */
export function benchSite(minify = true): Promise<WorkerSite> {
  return buildSite({
    sources: new URL('./site/', import.meta.url),
    scripts: { page: 'page.ts', react: 'react.ts', worker: 'worker.ts' },
    html: ['index.html', 'react.html'],
    minify,
    alias: { 'react-dom/client': 'react-dom/profiling' },
  });
}

/**
 * Builds the bench's site, serves it (proxying the API to `cluster`), launches Chromium, starts the
 * churn and runs `fn` with them; closes the browser, the server and the site after (not the cluster).
 * `minify: false` keeps names readable in CPU profiles.
 */
export async function withBenchBrowser<T>(
  cluster: BenchCluster,
  fn: (browser: Browser, url: string) => Promise<T>,
  { minify = true }: { minify?: boolean } = {},
): Promise<T> {
  const site = await benchSite(minify);
  const server = await startPageServer({ upstream: cluster.sim.url, page: site });
  const browser = await launchChromium();
  try {
    cluster.churn();
    return await fn(browser, server.url);
  } finally {
    await browser.close();
    await server.close();
    await site.remove();
  }
}

/** Measures every page `options.rounds` times against `cluster` (churning) through the page server at `url`. */
export async function runBench(browser: Browser, url: string, cluster: BenchCluster, options: BenchOptions): Promise<PageSummary[]> {
  const { pages } = options;
  const byName = new Map(pages.map((p) => [p.name, [] as (PageFigures | { error: string })[]]));
  const baseline: PageFigures[] = [];
  for (let round = 0; round < options.rounds; round++) {
    // Rotated so that each page runs at each position once over as many rounds.
    const order = pages.map((_, k) => pages[(k + round) % pages.length]);
    for (const page of order) {
      options.log(`round ${round + 1}/${options.rounds}: ${page.name}`);
      const figures = await measurePage(browser, url, page, cluster, options.timing).catch((e: unknown) => ({
        error: String((e as Error).message ?? e),
      }));
      if ('error' in figures) options.log(`  failed: ${figures.error}`);
      else {
        if (page.name === 'none') baseline[round] = figures;
        options.log(
          `  synced in ${ms(figures.syncMs)}; busy ${figures.busyMsPerS.toFixed(1)} ms/s (CPU ${figures.cpuMsPerS.toFixed(1)}), worst stall ${ms(figures.probe.worstStallMs)}, ` +
            `heap ${(figures.heapBytes / 2 ** 20).toFixed(1)} MiB, held ${figures.held.pods} pods ${figures.held.nodes} nodes, ${figures.relists} relists` +
            (figures.burst ? `, burst ${figures.burst.commitsPerS.toFixed(1)} commits/s` : ''),
        );
        for (const { fn, ms } of figures.profile ?? []) options.log(`    ${ms.toFixed(0).padStart(6)} ms  ${fn}`);
        for (const { name, ms } of figures.trace ?? []) options.log(`    ${ms.toFixed(0).padStart(6)} ms  ${name} (trace)`);
        for (const { fn, ms } of figures.allocations ?? []) options.log(`    ${ms.toFixed(0).padStart(6)} KiB  ${fn} (allocated)`);
      }
      byName.get(page.name)!.push(figures);
    }
  }
  return pages.map((page) => summarize(page.name, byName.get(page.name)!, baseline));
}

const ms = (x: number) => `${Math.round(x)} ms`;

/** The summary of one page's rounds (`baseline[round]`: the baseline page's figures that round). */
function summarize(name: string, rounds: (PageFigures | { error: string })[], baseline: PageFigures[]): PageSummary {
  const ok = rounds.flatMap((r, i) => ('error' in r ? [] : [{ r, i }]));
  const of = (f: (r: PageFigures) => number | undefined) => stat(ok.flatMap(({ r }) => (f(r) === undefined ? [] : [f(r)!])));
  const objects = (r: PageFigures) => r.held.pods + r.held.nodes;
  const heapPerObject = stat(
    ok.flatMap(({ r, i }) => (objects(r) > 0 && baseline[i] !== undefined ? [(r.heapBytes - baseline[i].heapBytes) / objects(r)] : [])),
  );
  const added = (f: (r: PageFigures) => number) =>
    stat(ok.flatMap(({ r, i }) => (baseline[i] !== undefined ? [f(r) - f(baseline[i])] : [])));
  return {
    name,
    rounds,
    syncMs: of((r) => r.syncMs),
    busyMsPerS: of((r) => r.busyMsPerS),
    addedBusyMsPerS: added((r) => r.busyMsPerS),
    cpuMsPerS: of((r) => r.cpuMsPerS),
    addedCpuMsPerS: added((r) => r.cpuMsPerS),
    worstStallMs: of((r) => r.probe.worstStallMs),
    longTaskMsPerS: of((r) => r.probe.longTaskMs / r.seconds),
    worstFrameGapMs: of((r) => r.probe.worstFrameGapMs),
    heapPerObject,
    relists: of((r) => r.relists),
    held: ok.at(-1)?.r.held,
    burstCommitsPerS: of((r) => r.burst?.commitsPerS),
    burstBusyMsPerS: of((r) => r.burst?.busyMsPerS),
    burstWorstStallMs: of((r) => r.burst?.probe.worstStallMs),
  };
}

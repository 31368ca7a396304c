/**
 * What informers cost a tab, measured in headless Chromium against the simulator holding a big
 * cluster under churn (default 1,300 nodes, 30,000 pods, 180 writes/s): the same probe page with no
 * informers (the baseline), with informers of pods and nodes on the main thread, in a dedicated
 * Worker and in a SharedWorker (the page's informers a mirror fed with deltas), each holding full
 * objects, projections (core's presets) or metadata only; and a React page (`@rxinformer/react`)
 * given a burst of updates. Per page: main-thread busy ms per second (CDP TaskDuration), the worst
 * stall of a 10 ms timer, long tasks, heap per object held (after a full GC, the baseline page's
 * heap taken off), React commits per second in the burst. Median and range of the rounds.
 *
 *   npm run bench:browser -- [--nodes 1300] [--pods 30000] [--rate 180] [--rounds 3] [--warmup 5]
 *     [--window 20] [--burst 2000] [--burst-rate 1000] [--only 'main full,worker full'] [--json]
 *     [--profile] (a CPU profile of each window, unminified: its top functions by self time)
 *     [--trace] (a Chromium trace of each window: the main thread's self time by kind of work)
 *     [--allocations] (a sampled allocation profile of each window, garbage included, unminified)
 *   --only also names the variants of the Worker page (runBench.ts `VARIANT_PAGES`), e.g.
 *     --only 'worker full,worker full unbatched'
 */
import { startCluster } from './cluster.ts';
import { BENCH_PAGES, runBench, VARIANT_PAGES, withBenchBrowser, type BenchOptions } from './runBench.ts';
import { printTable } from './benchTable.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',').map((s) => s.trim()) : undefined;

const options: BenchOptions = {
  rounds: arg('--rounds', 3),
  timing: {
    warmupMs: arg('--warmup', 5) * 1000,
    windowMs: arg('--window', 20) * 1000,
    syncTimeoutMs: 600_000,
    burst: { count: arg('--burst', 2000), perSecond: arg('--burst-rate', 1000), tailMs: 500 },
    profile: process.argv.includes('--profile'),
    trace: process.argv.includes('--trace'),
    allocations: process.argv.includes('--allocations'),
  },
  pages: [...BENCH_PAGES, ...VARIANT_PAGES].filter((p) => p.name === 'none' || (only ? only.includes(p.name) : BENCH_PAGES.includes(p))),
  log: (line) => process.stderr.write(`${line}\n`),
};
const cluster = await startCluster({ nodes: arg('--nodes', 1300), pods: arg('--pods', 30_000), writesPerSecond: arg('--rate', 180) });
const started = new Date();
try {
  const results = await withBenchBrowser(cluster, (browser, url) => runBench(browser, url, cluster, options), {
    minify: !process.argv.includes('--profile') && !process.argv.includes('--allocations'),
  });
  const meta = { started: started.toISOString(), seconds: Math.round((Date.now() - started.getTime()) / 1000), ...cluster.held() };
  if (process.argv.includes('--json')) console.log(JSON.stringify({ meta, options, results }, null, 2));
  else printTable(results, meta, options);
} finally {
  await cluster.close();
}

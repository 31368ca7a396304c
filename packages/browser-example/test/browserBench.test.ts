import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { startCluster, type BenchCluster } from '../bench/cluster.ts';
import { BENCH_PAGES, benchSite, runBench, VARIANT_PAGES } from '../bench/runBench.ts';
import { goalLines } from '../bench/benchTable.ts';
import type { PageFigures } from '../bench/measurePage.ts';
import { byKind, traceSelfTimes } from '../bench/traceSplit.ts';
import { startPageServer, type PageServer } from '../src/pageServer.ts';
import { browserTestsRun, launchChromium } from './chromium.ts';
import type { WorkerSite } from './workerSite.ts';

const describeInBrowser = browserTestsRun('the browser bench smoke test') ? describe : describe.skip;

// `npm run bench:browser` at tiny sizes, so that it cannot rot: every kind of page loads, syncs,
// holds the simulator's objects in the form it says, and is measured; no figure is judged.
describeInBrowser('the browser bench, at tiny sizes', () => {
  let cluster: BenchCluster;
  let site: WorkerSite;
  let server: PageServer;
  let browser: Browser;

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 3, pods: 20, writesPerSecond: 0 });
    site = await benchSite();
    server = await startPageServer({ upstream: cluster.sim.url, page: site });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.remove();
    await cluster?.close();
  });

  it('should measure the baseline, informers in a worker and on the main thread, and a React page in a burst', async () => {
    const names = [
      'none',
      'main metadata',
      'worker full',
      'react worker projected',
      'worker full unbatched',
      'worker full floor keep',
      'worker full floor parse',
    ];
    const pages = [...BENCH_PAGES, ...VARIANT_PAGES].filter((p) => names.includes(p.name));
    const burst = { count: 30, perSecond: 300, tailMs: 500 };
    const timing = { warmupMs: 0, windowMs: 300, syncTimeoutMs: 60_000, burst, profile: true, trace: true, allocations: true };
    const results = await runBench(browser, server.url, cluster, { rounds: 1, timing, pages, log: () => {} });

    expect(results.map((r) => r.name)).toEqual(names);
    const figures = Object.fromEntries(results.map((r) => [r.name, r.rounds[0] as PageFigures]));
    for (const name of names) expect(figures[name]).not.toHaveProperty('error');
    for (const name of names.slice(1, -1)) expect(figures[name].held).toEqual({ pods: 20, nodes: 3 });
    // The floor pages received every object: one kept them in its Map, the other dropped them.
    expect(figures['worker full floor parse'].held).toEqual({ pods: 0, nodes: 0 });
    expect(figures.none.held).toEqual({ pods: 0, nodes: 0 });
    // Each page holds what it says: full pods, metadata only, projections (no volumes, no managedFields).
    expect(figures['worker full'].samplePod).toMatchObject({ kind: 'Pod', spec: { containers: expect.any(Array) } });
    expect(figures['main metadata'].samplePod).toMatchObject({ kind: 'PartialObjectMetadata' });
    expect(figures['main metadata'].samplePod).not.toHaveProperty('spec');
    expect(figures['react worker projected'].samplePod).toMatchObject({ status: { phase: expect.any(String) } });
    expect(figures['react worker projected'].samplePod).not.toHaveProperty('spec.volumes');
    expect(figures['react worker projected'].samplePod).not.toHaveProperty('metadata.managedFields');
    // Measured: the main thread worked, the heap grew with the objects, React committed in the burst.
    for (const name of names) expect(figures[name].busyMsPerS).toBeGreaterThan(0);
    expect(results[1].heapPerObject?.median).toBeGreaterThan(0);
    expect(figures['react worker projected'].burst?.commitsPerS).toBeGreaterThan(0);
    // Three goals for each worker design (worker full, worker full unbatched), one for the React page; none for the floors.
    expect(goalLines(results)).toHaveLength(7);
    expect(goalLines(results).filter((line) => line.includes('floor'))).toEqual([]);
    // Each window profiled: the main thread's functions by self time, most first.
    for (const name of names) expect(figures[name].profile?.length).toBeGreaterThan(0);
    const worker = figures['worker full'].profile!;
    expect(worker.map((f) => f.ms)).toEqual([...worker.map((f) => f.ms)].sort((a, b) => b - a));
    // And traced: the main thread's time by kind of work, script among it; and its allocations sampled.
    expect(figures['worker full'].trace?.find((t) => t.name === '= script')?.ms).toBeGreaterThan(0);
    expect(figures['worker full'].allocations?.length).toBeGreaterThan(0);
  }, 120_000);
});

describe("a trace's split", () => {
  it("should count each event's time less its children's, on the page's main thread only, by kind", () => {
    const at = (name: string, ts: number, dur: number, tid = 1) => ({ name, ph: 'X', ts, dur, pid: 1, tid });
    const times = traceSelfTimes([
      { name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid: 1, args: { name: 'CrRendererMain' } },
      at('RunTask', 0, 10_000),
      at('FunctionCall', 1_000, 6_000),
      at('V8.GC_SCAVENGER', 2_000, 1_000),
      { name: 'MessagePort::Accept', ph: 'B', ts: 8_000, pid: 1, tid: 1 },
      { name: 'MessagePort::Accept', ph: 'E', ts: 9_000, pid: 1, tid: 1 },
      at('FunctionCall', 0, 50_000, 2), // another thread
    ]);
    expect(times).toEqual([
      { name: 'FunctionCall', ms: 5 },
      { name: 'RunTask', ms: 3 },
      { name: 'V8.GC_SCAVENGER', ms: 1 },
      { name: 'MessagePort::Accept', ms: 1 },
    ]);
    expect(byKind(times)).toEqual([
      { name: 'script', ms: 5 },
      { name: 'other', ms: 3 },
      { name: 'garbage collection', ms: 1 },
      { name: 'message receipt', ms: 1 },
    ]);
  });
});

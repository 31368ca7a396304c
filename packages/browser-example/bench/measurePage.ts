/**
 * Measures one page of the browser bench in Chromium: loads it, waits for its informers to sync,
 * warms up, then over a fixed window reads the main thread's busy time (CDP
 * `Performance.getMetrics`: `TaskDuration`, Chromium's own account of the renderer main thread's
 * tasks in wall-clock time, garbage collection in them included, and `ThreadTime`, that thread's CPU time) and the page's probe (worst lateness of a 10 ms
 * timer, long tasks, animation-frame gaps); a React page is then given a burst and its commits
 * counted; last, the JS heap used after a full collection (`HeapProfiler.collectGarbage`,
 * `Runtime.getHeapUsage`) and the objects the page holds.
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import type { BenchCluster } from './cluster.ts';
import { startAllocationProfile, startCpuProfile, type SelfTime } from './cpuProfile.ts';
import { startTrace, type TraceTime } from './traceSplit.ts';

/** A page to measure. */
export interface PageConfig {
  /** Its name in the table, e.g. `worker, projected`. */
  name: string;
  /** Its path and query on the page server, e.g. `/?mode=worker&view=projected`. */
  path: string;
  /** A React page: burst it and count commits. */
  react?: boolean;
  /** Count the bytes the tab receives (CDP Network: HTTP bodies as received, WebSocket frames' payloads). */
  countBytes?: boolean;
}

/** The timings of a measurement, in ms, and the burst given to React pages. */
export interface Timing {
  warmupMs: number;
  windowMs: number;
  syncTimeoutMs: number;
  /** The burst: `count` pod updates at `perSecond`, measured until `tailMs` after the last (for it to reach the page). */
  burst: { count: number; perSecond: number; tailMs: number };
  /** Record a CPU profile of the main thread over the window, and report its top functions by self time. Default false. */
  profile?: boolean;
  /** Record a Chromium trace of the window instead, and report the main thread's self time by kind of work. Default false. */
  trace?: boolean;
  /** Sample the main thread's allocations over the window (garbage included), and report its top functions by bytes. Default false. */
  allocations?: boolean;
}

/** What one page measured in one round. */
export interface PageFigures {
  name: string;
  /** From navigation until every informer synced, wall clock. */
  syncMs: number;
  /** Main-thread task time per second of the window (CDP TaskDuration: wall clock, so it counts time the OS gave other processes mid-task). */
  busyMsPerS: number;
  /** Main-thread CPU time per second of the window (CDP ThreadTime). */
  cpuMsPerS: number;
  /** The probe over the window. */
  probe: ProbeFigures;
  /** JS heap used after a full collection, in bytes. */
  heapBytes: number;
  /** Objects held in the page at the end, and in the simulator. */
  held: { pods: number; nodes: number };
  server: { pods: number; nodes: number };
  /** Relists of the page's informers from their start to the end of the window. */
  relists: number;
  /** One pod as the page holds it. */
  samplePod: unknown;
  /** The window's length in seconds. */
  seconds: number;
  /** Writes the cluster made per second over the window. */
  writesPerS: number;
  /** With `countBytes`: bytes received until synced, and per second of the window. */
  bytes?: { toSync: number; perS: number };
  /** React pages: commits per second over the burst, the main thread's busy time and the probe then. */
  burst?: { commitsPerS: number; busyMsPerS: number; cpuMsPerS: number; probe: ProbeFigures; seconds: number };
  /** With `timing.profile`: the main thread's functions with the most self time over the window. */
  profile?: SelfTime[];
  /** With `timing.trace`: the main thread's self time by trace event (kind of work) over the window. */
  trace?: TraceTime[];
  /** With `timing.allocations`: the functions that allocated the most over the window (`ms` holds KiB). */
  allocations?: SelfTime[];
}

/** What the bench reads of the probe's figures (site/probe.ts has them all). */
export interface ProbeFigures {
  worstStallMs: number;
  longTaskMs: number;
  worstFrameGapMs: number;
  [figure: string]: number;
}

/** What a bench page reports on `window.bench` (site/resources.ts). */
interface BenchTab {
  probe: { reset(): void; read(): ProbeFigures };
  synced(): boolean;
  held(): { pods: number; nodes: number };
  samplePod(): unknown;
  relists(): number;
  commits?: number;
  error?: string;
}
type BenchWindow = Window & { bench: BenchTab };

/** The renderer main thread's task time (wall clock) and CPU time so far, in ms. */
async function mainThread(cdp: CDPSession): Promise<{ taskMs: number; cpuMs: number }> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  const value = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return { taskMs: value('TaskDuration'), cpuMs: value('ThreadTime') };
}

/**
 * Starts counting the bytes the page receives: HTTP bodies as they arrive (`Network.dataReceived`'s
 * decoded `dataLength`: a watch's stream counts as it flows, not at its end) and WebSocket frames'
 * payloads (`Network.webSocketFrameReceived`, UTF-8 bytes of a text frame). Returns the count so far.
 */
async function countBytes(cdp: CDPSession): Promise<() => number> {
  let bytes = 0;
  cdp.on('Network.dataReceived', (e: { dataLength: number }) => (bytes += e.dataLength));
  cdp.on('Network.webSocketFrameReceived', (e: { response: { opcode: number; payloadData: string } }) => {
    const { opcode, payloadData } = e.response;
    bytes += opcode === 1 ? Buffer.byteLength(payloadData, 'utf8') : Buffer.byteLength(payloadData, 'base64');
  });
  await cdp.send('Network.enable');
  return () => bytes;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Main-thread busy ms per second and the probe over `run()`, which returns when the window ends. */
async function overWindow(page: Page, cdp: CDPSession, run: () => Promise<void>) {
  await page.evaluate(() => (window as unknown as BenchWindow).bench.probe.reset());
  const t0 = await mainThread(cdp);
  const w0 = performance.now();
  await run();
  const t1 = await mainThread(cdp);
  const seconds = (performance.now() - w0) / 1000;
  const probe = await page.evaluate(() => (window as unknown as BenchWindow).bench.probe.read());
  return { busyMsPerS: (t1.taskMs - t0.taskMs) / seconds, cpuMsPerS: (t1.cpuMs - t0.cpuMs) / seconds, probe, seconds };
}

/** Loads `config` in a new browser context and measures it. */
export async function measurePage(
  browser: Browser,
  url: string,
  config: PageConfig,
  cluster: BenchCluster,
  timing: Timing,
): Promise<PageFigures> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const received = config.countBytes ? await countBytes(cdp) : undefined;
    const start = performance.now();
    await page.goto(url + config.path);
    await page.waitForFunction(
      () => (window as unknown as BenchWindow).bench?.synced() || (window as unknown as BenchWindow).bench?.error,
      undefined,
      {
        timeout: timing.syncTimeoutMs,
        polling: 100,
      },
    );
    const syncMs = performance.now() - start;
    const bytesToSync = received?.();
    const failed = await page.evaluate(() => (window as unknown as BenchWindow).bench.error);
    if (failed) throw new Error(`${config.name}: ${failed}`);
    await sleep(timing.warmupMs);
    const writes0 = cluster.writes();
    const profiling = timing.profile ? await startCpuProfile(cdp) : undefined;
    const tracing = timing.trace ? await startTrace(cdp) : undefined;
    const sampling = timing.allocations ? await startAllocationProfile(cdp) : undefined;
    const bytes0 = received?.();
    const steady = await overWindow(page, cdp, () => sleep(timing.windowMs).then(() => undefined));
    const profile = await profiling?.();
    const trace = await tracing?.();
    const allocations = await sampling?.();
    const writesPerS = (cluster.writes() - writes0) / steady.seconds;
    const bytes = received && { toSync: bytesToSync!, perS: (received() - bytes0!) / steady.seconds };
    let burst: PageFigures['burst'];
    if (config.react) {
      const commits0 = await page.evaluate(() => (window as unknown as BenchWindow).bench.commits ?? 0);
      const { count, perSecond, tailMs } = timing.burst;
      const during = await overWindow(page, cdp, () => cluster.burst(count, perSecond).then(() => sleep(tailMs).then(() => undefined)));
      const commits = (await page.evaluate(() => (window as unknown as BenchWindow).bench.commits ?? 0)) - commits0;
      burst = { ...during, commitsPerS: commits / during.seconds };
    }
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    const held = await page.evaluate(() => (window as unknown as BenchWindow).bench.held());
    const relists = await page.evaluate(() => (window as unknown as BenchWindow).bench.relists());
    const samplePod = await page.evaluate(() => (window as unknown as BenchWindow).bench.samplePod());
    if (errors.length > 0) throw new Error(`${config.name}: ${errors.join('; ')}`);
    return {
      name: config.name,
      syncMs,
      ...steady,
      writesPerS,
      heapBytes: usedSize,
      held,
      server: cluster.held(),
      relists,
      samplePod,
      burst,
      profile,
      trace,
      allocations,
      ...(bytes && { bytes }),
    };
  } finally {
    await context.close();
  }
}

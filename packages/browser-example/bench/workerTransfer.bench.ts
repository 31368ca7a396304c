/**
 * What a tab's main thread pays for informers in a SharedWorker, measured in headless Chromium at
 * 30,000 realistic pods, two ways:
 *
 * - snapshot: the worker posts its whole store (an array of every pod) to the tab on each change,
 *   and the tab keeps the latest (structured clone of everything, every time);
 * - channel: the worker serves its informers over the channel and the tab runs its own informer, a
 *   mirror, fed by list pages once, then by the changes only.
 *
 * Main-thread time is Chromium's own account of the tab's renderer main thread (CDP
 * `Performance.getMetrics`, `TaskDuration`): for the initial sync (from navigation until the tab
 * holds every pod) and per update (one pod changed in the simulator, until the tab has it).
 *
 *   node packages/browser-example/bench/workerTransfer.bench.ts [--pods 30000] [--updates 20] [--json]
 */
import { createLoadGenerator, objectStoreTarget, startApiServer } from '@rxinformer/apiserver-sim';
import type { CDPSession, Page } from 'playwright-core';
import { startPageServer } from '../src/pageServer.ts';
import { launchChromium } from '../test/chromium.ts';
import { buildWorkerSite } from '../test/workerSite.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const PODS = Number(arg('--pods') ?? 30_000);
const UPDATES = Number(arg('--updates') ?? 20);
const NAMESPACES = ['default', 'web', 'batch'];

/** What one way cost the tab's main thread. */
interface Figures {
  mode: 'snapshot' | 'channel' | 'channel, freeze: false';
  /** Main-thread ms from navigation until every pod was held. */
  initialSyncMs: number;
  /** Wall-clock ms of the same. */
  initialSyncWallMs: number;
  /** Main-thread ms per update, on average. */
  perUpdateMs: number;
  /** The tab's JS heap once synced, in MB. */
  heapMb: number;
}

/** The tab's main-thread time so far, in ms, and its JS heap in bytes. */
async function metrics(cdp: CDPSession): Promise<{ taskMs: number; heap: number }> {
  const { metrics: list } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  const value = (name: string) => list.find((m) => m.name === name)?.value ?? 0;
  return { taskMs: value('TaskDuration') * 1000, heap: value('JSHeapUsedSize') };
}

const tabValue = <T>(page: Page, read: string): Promise<T> => page.evaluate(`window.tab && window.tab.${read}`) as Promise<T>;

async function measure(
  mode: Figures['mode'],
  url: string,
  touch: (i: number) => void,
  browser: Awaited<ReturnType<typeof launchChromium>>,
) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const wallStart = performance.now();
    await page.goto(`${url}/?${mode === 'snapshot' ? 'mode=snapshot' : mode === 'channel' ? 'mode=channel' : 'mode=channel&freeze=false'}`);
    const start = await metrics(cdp);
    await page.waitForFunction((n) => (window as unknown as { tab?: { pods(): string[] } }).tab?.pods().length === n, PODS, {
      timeout: 600_000,
      polling: 100,
    });
    const wallMs = performance.now() - wallStart;
    const synced = await metrics(cdp);
    let updates = await tabValue<number>(page, 'updates');
    for (let i = 0; i < UPDATES; i++) {
      touch(i);
      await page.waitForFunction((n) => (window as unknown as { tab: { updates: number } }).tab.updates > n, updates, { polling: 20 });
      updates = await tabValue<number>(page, 'updates');
    }
    const done = await metrics(cdp);
    return {
      mode,
      // The page's own script and the polling are included on both sides alike.
      initialSyncMs: Math.round(synced.taskMs - start.taskMs),
      initialSyncWallMs: Math.round(wallMs),
      perUpdateMs: Math.round(((done.taskMs - synced.taskMs) / UPDATES) * 10) / 10,
      heapMb: Math.round(synced.heap / 1e5) / 10,
    } satisfies Figures;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const sim = await startApiServer({ port: 0, seed: 35, namespaces: NAMESPACES });
  const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: NAMESPACES, seed: 35 });
  load.seed(PODS);
  const pods = sim.storage.list('pods').slice(0, UPDATES);
  let round = 0;
  const touch = (i: number) => {
    const p = pods[i % pods.length];
    const current = sim.storage.get('pods', p.metadata!.namespace, p.metadata!.name!);
    sim.storage.update(
      'pods',
      { ...current, metadata: { ...current.metadata, labels: { bench: String(++round) } } },
      p.metadata!.namespace,
      p.metadata!.name!,
    );
  };
  const site = await buildWorkerSite({ minify: true });
  const server = await startPageServer({ upstream: sim.url, page: site });
  const browser = await launchChromium();
  const results: Figures[] = [];
  try {
    for (const mode of ['snapshot', 'channel', 'channel, freeze: false'] as const)
      results.push(await measure(mode, server.url, touch, browser));
  } finally {
    await browser.close();
    await server.close();
    await site.remove();
    await sim.close();
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify({ pods: PODS, updates: UPDATES, results }, null, 2));
  else {
    console.log(`${PODS} pods, ${UPDATES} updates; the tab's main thread (Chromium's TaskDuration):`);
    for (const r of results)
      console.log(
        `  ${r.mode.padEnd(22)} initial sync ${r.initialSyncMs} ms (wall ${r.initialSyncWallMs} ms), ` +
          `per update ${r.perUpdateMs} ms, heap ${r.heapMb} MB`,
      );
  }
}

await main();

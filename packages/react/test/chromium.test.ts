/**
 * React pages in headless Chromium against the simulator, through the browser example's page
 * server: StrictMode's mount, unmount and remount with one list and one watch, a remount within the
 * grace without a relist, live updates that re-render only their row, commits under a burst of
 * writes (at most one per animation frame), and the README's first program (examples/react).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { ObjectStore } from '@rxinformer/apiserver-sim';
import { startBrowserExample, type BrowserExample } from '@rxinformer/browser-example/browserExample';
import { browserTestsRun, launchChromium } from '@rxinformer/browser-example/chromium';
import { startPageServer, type PageServer } from '@rxinformer/browser-example/pageServer';
import type { KubeObject } from '@rxinformer/core';
import { buildReactPage } from './reactPage.ts';
import type { PageProbe } from './page/measuredPage.tsx';

const describeInBrowser = browserTestsRun('the React pages test') ? describe : describe.skip;

/** The pod requests a page made: lists and watches. */
function podRequests(page: Page): { lists: number; watches: number } {
  const counts = { lists: 0, watches: 0 };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname !== '/api/v1/pods') return;
    const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    // A streaming list (the reflector's default) is one request that lists and goes on as the watch.
    if (watch && url.searchParams.get('sendInitialEvents') === 'true') counts.lists++;
    if (watch) counts.watches++;
    else counts.lists++;
  });
  return counts;
}

const probe = (page: Page): Promise<Omit<PageProbe, 'running' | 'show'> & { now: number }> =>
  page.evaluate(() => {
    const { commits, frames, events, rowRenders } = (window as unknown as { rx: PageProbe }).rx;
    return { commits, frames, events, rowRenders: { ...rowRenders }, now: performance.now() };
  });

describeInBrowser('@rxinformer/react in headless Chromium', () => {
  let example: BrowserExample | undefined;
  let firstProgram: PageServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let requests: { lists: number; watches: number };
  const errors: string[] = [];

  const serverKeys = () =>
    example!.sim.storage
      .list('pods')
      .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)
      .sort();
  const pageKeys = async () => (await page.$$eval('#pods tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.key!))).sort();
  const showsServer = async () => {
    const want = serverKeys();
    await page.waitForFunction((n) => document.querySelectorAll('#pods tr').length === n, want.length);
    expect(await pageKeys()).toEqual(want);
  };

  beforeAll(async () => {
    const [measured, first] = await Promise.all([buildReactPage('measuredPage'), buildReactPage('firstProgram')]);
    example = await startBrowserExample({ pods: 6, seed: 3, page: measured });
    firstProgram = await startPageServer({ upstream: example.sim.url, page: first });
    browser = await launchChromium();
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    requests = podRequests(page);
    await page.goto(`${example.url}/?grace=300`);
    await page.waitForSelector('#status[data-phase="watching"][data-synced="true"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await firstProgram?.close();
    await example?.close();
  });

  it("should list and watch once through StrictMode's mount, unmount and remount, and show every pod", async () => {
    await showsServer();
    expect(requests).toEqual({ lists: 1, watches: 1 });
    expect(errors).toEqual([]);
  });

  it('should keep the watch, without a relist, when the provider is unmounted and mounted again within the grace', async () => {
    await page.evaluate(() => {
      const { rx } = window as unknown as { rx: PageProbe };
      rx.show(false);
      setTimeout(() => rx.show(true), 100); // a route change: gone, and back a moment later
    });
    await page.waitForSelector('#hidden', { state: 'detached' });
    example!.sim.storage.create('pods', newPod('after-remount'), 'default');
    await page.waitForSelector('tr[data-key="default/after-remount"]'); // through the watch that stayed open
    expect(requests).toEqual({ lists: 1, watches: 1 });
  });

  it('should stop once the grace has passed, and relist when mounted again', async () => {
    await page.evaluate(() => (window as unknown as { rx: PageProbe }).rx.show(false));
    await page.waitForFunction(() => !(window as unknown as { rx: PageProbe }).rx.running()); // 300 ms later
    example!.sim.storage.create('pods', newPod('while-stopped'), 'default');
    await page.evaluate(() => (window as unknown as { rx: PageProbe }).rx.show(true));
    await page.waitForSelector('tr[data-key="default/while-stopped"]');
    await showsServer();
    expect(requests).toEqual({ lists: 2, watches: 2 });
  });

  it("should re-render only the changed pod's row on a live update", async () => {
    const before = await probe(page);
    const [target] = serverKeys();
    const [namespace, name] = target.split('/');
    const current = example!.sim.storage.get('pods', namespace, name) as KubeObject & { status?: { phase?: string } };
    const phase = current.status?.phase === 'Failed' ? 'Succeeded' : 'Failed';
    example!.sim.storage.update('pods', { ...current, status: { phase } }, namespace, name, { subresource: 'status' });
    await page.waitForSelector(`tr[data-key="${target}"][data-phase="${phase}"]`);
    const after = await probe(page);
    const rerendered = Object.keys(after.rowRenders).filter((k) => after.rowRenders[k] !== before.rowRenders[k]);
    expect(rerendered).toEqual([target]);
    expect(after.rowRenders[target] - before.rowRenders[target]).toBe(2); // one render, twice under StrictMode
  });

  it('should commit at most once per animation frame under a burst of 200 writes a second', async () => {
    const before = await probe(page);
    const writes = await writeBurst(example!.sim.storage, { ratePerSecond: 200, count: 200 });
    await page.waitForFunction((n) => (window as unknown as { rx: PageProbe }).rx.events >= n, before.events + writes.count);
    const after = await probe(page);
    await showsServer();
    const [commits, frames, events, seconds] = [
      after.commits - before.commits,
      after.frames - before.frames,
      after.events - before.events,
      (after.now - before.now) / 1000,
    ];
    console.log(
      `${writes.count} writes in ${(writes.ms / 1000).toFixed(2)} s (${((writes.count * 1000) / writes.ms).toFixed(0)}/s): ` +
        `${events} events in ${seconds.toFixed(2)} s, ${commits} commits (${(commits / seconds).toFixed(1)}/s) ` +
        `over ${frames} frames (${(frames / seconds).toFixed(1)}/s)`,
    );
    expect(events).toBe(writes.count);
    expect(commits).toBeLessThanOrEqual(frames + 1); // one notification per frame, one commit per notification
    expect(commits).toBeLessThan(events / 2);
    expect(errors).toEqual([]);
  });

  it("should run the README's first program (examples/react) from source", async () => {
    const first = await browser!.newPage();
    const firstErrors: string[] = [];
    first.on('pageerror', (e) => firstErrors.push(e.message));
    try {
      await first.goto(firstProgram!.url);
      const pods = example!.sim.storage.list('pods') as (KubeObject & { status?: { phase?: string } })[];
      const running = pods.filter((p) => p.status?.phase === 'Running').length;
      await first.waitForFunction(
        (text) => document.querySelector('#summary')?.textContent === text,
        `watching: ${running} of ${pods.length} pods running`,
      );
      expect(await first.$$eval('li', (items) => items.length)).toBe(pods.length);
      expect(firstErrors).toEqual([]);
    } finally {
      await first.close();
    }
  });
});

/** A pod for the simulator's storage. */
function newPod(name: string): KubeObject {
  return { metadata: { name }, spec: { containers: [{ name: 'main', image: 'nginx' }] }, status: { phase: 'Pending' } } as KubeObject;
}

/**
 * Writes `count` changes (an annotation) to the simulator's pods at `ratePerSecond` by the wall clock (as
 * many per tick as the time passed owes: a busy machine delays ticks, not writes); resolves with
 * the count and how long it took.
 */
function writeBurst(storage: ObjectStore, { ratePerSecond, count }: { ratePerSecond: number; count: number }) {
  const pods = storage.list('pods') as KubeObject[];
  const started = Date.now();
  let done = 0;
  return new Promise<{ count: number; ms: number }>((resolve) => {
    const tick = setInterval(() => {
      const owed = Math.min(count, Math.floor(((Date.now() - started) * ratePerSecond) / 1000));
      for (; done < owed; done++) {
        const { namespace, name } = pods[done % pods.length].metadata!;
        const current = storage.get('pods', namespace, name!) as KubeObject;
        const metadata = { ...current.metadata, annotations: { ...current.metadata?.annotations, burst: String(done) } };
        storage.update('pods', { ...current, metadata }, namespace, name!); // a change every time: one event each
      }
      if (done === count) {
        clearInterval(tick);
        resolve({ count, ms: Date.now() - started });
      }
    }, 5);
  });
}

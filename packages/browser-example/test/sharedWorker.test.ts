import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { pod } from '@rxinformer/testing';
import { startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { startPageServer, type PageServer } from '../src/pageServer.ts';
import { browserTestsRun, launchChromium } from './chromium.ts';
import { closeRig, buildWorkerSite, type WorkerSite } from './workerSite.ts';

/** What a tab reports (test/sharedWorker/page.ts). */
interface Tab {
  synced(): boolean;
  pods(): string[];
  configMaps(): string[];
  arrivals: Record<string, number>;
  error?: string;
}
type TabWindow = Window & { tab: Tab };

const describeInBrowser = browserTestsRun('the SharedWorker test') ? describe : describe.skip;

// Two tabs of one browser (two pages of one context) with informers over one SharedWorker, which
// lists and watches through the page server and the fault proxy (counting watches) to the simulator.
describeInBrowser('informers in a SharedWorker, in headless Chromium', () => {
  let server: TestServer;
  let site: WorkerSite;
  let pages: PageServer;
  let browser: Browser;
  const tabs: Page[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer('sim');
    for (let i = 0; i < 5; i++) await server.api.create('/api/v1/namespaces/default/pods', pod(`seed-${i}`, { namespace: null }));
    site = await buildWorkerSite();
    pages = await startPageServer({ upstream: server.proxy.url, page: site });
    browser = await launchChromium();
    const context = await browser.newContext();
    for (let i = 0; i < 2; i++) {
      const tab = await context.newPage();
      tab.setDefaultTimeout(20_000);
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(pages.url);
      tabs.push(tab);
    }
  }, 120_000);

  afterAll(() => closeRig({ browser, pages, site, server }));

  it('should sync both tabs from one watch per resource, and bring a new object to both', async () => {
    for (const tab of tabs) await tab.waitForFunction(() => (window as unknown as TabWindow).tab.synced());
    const seeded = ['default/seed-0', 'default/seed-1', 'default/seed-2', 'default/seed-3', 'default/seed-4'];
    for (const tab of tabs) expect(await tab.evaluate(() => (window as unknown as TabWindow).tab.pods())).toEqual(seeded);

    const created = Date.now();
    await server.api.create('/api/v1/namespaces/default/pods', pod('late', { namespace: null }));
    const arrivals: number[] = [];
    for (const tab of tabs) {
      await tab.waitForFunction(() => (window as unknown as TabWindow).tab.arrivals['default/late'] !== undefined);
      arrivals.push(await tab.evaluate(() => (window as unknown as TabWindow).tab.arrivals['default/late']));
    }
    console.log(`the new pod reached the tabs ${arrivals.map((t) => `${t - created} ms`).join(' and ')} after it was created`);
    // One informer per resource in the worker, whatever the number of tabs: one watch of pods, one of configmaps.
    expect(server.proxy.counts.watches).toBe(2);
    expect(await tabs[1].evaluate(() => (window as unknown as TabWindow).tab.error)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('should keep serving one tab when another closes, and give a new tab the cache without a new watch', async () => {
    await tabs[0].close();
    await server.api.create('/api/v1/namespaces/default/pods', pod('after-close', { namespace: null }));
    await tabs[1].waitForFunction(() => (window as unknown as TabWindow).tab.arrivals['default/after-close'] !== undefined);
    const third = await tabs[1].context().newPage();
    third.on('pageerror', (e) => errors.push(e.message));
    await third.goto(pages.url);
    await third.waitForFunction(() => (window as unknown as TabWindow).tab.synced());
    expect(await third.evaluate(() => (window as unknown as TabWindow).tab.pods())).toEqual(
      await tabs[1].evaluate(() => (window as unknown as TabWindow).tab.pods()),
    );
    expect(server.proxy.counts.watches).toBe(2);
    expect(errors).toEqual([]);
  });
});

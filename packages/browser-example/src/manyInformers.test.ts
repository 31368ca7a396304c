import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pod } from '@rxinformer/testing';
import { startBrowserExample, type BrowserExample } from './browserExample.ts';
import { devCertificate, spkiHash } from './devCertificate.ts';
import { acceptCertificate, browserTestsRun, launchChromium } from '../test/chromium.ts';

// Ten informers in one tab besides the page's own (`?informers=10`), as a dashboard holds them:
// over HTTP/2 every watch is live; over HTTP/1.1 Chromium keeps 6 connections per origin, and the
// status of each watch past them says `connecting`, with the typed error once it gave up.
const VIEWS = 10;

const describeInBrowser = browserTestsRun('the many-informers browser test') ? describe : describe.skip;

/** What a view shows, read from its `<li>`. */
interface ViewState {
  view: string;
  phase: string;
  count: string;
  error: string;
  added: string;
  addedAt: number;
  text: string;
}

const views = (page: Page): Promise<ViewState[]> =>
  page.$$eval('#views li', (lis) =>
    lis.map((li) => {
      const d = (li as HTMLElement).dataset;
      const text = li.textContent ?? '';
      return {
        view: d.view!,
        phase: d.phase ?? '',
        count: d.count ?? '',
        error: d.error ?? '',
        added: d.added ?? '',
        addedAt: Number(d.addedAt),
        text,
      };
    }),
  );

describeInBrowser('many informers in one tab, in headless Chromium', () => {
  let certDir: string;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  const started: BrowserExample[] = [];

  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'many-informers-tls-'));
  });
  afterAll(async () => {
    await browser?.close();
    for (const example of started) await example.close();
    await rm(certDir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  const open = async (url: string): Promise<Page> => {
    const page = await browser!.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(url);
    return page;
  };

  it('should keep every informer live over HTTP/2: an object created after sync reaches each', async () => {
    const tls = await devCertificate(certDir);
    const example = await startBrowserExample({ pods: 3, seed: 7, tls });
    started.push(example);
    // Chromium accepts this one certificate, by its public key, and no other certificate error.
    browser = await launchChromium([acceptCertificate(spkiHash(tls.cert))]);
    const page = await open(`${example.url}/?informers=${VIEWS}`);
    await page.waitForFunction((n) => document.querySelectorAll('#views li[data-phase="watching"][data-count="3"]').length === n, VIEWS, {
      polling: 50,
    });
    await page.waitForSelector('#status[data-phase="watching"]');
    // Every API request of the tab went over HTTP/2.
    const protocols = await page.evaluate(() =>
      [...new Set(performance.getEntriesByType('resource').map((e) => (e as PerformanceResourceTiming).nextHopProtocol))].sort(),
    );
    expect(protocols).toEqual(['h2']);

    const createdAt = Date.now();
    example.sim.storage.create('pods', pod('after-sync', { namespace: null }), 'default');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#views li[data-added="default/after-sync"]').length === n,
      VIEWS,
      { polling: 10, timeout: 20_000 }, // a generous wait, not a timing assertion
    );
    await page.waitForSelector('tr[data-key="default/after-sync"]');
    const seen = await views(page);
    expect(seen.map((v) => [v.phase, v.count])).toEqual(Array.from({ length: VIEWS }, () => ['watching', '4']));
    const latencies = seen.map((v) => v.addedAt - createdAt);
    console.log(
      `HTTP/2, ${VIEWS + 1} informers in one tab: the new pod reached the ${VIEWS} views in ${Math.min(...latencies)}–${Math.max(...latencies)} ms`,
    );
    await page.close();
  });

  it('should show the watches past the 6 connections of HTTP/1.1 as connecting, with the typed error, and never as watching', async () => {
    // Plain HTTP/1.1, a minified page (error names must survive), and a short watch-open timeout.
    const example = await startBrowserExample({ pods: 3, seed: 8, minify: true });
    started.push(example);
    browser ??= await launchChromium();
    // Paged lists: a streamed one is a watch, and would wait for a connection as the watches do.
    const page = await open(`${example.url}/?informers=${VIEWS}&watchOpenTimeoutMs=2000&pageSize=500`);
    // Every list is served (they queue before the watches), so every view syncs.
    await page.waitForFunction((n) => document.querySelectorAll('#views li[data-count="3"]').length === n, VIEWS, { polling: 50 });
    // Once a first watch gave up (2 s), the connections went long ago: 6 watches hold Chromium's 6,
    // the page's own informer's and 5 views', or 6 views'.
    await page.waitForSelector('#views li[data-error="RequestTimeoutError WatchNotOpened"]');
    const ownLive = (await page.getAttribute('#status', 'data-phase')) === 'watching';
    const liveViews = (await views(page)).filter((v) => v.phase === 'watching').map((v) => v.view);
    expect(liveViews.length + (ownLive ? 1 : 0)).toBe(6);
    // Each view past them says it: connecting, and once its watch gave up, the typed error (its
    // class name kept by a minified bundle) with the cause in the message.
    const stale = (await views(page)).filter((v) => !liveViews.includes(v.view)).map((v) => v.view);
    for (const view of stale) {
      await page.waitForFunction(
        (v) => {
          const li = document.querySelector<HTMLElement>(`#views li[data-view="${v}"]`);
          return li?.dataset.phase === 'connecting' && li.dataset.error === 'RequestTimeoutError WatchNotOpened';
        },
        view,
        { polling: 20, timeout: 60_000 },
      );
    }
    const text = (await views(page)).find((v) => v.view === stale[0])!.text;
    expect(text).toContain('connecting');
    expect(text).toContain('RequestTimeoutError: the watch /api/v1/pods?');
    expect(text).toContain('at most 6 HTTP/1.1 connections per origin');
    expect(text).toContain('serve the API over HTTP/2');

    // A change reaches the live watches and no other: the stale views are the ones whose status says so.
    example.sim.storage.create('pods', pod('after-sync', { namespace: null }), 'default');
    const live = liveViews.length;
    await page.waitForFunction((n) => document.querySelectorAll('#views li[data-added="default/after-sync"]').length === n, live, {
      timeout: 20_000,
    });
    const after = await views(page);
    expect(after.filter((v) => v.added === 'default/after-sync').map((v) => v.view)).toEqual(liveViews);
    for (const v of after.filter((s) => stale.includes(s.view))) {
      expect([v.count, v.phase === 'watching']).toEqual(['3', false]);
    }
    console.log(`HTTP/1.1, ${VIEWS + 1} informers in one tab: ${live + (ownLive ? 1 : 0)} live, ${stale.length} views connecting`);
    await page.close();
  });
});

/**
 * The IndexedDB snapshot store in Chromium: a page's informer lists the ConfigMaps of a namespace
 * and saves its snapshot in IndexedDB; the page, loaded again, shows the snapshot at once (its
 * handler told so), resumes the watch from its resource version without a list, and hears only
 * what changed while it was gone. Real HTTP to the simulator, through the page server.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { startPageServer, type PageServer } from '../src/pageServer.ts';
import { browserTestsRun, launchChromium } from './chromium.ts';
import { closeRig, buildSnapshotSite, type WorkerSite } from './workerSite.ts';

/** What the page reports (test/snapshotPage/page.ts). */
interface Snap {
  calls: string[];
  requests: string[];
  synced(): boolean;
  start(): string | undefined;
  save(): Promise<void>;
}
type SnapWindow = Window & { snap: Snap };

const describeInBrowser = browserTestsRun('the IndexedDB snapshot test') ? describe : describe.skip;
const cm = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });

describeInBrowser('indexedDbSnapshotStore in headless Chromium', () => {
  let server: TestServer;
  let site: WorkerSite;
  let pages: PageServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sim');
    site = await buildSnapshotSite();
    pages = await startPageServer({ upstream: server.proxy.url, page: site });
    browser = await launchChromium();
  }, 120_000);

  afterAll(() => closeRig({ browser, pages, site, server }));

  const report = (page: Page) =>
    page.evaluate(() => ({ ...(window as unknown as SnapWindow).snap, start: (window as unknown as SnapWindow).snap.start() }));

  it('should save a page informer cache, and start from it warm when the page is loaded again', async () => {
    const ns = await server.namespace('idb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    for (const name of ['a', 'b']) await server.api.create(path, cm(name, '1'));
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`${pages.url}/?ns=${ns}`);
    await page.waitForFunction(() => (window as unknown as SnapWindow).snap.synced());
    const cold = await report(page);
    expect(cold.start).toBe('cold');
    expect([...cold.calls].sort()).toEqual(['add a=1 initial', 'add b=1 initial']);
    await page.evaluate(() => (window as unknown as SnapWindow).snap.save());

    // While the page is gone: b changes.
    await server.api.update(`${path}/b`, { ...(await server.api.get(`${path}/b`)), data: { value: '2' } });
    await page.reload();
    await page.waitForFunction(() => (window as unknown as SnapWindow).snap.calls.length >= 3);
    const warm = await report(page);
    expect(warm.start).toBe('restored');
    expect([...warm.calls.slice(0, 2)].sort()).toEqual(['add a=1 initial snapshot', 'add b=1 initial snapshot']);
    expect(warm.calls.slice(2)).toEqual(['update b=1->b=2']);
    await page.waitForFunction(() => (window as unknown as SnapWindow).snap.synced());
    // A watch from the snapshot's resource version, and its check: no list.
    expect(warm.requests.filter((r) => !r.includes('watch=') && !r.endsWith('limit=1'))).toEqual([]);
    expect(warm.requests.some((r) => r.includes('watch=') && /resourceVersion=\d/.test(r))).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);
});

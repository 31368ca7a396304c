/**
 * An Angular app (examples/angular: standalone components, zoneless, strict templates) installs
 * the core and angular tarballs, is built by the Angular CLI, and shows live pods in headless
 * Chromium through the same-origin proxy: churn, a namespace filter that re-renders only what it
 * changes, a dropped watch and failed requests, and no console error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserTestsRun, launchChromium } from '@rxinformer/browser-example/chromium';
import { startPageServer, type PageServer } from '@rxinformer/browser-example/pageServer';
import { collectErrors, renders, rowKeys, selectNamespace, tableMutations, waitForPhase, watchTable } from './angularPage.ts';
import {
  churn,
  converges,
  createNamespace,
  createPod,
  deletePod,
  dropWatches,
  failNext,
  relabelPod,
  serverPodKeys,
  setPodPhase,
} from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';
import { readmeProgram } from './readme.ts';

const describeInBrowser = browserTestsRun('the Angular app test') ? describe : describe.skip;

/** The packages the app installs: core and angular, and the simulator for `npx rxinformer-apiserver`. */
const PACKAGES = ['@rxinformer/core', '@rxinformer/angular', '@rxinformer/apiserver-sim'];

describeInBrowser('an Angular app built by the Angular CLI from the tarballs', () => {
  let consumer: Consumer;
  let sim: { url: string };
  let server: PageServer | undefined;
  let browser: Browser | undefined;
  let tab: Page;
  let messages: ReturnType<typeof collectErrors>;

  beforeAll(async () => {
    const started = Date.now();
    consumer = await createConsumer(
      'angular',
      packedFromManifest().filter((p) => PACKAGES.includes(p.name)),
    );
    console.log(`npm install of the Angular app and the tarballs: ${Date.now() - started} ms`);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await consumer?.dispose();
  });

  it("should hold the package README's first program, word for word", () => {
    expect(readFileSync(join(consumer.dir, 'first-program/main.ts'), 'utf8')).toBe(
      readmeProgram('examples/angular/first-program/main.ts', 'packages/angular/README.md'),
    );
  });

  it('should build with ng build (strict templates, production) with no warning', async () => {
    const started = Date.now();
    const { stdout, stderr } = await consumer.run('npm', ['run', 'build']);
    console.log(`ng build of both projects: ${Date.now() - started} ms`);
    const output = `${stdout}\n${stderr}`;
    expect(output).toContain('Application bundle generation complete');
    expect(output).not.toMatch(/WARNING|▲/);
    expect(readFileSync(join(consumer.dir, 'dist/live-pods/browser/index.html'), 'utf8')).toContain('<app-root');
  }, 180_000);

  it('should show rows that appear, change and disappear with churn', async () => {
    sim = await startSimulator(consumer);
    for (const namespace of ['web', 'batch']) await createNamespace(sim.url, namespace);
    for (let i = 0; i < 4; i++) for (const namespace of ['web', 'batch']) await createPod(sim.url, `${namespace}-${i}`, namespace);
    await churn(sim.url, 0);
    server = await startPageServer({ upstream: sim.url, page: { root: join(consumer.dir, 'dist/live-pods/browser') } });
    browser = await launchChromium();
    tab = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    messages = collectErrors(tab);
    await tab.goto(server.url);
    await tab.waitForSelector('#status[data-phase="watching"]', { timeout: 20_000 });
    const sorted = async () => (await rowKeys(tab)).sort();
    await converges(sorted, () => serverPodKeys(sim.url));
    expect(await rowKeys(tab)).toEqual(await serverPodKeys(sim.url)); // namespace, then name

    await churn(sim.url, 1);
    await setPodPhase(sim.url, 'web-0', 'Failed', 'web');
    await waitForPhase(tab, 'web/web-0', 'Failed');
    expect(await converges(sorted, () => serverPodKeys(sim.url))).toHaveLength(8 + 12 + 6);
    expect(await tab.textContent('#summary')).toMatch(/Pending\s*\d+.*Failed\s*1/s);
    expect(messages.errors).toEqual([]);
  }, 60_000);

  it('should re-render only the rows a namespace change adds or removes, and nothing for changes in other namespaces', async () => {
    const before = await rowKeys(tab);
    await watchTable(tab);
    await selectNamespace(tab, 'web');
    await tab.waitForFunction(() =>
      [...document.querySelectorAll('#pods tr')].every((tr) => tr.getAttribute('data-key')?.startsWith('web/')),
    );
    const web = await rowKeys(tab);
    expect(web).toEqual(before.filter((k) => k.startsWith('web/')));
    const filtered = await tableMutations(tab);
    // The rows of other namespaces removed, one mutation each; the web rows untouched.
    expect(filtered.every((m) => m.type === 'childList' && m.added === 0 && m.removed === 1 && !m.key?.startsWith('web/'))).toBe(true);
    expect(filtered).toHaveLength(before.length - web.length);

    await watchTable(tab);
    const rendersBefore = await renders(tab);
    await relabelPod(sim.url, 'batch-0', 'x', 'batch');
    await setPodPhase(sim.url, 'batch-1', 'Succeeded', 'batch');
    await createPod(sim.url, 'elsewhere', 'default');
    await deletePod(sim.url, 'batch-2', 'batch');
    await setPodPhase(sim.url, 'web-1', 'Succeeded', 'web'); // the marker: in the watch stream after the others
    await waitForPhase(tab, 'web/web-1', 'Succeeded');
    const after = await renders(tab);
    expect(after.table - rendersBefore.table).toBe(1); // the web change only
    expect(after.log - rendersBefore.log).toBe(1);
    const changed = await tableMutations(tab);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((m) => m.key === 'web/web-1' && m.type !== 'childList')).toBe(true);

    await selectNamespace(tab, '');
    await converges(
      async () => (await rowKeys(tab)).sort(),
      () => serverPodKeys(sim.url),
    );
    expect(messages.errors).toEqual([]);
  }, 60_000);

  it('should recover after a dropped watch and failed requests, its status showing both', async () => {
    await failNext(sim.url, 1, 503, 'watch');
    expect(await dropWatches(sim.url)).toMatchObject({ ok: true, hit: 1 });
    await tab.waitForFunction(() => /backingOff.*last error: 503 /.test(document.querySelector('#status')?.textContent ?? ''), null, {
      timeout: 20_000,
    });
    await churn(sim.url, 2);
    await tab.waitForSelector('#status[data-phase="watching"]', { timeout: 20_000 });
    await converges(
      async () => (await rowKeys(tab)).sort(),
      () => serverPodKeys(sim.url),
    );
    expect(await tab.textContent('#status')).toMatch(/^watching · synced · 0 relists · [1-9]\d* reconnects?$/);
    await tab.screenshot({ path: join(consumer.dir, 'live-pods.png') });
    // The page logged nothing; Chromium reported the stream the server cut and the 503.
    expect(messages.errors).toEqual([]);
    expect(messages.network).toEqual([
      expect.stringContaining('net::ERR_INCOMPLETE_CHUNKED_ENCODING'),
      expect.stringContaining('status of 503'),
    ]);
  }, 60_000);

  it('should run the first program against the same cluster', async () => {
    const first = await startPageServer({ upstream: sim.url, page: { root: join(consumer.dir, 'dist/first-program/browser') } });
    try {
      const page = await browser!.newPage();
      const { errors } = collectErrors(page);
      await page.goto(first.url);
      const count = (await serverPodKeys(sim.url)).length;
      await page.waitForFunction((n) => document.querySelectorAll('li').length === n, count, { timeout: 20_000 });
      expect(await page.textContent('#summary')).toMatch(new RegExp(`^watching: \\d+ of ${count} pods running$`));
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await first.close();
    }
  }, 60_000);
});

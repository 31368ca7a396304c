import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { KubeObject } from '@rxinformer/core';
import { startBrowserExample, type BrowserExample } from './browserExample.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate, spkiHash } from './devCertificate.ts';
import { acceptCertificate, browserTestsRun, launchChromium } from '../test/chromium.ts';
import { pod } from '@rxinformer/testing';

interface Pod extends KubeObject {
  spec?: unknown;
  status?: { phase?: string };
}

const describeInBrowser = browserTestsRun('the browser example test') ? describe : describe.skip;

/** The page over plain HTTP/1.1, and over HTTP/2 with a development certificate Chromium accepts by its key. */
const protocols = [
  { name: 'HTTP/1.1', tls: false, dropError: 'net::ERR_INCOMPLETE_CHUNKED_ENCODING' },
  { name: 'HTTP/2', tls: true, dropError: 'net::ERR_HTTP2_PROTOCOL_ERROR' },
];

describeInBrowser.each(protocols)('startBrowserExample over $name, in headless Chromium', ({ tls: secure, dropError }) => {
  let example: BrowserExample | undefined;
  let browser: Browser | undefined;
  let certDir: string | undefined;
  let page: Page;
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  const rowPhase = (key: string): Promise<string | null> => page.$eval(`tr[data-key="${key}"] td.phase`, (td) => td.textContent);
  const waitForRowPhase = (key: string, phase: string) =>
    page.waitForFunction(([k, p]) => document.querySelector(`tr[data-key="${k}"] td.phase`)?.textContent === p, [key, phase] as const);

  beforeAll(async () => {
    certDir = secure ? await mkdtemp(join(tmpdir(), 'browser-example-tls-')) : undefined;
    const tls = certDir === undefined ? undefined : await devCertificate(certDir);
    example = await startBrowserExample({ pods: 3, seed: 5, tls });
    // A fresh temporary profile per launch: nothing carries over between runs.
    browser = await launchChromium(tls ? [acceptCertificate(spkiHash(tls.cert))] : []);
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(example.url);
    await page.waitForSelector('#status[data-phase="watching"]');
  });

  afterAll(async () => {
    await browser?.close();
    await example?.close();
    if (certDir !== undefined) await rm(certDir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
    consoleErrors.length = 0;
  });

  it('should show the pods listed at start, with the reflector watching', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#pods tr').length === 3);
    const expected = example!.sim.storage
      .list('pods')
      .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)
      .sort();
    expect(await page.$$eval('#pods tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.key))).toEqual(expected);
    expect(await page.textContent('#count')).toBe('3');
    expect(await page.textContent('#status')).toMatch(/^watching · synced · rv \d+ · 0 relists$/);
    expect(await page.isHidden('#loading')).toBe(true);
    expect(consoleErrors).toEqual([]);
  });

  it('should list in pages of one (each handed over through a MessageChannel after the next one is requested)', async () => {
    const paged = await browser!.newPage();
    const requests: string[] = [];
    paged.on('request', (r) => {
      if (r.url().includes('/api/v1/pods') && !r.url().includes('watch=')) requests.push(new URL(r.url()).search);
    });
    paged.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await paged.goto(`${example!.url}?pageSize=1`);
      await paged.waitForSelector('#status[data-phase="watching"]');
      const expected = example!.sim.storage
        .list('pods')
        .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)
        .sort();
      await paged.waitForFunction((n) => document.querySelectorAll('#pods tr').length === n, expected.length);
      expect(await paged.$$eval('#pods tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.key))).toEqual(expected);
      expect(requests.length).toBe(expected.length); // one request per page, none twice
      expect(requests.filter((q) => q.includes('continue='))).toHaveLength(expected.length - 1);
    } finally {
      await paged.close();
    }
  });

  it('should add a row when a pod is created, and remove it when the pod is deleted', async () => {
    const { storage } = example!.sim;
    storage.create('pods', pod('browser-test', { phase: 'Pending', namespace: null }), 'default');
    await page.waitForSelector('tr[data-key="default/browser-test"]');
    expect(await rowPhase('default/browser-test')).toBe('Pending');
    expect(await page.$eval('tr[data-key="default/browser-test"] td.namespace', (td) => td.textContent)).toBe('default');
    storage.delete('pods', 'default', 'browser-test', { gracePeriodSeconds: 0 });
    await page.waitForSelector('tr[data-key="default/browser-test"]', { state: 'detached' });
    await page.waitForFunction(() => document.querySelector('#events')?.textContent?.includes('Deleted default/browser-test'));
    expect(await page.textContent('#count')).toBe('3');
    expect(consoleErrors).toEqual([]);
  });

  it('should change a row when its pod is updated on the server', async () => {
    const { storage } = example!.sim;
    storage.create('pods', pod('phase-change', { phase: 'Running', namespace: null }), 'web');
    await waitForRowPhase('web/phase-change', 'Running');
    const succeeded: Pod = { ...storage.get('pods', 'web', 'phase-change'), status: { phase: 'Succeeded' } };
    storage.update('pods', succeeded, 'web', 'phase-change', { subresource: 'status' });
    await waitForRowPhase('web/phase-change', 'Succeeded');
    expect(await page.$eval('tr[data-key="web/phase-change"]', (tr) => (tr as HTMLElement).dataset.phase)).toBe('Succeeded');
  });

  it('should keep up through the proxy after the API server drops the watch', async () => {
    const { sim } = example!;
    expect(sim.faults.dropWatches('all')).toBeGreaterThan(0);
    sim.storage.create('pods', pod('after-drop', { phase: 'Pending', namespace: null }), 'batch');
    await page.waitForSelector('tr[data-key="batch/after-drop"]');
    await page.waitForSelector('#status[data-phase="watching"]');
    // The drop reached the browser as a broken response (HTTP/2: a reset stream), not as a clean end of the watch.
    expect(consoleErrors).toEqual([expect.stringContaining(dropError)]);
  });
});

/**
 * A browser project installs the core tarball, type-checks with moduleResolution bundler, bundles
 * with esbuild and shows live pods in headless Chromium, through churn and a dropped watch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserTestsRun } from '@rxinformer/browser-example/chromium';
import { openBundledPage, typecheckAndBundle, type OpenPage } from './bundledPage.ts';
import { churn, converges, dropWatches, serverPods } from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';

const describeInBrowser = browserTestsRun('the browser bundle consumer test') ? describe : describe.skip;

describeInBrowser('a browser project bundling @rxinformer/core with esbuild', () => {
  let consumer: Consumer;
  let open: OpenPage | undefined;

  beforeAll(async () => {
    const packed = packedFromManifest().filter((p) => p.name === '@rxinformer/core' || p.name === '@rxinformer/apiserver-sim');
    consumer = await createConsumer('browser-bundle', packed);
  }, 300_000);
  afterAll(async () => {
    await open?.close();
    await consumer?.dispose();
  });

  it('should type-check with moduleResolution bundler and bundle for browsers', async () => {
    const js = await typecheckAndBundle(consumer);
    expect(js).not.toMatch(/from\s*["']node:/);
  }, 120_000);

  it('should show live pods in headless Chromium through churn and a dropped watch', async () => {
    const sim = await startSimulator(consumer);
    await churn(sim.url, 0);
    open = await openBundledPage(consumer, sim.url);
    const { tab, errors } = open;
    await tab.waitForSelector('#status[data-phase="watching"]', { timeout: 20_000 });
    const rows = () => tab.$$eval('#pods tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.name ?? '').sort());
    await converges(rows, () => serverPods(sim.url));
    await churn(sim.url, 1);
    expect(await dropWatches(sim.url)).toMatchObject({ ok: true, hit: 1 });
    await churn(sim.url, 2);
    const final = await converges(rows, () => serverPods(sim.url));
    expect(final).toHaveLength(12 + 2 * 6);
    expect(await tab.$eval('#status', (el) => (el as HTMLElement).dataset.phase)).toBe('watching');
    // The one message is Chromium's own about the stream the server cut (the dropped watch); the page logs nothing.
    expect(errors).toEqual([expect.stringContaining('net::ERR_INCOMPLETE_CHUNKED_ENCODING')]);
  }, 120_000);
});

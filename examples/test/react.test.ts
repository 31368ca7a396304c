/**
 * A React page (examples/react: the @rxinformer/react README's first program) installs the core
 * and react tarballs with React 19 from the registry, type-checks with moduleResolution bundler and
 * skipLibCheck false, is bundled by esbuild for production, and shows live pods in headless
 * Chromium through the same-origin proxy, through churn and a dropped watch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserTestsRun } from '@rxinformer/browser-example/chromium';
import { openBundledPage, typecheckAndBundle, type OpenPage } from './bundledPage.ts';
import { churn, converges, dropWatches, serverPods } from './cluster.ts';
import { createConsumer, startSimulator, type Consumer } from './consumer.ts';
import { packedFromManifest } from './pack.ts';
import { readmeProgram } from './readme.ts';

const describeInBrowser = browserTestsRun('the React page consumer test') ? describe : describe.skip;

/** The packages the page installs: core and react, and the simulator for `npx rxinformer-apiserver`. */
const PACKAGES = ['@rxinformer/core', '@rxinformer/react', '@rxinformer/apiserver-sim'];

describeInBrowser('a React page bundling @rxinformer/react with esbuild', () => {
  let consumer: Consumer;
  let open: OpenPage | undefined;

  beforeAll(async () => {
    consumer = await createConsumer(
      'react',
      packedFromManifest().filter((p) => PACKAGES.includes(p.name)),
    );
  }, 300_000);
  afterAll(async () => {
    await open?.close();
    await consumer?.dispose();
  });

  it("should hold the package README's first program, word for word", () => {
    expect(readFileSync(join(consumer.dir, 'src/main.tsx'), 'utf8')).toBe(
      readmeProgram('examples/react/src/main.tsx', 'packages/react/README.md', 'tsx'),
    );
  });

  it('should type-check with moduleResolution bundler and skipLibCheck false, and bundle for production', async () => {
    const js = await typecheckAndBundle(consumer);
    expect(js).not.toMatch(/from\s*["']node:/);
    expect(js).not.toContain('react-dom.development'); // React's production build
  }, 120_000);

  it('should show every pod and the running count in headless Chromium, through churn and a dropped watch', async () => {
    const sim = await startSimulator(consumer);
    await churn(sim.url, 0);
    open = await openBundledPage(consumer, sim.url);
    const { tab, errors } = open;
    await tab.waitForSelector('#summary', { timeout: 20_000 });
    // Each item is "namespace/name phase"; the churn's pods are all in default.
    const items = () => tab.$$eval('li', (lis) => lis.map((li) => (li.textContent ?? '').split(' ')[0].replace(/^default\//, '')).sort());
    await converges(items, () => serverPods(sim.url));
    await churn(sim.url, 1);
    expect(await dropWatches(sim.url)).toMatchObject({ ok: true, hit: 1 });
    await churn(sim.url, 2);
    const final = await converges(items, () => serverPods(sim.url));
    expect(final).toHaveLength(12 + 2 * 6);
    const running = await runningPods(sim.url);
    await tab.waitForFunction(
      (text) => document.querySelector('#summary')?.textContent === text,
      `watching: ${running} of ${final.length} pods running`,
    );
    // The one message is Chromium's own about the stream the server cut (the dropped watch); the page logs nothing.
    expect(errors).toEqual([expect.stringContaining('net::ERR_INCOMPLETE_CHUNKED_ENCODING')]);
  }, 120_000);
});

/** How many pods the server says are Running. */
async function runningPods(url: string): Promise<number> {
  const list = (await (await fetch(`${url}/api/v1/pods`)).json()) as { items: { status?: { phase?: string } }[] };
  return list.items.filter((p) => p.status?.phase === 'Running').length;
}

/**
 * What the esbuild consumer projects (browser-bundle, react) share: type-check and bundle the
 * project, then serve its `index.html` and `dist/app.js` behind the page server and open it in
 * headless Chromium, collecting what the page reports as errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@rxinformer/browser-example/chromium';
import { startPageServer, type PageServer } from '@rxinformer/browser-example/pageServer';
import type { Consumer } from './consumer.ts';

/** Runs the project's `typecheck` and `build` scripts; resolves with the bundle, `dist/app.js`. */
export async function typecheckAndBundle(consumer: Consumer): Promise<string> {
  await consumer.run('npm', ['run', 'typecheck']);
  await consumer.run('npm', ['run', 'build']);
  return readFileSync(join(consumer.dir, 'dist/app.js'), 'utf8');
}

/** A consumer's page open in Chromium. */
export interface OpenPage {
  readonly server: PageServer;
  readonly browser: Browser;
  readonly tab: Page;
  /** Uncaught page errors and console errors, in order. */
  readonly errors: string[];
  /** Closes the browser and the page server. */
  close(): Promise<void>;
}

/** Serves the consumer's built page with the API forwarded to `upstream`, and opens it in a fresh Chromium. */
export async function openBundledPage(consumer: Consumer, upstream: string): Promise<OpenPage> {
  const page = {
    html: readFileSync(join(consumer.dir, 'index.html'), 'utf8'),
    js: readFileSync(join(consumer.dir, 'dist/app.js'), 'utf8'),
  };
  const server = await startPageServer({ upstream, page });
  const browser = await launchChromium().catch(async (e: unknown) => {
    await server.close();
    throw e;
  });
  const tab = await browser.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  tab.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await tab.goto(server.url);
  return {
    server,
    browser,
    tab,
    errors,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

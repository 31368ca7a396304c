/**
 * Builds the site of the SharedWorker test and bench into a directory, with esbuild as
 * `src/bundle.ts` builds the example page: `index.html`, `page.js` (a tab) and
 * `informers.worker.js` (the SharedWorker), each with everything it imports, for browsers.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BROWSER_BUILD } from '../src/bundle.ts';
import type { StaticSite } from '../src/pageServer.ts';

const sources = new URL('./sharedWorker/', import.meta.url);

/** A built site in a temporary directory; `remove()` deletes it. */
export interface WorkerSite extends StaticSite {
  remove(): Promise<void>;
}

/** Bundles the tab and the worker (the workspace packages from their TypeScript source) into a new directory. */
export async function buildWorkerSite(options: { minify?: boolean } = {}): Promise<WorkerSite> {
  const root = await mkdtemp(join(tmpdir(), 'rxinformer-worker-site-'));
  try {
    await build({
      ...BROWSER_BUILD,
      entryPoints: { page: new URL('page.ts', sources).pathname, 'informers.worker': new URL('worker.ts', sources).pathname },
      minify: options.minify ?? false,
      outdir: root,
    });
    await copyFile(new URL('index.html', sources), join(root, 'index.html'));
  } catch (e) {
    await rm(root, { recursive: true, force: true });
    throw e;
  }
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

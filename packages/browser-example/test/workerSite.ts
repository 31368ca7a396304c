/**
 * Builds the sites of the browser tests and benches into a directory, with esbuild as
 * `src/bundle.ts` builds the example page. The SharedWorker test's: `index.html`, `page.js` (a
 * tab) and `informers.worker.js` (the SharedWorker), each with everything it imports, for browsers.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BROWSER_BUILD } from '../src/bundle.ts';
import type { StaticSite } from '../src/pageServer.ts';

/** A built site in a temporary directory; `remove()` deletes it. */
export interface WorkerSite extends StaticSite {
  remove(): Promise<void>;
}

/** What `buildSite` bundles: scripts by their output name (no `.js`) and HTML files copied as they are, all from `sources`. */
export interface SiteSources {
  /** The folder of the sources, ending in `/`. */
  sources: URL;
  /** Output name → entry file in `sources`, e.g. `{ page: 'page.ts' }` builds `page.js`. */
  scripts: Record<string, string>;
  /** HTML files in `sources`, copied to the site's root. */
  html: string[];
  /** Minify the scripts. Default false. */
  minify?: boolean;
  /** Modules replaced by others, e.g. `{ 'react-dom/client': 'react-dom/profiling' }`. Default none. */
  alias?: Record<string, string>;
}

/** Bundles a site's scripts (the workspace packages from their TypeScript source) and copies its pages into a new directory. */
export async function buildSite(site: SiteSources): Promise<WorkerSite> {
  const root = await mkdtemp(join(tmpdir(), 'rxinformer-site-'));
  try {
    const entryPoints = Object.fromEntries(Object.entries(site.scripts).map(([out, file]) => [out, new URL(file, site.sources).pathname]));
    await build({ ...BROWSER_BUILD, entryPoints, minify: site.minify ?? false, alias: site.alias, outdir: root });
    for (const page of site.html) await copyFile(new URL(page, site.sources), join(root, page));
  } catch (e) {
    await rm(root, { recursive: true, force: true });
    throw e;
  }
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Bundles the SharedWorker test's tab and worker into a new directory. */
export function buildWorkerSite(options: { minify?: boolean } = {}): Promise<WorkerSite> {
  return buildSite({
    sources: new URL('./sharedWorker/', import.meta.url),
    scripts: { page: 'page.ts', 'informers.worker': 'worker.ts' },
    html: ['index.html'],
    minify: options.minify,
  });
}

/** Bundles the page of the IndexedDB snapshot test into a new directory. */
export function buildSnapshotSite(): Promise<WorkerSite> {
  return buildSite({ sources: new URL('./snapshotPage/', import.meta.url), scripts: { page: 'page.ts' }, html: ['index.html'] });
}

/** What a browser test starts: closed by `closeRig` in reverse order, whichever of them started. */
export interface BrowserRig {
  browser?: { close(): Promise<void> };
  pages?: { close(): Promise<void> };
  site?: { remove(): Promise<void> };
  server?: { close(): Promise<void> };
}

/** Closes a browser test's browser, page server, built site and API server (each if it started). */
export async function closeRig(rig: BrowserRig): Promise<void> {
  await rig.browser?.close();
  await rig.pages?.close();
  await rig.site?.remove();
  await rig.server?.close();
}

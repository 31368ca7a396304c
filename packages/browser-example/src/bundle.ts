/**
 * Builds the page with esbuild, in memory: `src/app/main.ts` and everything it imports
 * (@rxinformer/core, rxjs, immer) as one ES module for browsers, plus `index.html` beside it.
 */
import { readFile } from 'node:fs/promises';
import { build, type BuildOptions } from 'esbuild';

/** The built page, ready to serve. */
export interface PageBundle {
  /** `index.html`. */
  readonly html: string;
  /** The ES module `index.html` loads as `/app.js`. */
  readonly js: string;
}

/** What `buildPage` built: the page, and the files it bundled. */
export interface BuiltPage extends PageBundle {
  /** The files bundled into it, relative to the working directory (the repository's root under npm scripts). */
  readonly inputs: readonly string[];
}

/** Options of `buildPage`. */
export interface BuildPageOptions {
  /** Minify the script. Default false (readable in the browser's devtools). */
  minify?: boolean;
  /** An inline source map. Default true. */
  sourcemap?: boolean;
}

/** Failure to bundle the page (a type-free build error from esbuild, or a missing file). */
export class PageBuildError extends Error {
  /** Always `PageBuildError`. */
  override readonly name = 'PageBuildError';
  /** `bundle` (esbuild failed) or `html` (index.html unreadable). */
  readonly reason: 'bundle' | 'html';
  constructor(reason: 'bundle' | 'html', message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

const appDir = new URL('./app/', import.meta.url);

/**
 * What every browser build of this package shares: one ES module per entry point, everything it
 * imports bundled, for browsers (esbuild then refuses any Node built-in), and the workspace packages
 * from their TypeScript source, as every test and script of the repository: never a dist/ that may
 * be missing or stale.
 */
export const BROWSER_BUILD = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  conditions: ['@rxinformer/source'],
  logLevel: 'silent',
} as const satisfies BuildOptions;

/**
 * Bundles the page. `platform: 'browser'` makes esbuild refuse any Node built-in, so a successful
 * build also proves the page's imports (the core among them) are browser-safe.
 *
 * @example
 * const page = await buildPage();
 * res.end(page.js);
 *
 * Caveat: esbuild strips types without checking them; `npm run typecheck` does that.
 */
export async function buildPage(options: BuildPageOptions = {}): Promise<BuiltPage> {
  let js: string;
  let inputs: string[];
  try {
    const result = await build({
      ...BROWSER_BUILD,
      entryPoints: [new URL('main.ts', appDir).pathname],
      minify: options.minify ?? false,
      sourcemap: (options.sourcemap ?? true) ? 'inline' : false,
      write: false,
      metafile: true,
    });
    js = result.outputFiles[0].text;
    inputs = Object.keys(result.metafile.inputs);
  } catch (e) {
    throw new PageBuildError('bundle', `could not bundle the page: ${(e as Error).message}`, { cause: e });
  }
  let html: string;
  try {
    html = await readFile(new URL('index.html', appDir), 'utf8');
  } catch (e) {
    throw new PageBuildError('html', `could not read index.html: ${(e as Error).message}`, { cause: e });
  }
  return { html, js, inputs };
}

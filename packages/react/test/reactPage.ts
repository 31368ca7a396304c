/**
 * Builds a React page with esbuild, in memory, for the browser example's page server:
 * the workspace packages from their TypeScript source, React's development build (StrictMode's
 * double effects, `<Profiler>` timings).
 */
import { build } from 'esbuild';
import type { PageServerOptions } from '@rxinformer/browser-example/pageServer';

/** A page bundle the page server serves (`/` and `/app.js`). */
type PageBundle = Extract<PageServerOptions['page'], { js: string }>;

/** The page around the app: a root element and the bundle. */
const HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>rxinformer · react</title></head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>';

/** The pages: the test's own, and the README's first program (the React consumer example's). */
const PAGES = {
  measuredPage: new URL('./page/measuredPage.tsx', import.meta.url),
  firstProgram: new URL('../../../examples/react/src/main.tsx', import.meta.url),
};

/** Bundles a page with everything it imports into one ES module for browsers. */
export async function buildReactPage(name: keyof typeof PAGES): Promise<PageBundle> {
  const result = await build({
    entryPoints: [PAGES[name].pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    conditions: ['@rxinformer/source'],
    define: { 'process.env.NODE_ENV': '"development"' },
    write: false,
    logLevel: 'silent',
  });
  return { html: HTML, js: result.outputFiles[0].text };
}

/**
 * `npm run bench:package`: what the published packages cost their users, from the compiled
 * `dist/` (built first, as the tarballs hold it):
 * - the bytes `@rxinformer/core` adds to a browser bundle (esbuild, minified, gzipped; rxjs left
 *   out, as the app brings its own): all of core, and what a page of live pods imports;
 * - the time to import `@rxinformer/client-node` in a fresh Node process, against importing
 *   `@kubernetes/client-node` alone and both (what a first program imports), in rotating rounds.
 *
 *   npm run bench:package [-- --rounds 15] [--json]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { median, rotation } from './rounds.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The entries of the bundle sizes: what a module imports from core. */
const BUNDLES: Record<string, string> = {
  'core, everything': "export * from '@rxinformer/core';",
  'core, a live pods page': "export { createSharedInformer, fetchListerWatcher } from '@rxinformer/core';",
};

/** The imports timed, each in a fresh process. */
const IMPORTS: Record<string, string[]> = {
  'node (no import)': [],
  '@kubernetes/client-node': ['@kubernetes/client-node'],
  '@rxinformer/client-node': ['@rxinformer/client-node'],
  'both (a first program)': ['@kubernetes/client-node', '@rxinformer/client-node'],
};

/** Minified and gzipped bytes of each bundle, rxjs external. */
export async function bundleSizes(): Promise<Record<string, { minified: number; gzipped: number }>> {
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-bundle-'));
  try {
    const out: Record<string, { minified: number; gzipped: number }> = {};
    for (const [name, source] of Object.entries(BUNDLES)) {
      const entry = join(dir, 'entry.js');
      writeFileSync(entry, source);
      // Resolved as a user's bundler does: the default export conditions, so core's dist/.
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'browser',
        external: ['rxjs', 'rxjs/*'],
        write: false,
        absWorkingDir: ROOT,
        nodePaths: [join(ROOT, 'node_modules')],
        logLevel: 'silent',
      });
      const js = result.outputFiles[0].contents;
      out[name] = { minified: js.byteLength, gzipped: gzipSync(js, { level: 9 }).byteLength };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of `node --input-type=module -e "import …"` in a fresh process, in ms. */
function importOnce(modules: string[]): number {
  const code = modules.map((m) => `await import(${JSON.stringify(m)});`).join('');
  // No repository NODE_OPTIONS: the packages resolve to dist/, as installed from npm.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, env, stdio: 'pipe' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`importing ${modules.join(', ')} failed: ${r.stderr.toString()}`);
  return ms;
}

/** Median wall time of each import over `rounds` rotating rounds (after one warm-up each). */
export function importTimes(rounds: number): Record<string, { median: number; min: number; max: number }> {
  const names = Object.keys(IMPORTS);
  for (const n of names) importOnce(IMPORTS[n]);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) for (const n of rotation(names, r)) samples[n].push(importOnce(IMPORTS[n]));
  return Object.fromEntries(
    names.map((n) => [n, { median: median(samples[n]), min: Math.min(...samples[n]), max: Math.max(...samples[n]) }]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, json: { type: 'boolean' } } });
  const rounds = Number(values.rounds ?? 15);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number >= 1, got ${values.rounds}`);
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts')], { cwd: ROOT, stdio: 'inherit' });
  const sizes = await bundleSizes();
  const times = importTimes(rounds);
  const base = times['node (no import)'].median;
  const own = (name: string) => times[name].median - base;
  const report = {
    bundleBytes: sizes,
    importMs: times,
    ratios: {
      rxinformerVsClientNode: own('@rxinformer/client-node') / own('@kubernetes/client-node'),
      bothVsClientNode: own('both (a first program)') / own('@kubernetes/client-node'),
    },
  };
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log('bundle (esbuild, minified; rxjs external)          minified    gzipped');
  for (const [name, s] of Object.entries(sizes))
    console.log(`  ${name.padEnd(48)} ${String(s.minified).padStart(8)} ${String(s.gzipped).padStart(10)}`);
  console.log(`\nimport in a fresh Node process, ${rounds} rotating rounds   median (min–max) ms, minus node alone`);
  for (const [name, t] of Object.entries(times))
    console.log(
      `  ${name.padEnd(48)} ${t.median.toFixed(0).padStart(5)} (${t.min.toFixed(0)}–${t.max.toFixed(0)})  ${(t.median - base).toFixed(0).padStart(5)}`,
    );
  console.log(
    `\n@rxinformer/client-node ÷ @kubernetes/client-node: ${report.ratios.rxinformerVsClientNode.toFixed(2)}; both ÷ @kubernetes/client-node alone: ${report.ratios.bothVsClientNode.toFixed(2)}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

/**
 * What rxinformer adds to an Angular app's initial bundle, measured on production builds of the
 * Angular example: the README's first program against the same component over a plain signal (the
 * difference, gzipped, is what rxinformer costs an app), and the full example app's main bundle
 * broken down by package from the builder's stats (`--stats-json`, esbuild's metafile).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Consumer } from '../test/consumer.ts';

/** The first program with a signal of rows in place of the informer: the same template, no rxinformer. */
const BASELINE = `import { Component, computed, provideZonelessChangeDetection, signal } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';

interface Pod {
  metadata?: { uid?: string; name?: string; namespace?: string };
  status?: { phase?: string };
}

@Component({
  selector: 'app-root',
  template: \`
    <p id="summary">{{ phase() }}: {{ running() }} of {{ pods().length }} pods running</p>
    <ul>
      @for (pod of pods(); track pod.metadata?.uid) {
        <li>{{ pod.metadata?.namespace }}/{{ pod.metadata?.name }} {{ pod.status?.phase }}</li>
      }
    </ul>
  \`,
})
class App {
  readonly pods = signal<Pod[]>([]);
  readonly phase = signal('stopped');
  readonly running = computed(() => this.pods().filter((pod) => pod.status?.phase === 'Running').length);
}

bootstrapApplication(App, { providers: [provideZonelessChangeDetection()] }).catch((e: unknown) => console.error(e));
`;

/** Sizes of one JavaScript file: as built (minified) and gzipped (level 9). */
export interface FileSize {
  bytes: number;
  gzip: number;
}

/** The bundle figures. */
export interface BundleFigures {
  /** The first program's main bundle. */
  firstProgram: FileSize;
  /** The same app over a plain signal. */
  baseline: FileSize;
  /** What rxinformer adds: firstProgram − baseline. */
  added: FileSize;
  /** The example app's main bundle. */
  exampleApp: FileSize;
  /** Minified bytes of the example app's main bundle per package (`app` for its own code). */
  exampleByPackage: Record<string, number>;
}

function size(file: string): FileSize {
  const content = readFileSync(file);
  return { bytes: content.length, gzip: gzipSync(content, { level: 9 }).length };
}

/** The `main-*.js` of a build's `browser/` directory. */
function mainBundle(dist: string): string {
  const dir = join(dist, 'browser');
  const main = readdirSync(dir).find((f) => /^main-[A-Z0-9]+\.js$/.test(f));
  if (!main) throw new Error(`no main bundle in ${dir}`);
  return join(dir, main);
}

/** Minified bytes per package of the main bundle, from the builder's stats. */
function byPackage(statsFile: string, mainName: string): Record<string, number> {
  const stats = JSON.parse(readFileSync(statsFile, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const output = Object.entries(stats.outputs).find(([path]) => path.endsWith(mainName));
  if (!output) throw new Error(`${statsFile} has no output ${mainName}`);
  const out: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(output[1].inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'app';
    out[name] = (out[name] ?? 0) + bytesInOutput;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

/** Builds the three bundles in the installed example and measures them. */
export async function bundleFigures(consumer: Consumer): Promise<BundleFigures> {
  writeFileSync(join(consumer.dir, 'first-program/baseline.ts'), BASELINE);
  await consumer.run('npx', ['--no-install', 'ng', 'build', 'first-program', '--output-path', 'dist/bench-first-program']);
  await consumer.run('npx', [
    '--no-install',
    'ng',
    'build',
    'first-program',
    '--browser',
    'first-program/baseline.ts',
    '--output-path',
    'dist/bench-baseline',
  ]);
  await consumer.run('npx', ['--no-install', 'ng', 'build', 'live-pods', '--stats-json', '--output-path', 'dist/bench-live-pods']);
  const firstProgram = size(mainBundle(join(consumer.dir, 'dist/bench-first-program')));
  const baseline = size(mainBundle(join(consumer.dir, 'dist/bench-baseline')));
  const exampleMain = mainBundle(join(consumer.dir, 'dist/bench-live-pods'));
  return {
    firstProgram,
    baseline,
    added: { bytes: firstProgram.bytes - baseline.bytes, gzip: firstProgram.gzip - baseline.gzip },
    exampleApp: size(exampleMain),
    exampleByPackage: byPackage(join(consumer.dir, 'dist/bench-live-pods/browser-stats.json'), exampleMain.split('/').pop()!),
  };
}

/**
 * Every package's exports bundled and minified with esbuild, as an app's build would (class names
 * renamed), then walked in a Node process: each exported error class is constructed and the name
 * it reports is read. A class that takes its `name` from its constructor reports the minifier's
 * (`yt`), one that sets it as a string its own.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';

/** The repository's root (where `node_modules` resolves every package's dependencies). */
const root = new URL('../../../', import.meta.url);

/**
 * The workspace packages whose entry points the bundle exports. `@rxinformer/testing` is left out:
 * it imports `@jest/globals`, which only loads inside jest (its error class is checked by source).
 */
const PACKAGES = ['core', 'client-node', 'controller', 'prometheus', 'angular', 'apiserver-sim', 'envtest', 'cli', 'browser-example'];

/** Every entry point of the packages, e.g. `@rxinformer/core/http`, from their `exports`. */
export function entryPoints(): string[] {
  return PACKAGES.flatMap((dir) => {
    const pkg = JSON.parse(readFileSync(new URL(`packages/${dir}/package.json`, root), 'utf8')) as { name: string; exports: object };
    return Object.keys(pkg.exports)
      .filter((sub) => sub !== './package.json')
      .map((sub) => (sub === '.' ? pkg.name : `${pkg.name}${sub.slice(1)}`));
  });
}

/** Our packages are bundled from source; every other package (rxjs, undici, prom-client…) stays an import. */
const ownPackagesOnly: Plugin = {
  name: 'own-packages-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@rxinformer/') ? undefined : { path: args.path, external: true }));
  },
};

/** What the walk prints: one entry per error class, under the first export path found. */
export interface ErrorClassSeen {
  /** Where it is exported, e.g. `@rxinformer/core/http RequestTimeoutError`. */
  where: string;
  /** The name it is exported under. */
  exported: string;
  /** The `name` of an instance. */
  name: string;
  /** The `reason` of an instance, when it has one. */
  reason?: unknown;
}

/**
 * Walks the namespaces the bundle exports (`globalThis.__entries`): constructs every class whose
 * prototype is an `Error`'s, with arguments that any constructor can read (a callable proxy that
 * turns into `'x'`), and prints what it saw as JSON.
 */
const WALK = `
const probe = new Proxy(function () {}, {
  get: (_t, key) => (key === Symbol.toPrimitive ? () => 'x' : key === Symbol.iterator ? undefined : probe),
  apply: () => probe,
  has: () => false,
});
const seen = new Map();
for (const [entry, ns] of Object.entries(entries)) {
  for (const [exported, value] of Object.entries(ns)) {
    if (typeof value !== 'function' || !(value.prototype instanceof Error) || seen.has(value)) continue;
    let instance;
    for (const args of [[], [probe, probe, probe, probe, probe]]) {
      try { instance = new value(...args); break; } catch {}
    }
    seen.set(value, { where: entry + ' ' + exported, exported, name: instance ? instance.name : '(could not construct)', reason: instance?.reason });
  }
}
console.log(JSON.stringify([...seen.values()]));
`;

/** Bundles every entry point, minified, for Node: the script that walks them. */
export async function minifiedWalk(): Promise<string> {
  const entries = entryPoints();
  const imports = entries.map((e, i) => `import * as e${i} from '${e}';`).join('\n');
  const table = `const entries = { ${entries.map((e, i) => `'${e}': e${i}`).join(', ')} };`;
  const result = await build({
    stdin: { contents: `${imports}\n${table}\n${WALK}`, resolveDir: new URL('packages/browser-example/', root).pathname, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    conditions: ['@rxinformer/source'],
    plugins: [ownPackagesOnly],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/**
 * Runs `script` as an ES module in a Node process whose imports resolve from the repository's
 * root, and parses what it printed.
 */
export function runInNode(script: string): Promise<ErrorClassSeen[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--no-warnings'],
      { cwd: root.pathname, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`the minified bundle failed: ${stderr || error.message}`, { cause: error }));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as ErrorClassSeen[]);
      },
    );
    child.stdin!.end(script);
  });
}

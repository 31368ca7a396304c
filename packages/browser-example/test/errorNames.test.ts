import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryPoints, minifiedWalk, runInNode, type ErrorClassSeen } from './minifiedErrors.ts';

const packagesDir = new URL('../../', import.meta.url).pathname;

/** Every TypeScript source file of the packages, tests and their helpers left out. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') walk(path);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
        out.push(path);
    }
  };
  for (const pkg of readdirSync(packagesDir))
    for (const dir of ['src', 'servers']) {
      try {
        walk(join(packagesDir, pkg, dir));
      } catch {
        // a package without that folder
      }
    }
  return out;
}

/** The error classes of a source file (named `…Error` or extending one), with their bodies. */
function errorClasses(text: string): { name: string; body: string }[] {
  const found: { name: string; body: string }[] = [];
  for (const m of text.matchAll(/^(?:export )?class (\w+)(?:<[^>]*>)? extends (\w+)(?:<[^>]*>)?\s*\{/gm)) {
    const [, name, base] = m;
    if (!name.endsWith('Error') && !base.endsWith('Error')) continue;
    let depth = 1;
    let end = m.index + m[0].length;
    while (depth > 0 && end < text.length) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}') depth--;
      end++;
    }
    found.push({ name, body: text.slice(m.index, end) });
  }
  return found;
}

describe('error names', () => {
  it('should keep the name of every exported error class of every package through minification', async () => {
    const seen: ErrorClassSeen[] = await runInNode(await minifiedWalk());
    // A class named after its constructor reports the minifier's name (e.g. `yt`) here.
    expect(seen.filter((e) => e.name !== e.exported).map((e) => `${e.where}: ${e.name}`)).toEqual([]);
    expect(seen.length).toBeGreaterThanOrEqual(50);
    const packages = new Set(seen.map((e) => e.where.split(' ')[0].split('/').slice(0, 2).join('/')));
    expect([...packages].sort()).toEqual(
      ['angular', 'apiserver-sim', 'client-node', 'controller', 'core', 'envtest', 'prometheus'].map((p) => `@rxinformer/${p}`),
    );
    // Reasons are strings the minifier keeps.
    const reason = (exported: string) => seen.find((e) => e.exported === exported)?.reason;
    expect([reason('WatchIdleError'), reason('CacheSyncTimeoutError'), reason('ResourceNotFoundError')]).toEqual([
      'WatchIdle',
      'CacheSyncTimeout',
      'ResourceNotFound',
    ]);
    expect(entryPoints()).toContain('@rxinformer/core/http');
  }, 120_000);

  it('should set the name of every error class of the sources as a string, exported or not', () => {
    const unnamed: string[] = [];
    let classes = 0;
    for (const file of sourceFiles()) {
      for (const { name, body } of errorClasses(readFileSync(file, 'utf8'))) {
        classes++;
        if (!new RegExp(`readonly name(?:: string)? = '${name}';`).test(body)) unnamed.push(`${file.slice(packagesDir.length)}: ${name}`);
      }
    }
    expect(unnamed).toEqual([]);
    expect(classes).toBeGreaterThanOrEqual(60);
  });
});

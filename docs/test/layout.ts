/**
 * The layout check of a package's src in folders by concern, read bottom up as the architecture:
 * each module imports only its own folder, the folders below it, or the shared vocabulary at the
 * top of src, so imports run one way and a newcomer can read the folders in order.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The modules of `src` (tests left out), relative to it. */
function modules(src: string, dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(src, path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [relative(src, path)] : [];
  });
}

/** The modules of `src` that `module` imports (types included) or re-exports. */
function importsOf(src: string, module: string): string[] {
  const text = readFileSync(join(src, module), 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+\.ts)'/gm)].map((m) =>
    relative(src, resolve(src, dirname(module), m[1])),
  );
}

/** Checks that `src`'s modules sit in `layers` (bottom first; '.' is the vocabulary) and import only downwards. */
export function describeLayout(name: string, src: string, layers: readonly string[]): void {
  describe(`the layout of ${name}`, () => {
    const all = modules(src);

    it('should place every module in one of the folders', () => {
      expect(all.filter((m) => !layers.includes(dirname(m)))).toEqual([]);
      expect(layers.filter((f) => !all.some((m) => dirname(m) === f))).toEqual([]);
    });

    it('should import only from the same folder, the folders below, or the vocabulary', () => {
      const upward: string[] = [];
      for (const module of all.filter((m) => !m.endsWith('index.ts') || dirname(m) !== '.')) {
        const from = layers.indexOf(dirname(module));
        for (const target of importsOf(src, module)) {
          const to = layers.indexOf(dirname(target));
          if (to > from || (from === 0 && to !== 0)) upward.push(`${module} -> ${target}`);
        }
      }
      expect(upward).toEqual([]);
    });

    it('should give each folder its own index', () => {
      const folders = layers.filter((f) => f !== '.');
      expect(folders.filter((f) => !all.includes(join(f, 'index.ts')))).toEqual([]);
    });
  });
}

/**
 * The layout of core's src: a folder per concern, read bottom up as the architecture. Each module
 * imports only its own folder, the folders below it, or the shared vocabulary at the top of src
 * (`types.ts`, `errors.ts`, ...), so imports run one way and a newcomer can read the folders in order.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../packages/core/src/', import.meta.url));

/** The folders, bottom first; '.' is the vocabulary every folder may use. */
const LAYERS: readonly string[] = [
  '.',
  'time',
  'labels',
  'projection',
  'store',
  'http',
  'reflector',
  'informer',
  'operators',
  'workqueue',
  'leader-election',
  'sharding',
  'channel',
];

function modules(dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [relative(src, path)] : [];
  });
}

const folderOf = (module: string): string => dirname(module);

/** The modules of src that `module` imports (types included) or re-exports. */
function importsOf(module: string): string[] {
  const text = readFileSync(join(src, module), 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+\.ts)'/gm)].map((m) =>
    relative(src, resolve(src, dirname(module), m[1])),
  );
}

describe('the layout of core/src', () => {
  const all = modules();

  it('should place every module in one of the folders', () => {
    expect(all.filter((m) => !LAYERS.includes(folderOf(m)))).toEqual([]);
    expect(LAYERS.filter((f) => !all.some((m) => folderOf(m) === f))).toEqual([]);
  });

  it('should import only from the same folder, the folders below, or the vocabulary', () => {
    const upward: string[] = [];
    for (const module of all.filter((m) => !m.endsWith('index.ts') || folderOf(m) !== '.')) {
      const from = LAYERS.indexOf(folderOf(module));
      for (const target of importsOf(module)) {
        const to = LAYERS.indexOf(folderOf(target));
        if (to > from || (from === 0 && to !== 0)) upward.push(`${module} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('should give each folder its own index', () => {
    const folders = LAYERS.filter((f) => f !== '.');
    expect(folders.filter((f) => !all.includes(join(f, 'index.ts')))).toEqual([]);
  });
});

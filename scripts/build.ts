/**
 * `npm run build`: compiles every published package to its `dist/` from scratch. tsc never deletes
 * the output of a source file that was renamed or removed, so each `dist/` (and the build's
 * incremental state) is removed first: a tarball never ships a stale module.
 *
 *   node scripts/build.ts            # what `npm run build` and each package's `prepack` run
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The package directories the root tsconfig.build.json references (the published packages). */
export function publishedDirs(): string[] {
  const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { references: { path: string }[] };
  return config.references.map((r) => join(ROOT, r.path.replace(/\/tsconfig\.build\.json$/, '')));
}

/** Removes every published package's dist/ and the build's incremental state, then builds. */
export function cleanBuild(): void {
  for (const dir of publishedDirs()) rmSync(join(dir, 'dist'), { recursive: true, force: true });
  rmSync(join(ROOT, '.types/build'), { recursive: true, force: true });
  execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) cleanBuild();

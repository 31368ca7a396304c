/**
 * What a published tarball must and must not hold: only `dist/`, the README and the LICENSE (and
 * envtest's go.mod and go.sum), every
 * file its `exports`, `main`, `types` and `bin` name, and no test, benchmark or build configuration.
 */

/** Paths that never belong in a tarball. */
const FORBIDDEN = [
  /\.test\.[cm]?[jt]s(\.map)?$/,
  /(^|\/)(test|tests|bench|__tests__|fixtures)\//,
  /tsconfig[^/]*\.json$/,
  /\.tsbuildinfo$/,
];

/** The package.json fields that name files. */
export interface PackageFiles {
  exports?: unknown;
  main?: string;
  types?: string;
  bin?: string | Record<string, string>;
}

/** The condition that only the repository resolves (TypeScript source, never published). */
export const SOURCE_CONDITION = '@rxinformer/source';

/** Every file path `exports` names under any condition but the repository's own source condition. */
export function exportedPaths(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.entries(exports).flatMap(([key, value]) => (key === SOURCE_CONDITION ? [] : exportedPaths(value)));
}

/** What is wrong with a tarball's file list for its package.json (empty: nothing). */
export function tarballProblems(pkg: PackageFiles, files: readonly string[]): string[] {
  const problems: string[] = [];
  const have = new Set(files);
  for (const f of files) {
    if (FORBIDDEN.some((re) => re.test(f))) problems.push(`holds ${f}, which users never need`);
    // envtest's Go module: what `rxinformer-envtest build` builds etcd and kube-apiserver from.
    else if (!/^(dist\/|README\.md$|LICENSE$|package\.json$|testenv\/go\.(mod|sum)$)/.test(f))
      problems.push(`holds ${f}, outside dist/, README.md, LICENSE and envtest's Go module`);
  }
  for (const required of ['package.json', 'README.md', 'LICENSE']) if (!have.has(required)) problems.push(`misses ${required}`);
  const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
  const named = [...exportedPaths(pkg.exports), pkg.main, pkg.types, ...bins].filter((p): p is string => p !== undefined);
  for (const path of named) {
    const file = path.replace(/^\.\//, '');
    if (!have.has(file)) problems.push(`misses ${file}, which package.json names`);
  }
  return problems;
}

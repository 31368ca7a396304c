/**
 * Builds every published package from scratch (`scripts/build.ts`) and packs it with `npm pack`, as
 * a release would: what the tarballs hold is exactly what users install.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The packages users install, by directory under `packages/`. */
export const PUBLISHED = [
  'core',
  'client-node',
  'apiserver-sim',
  'envtest',
  'prometheus',
  'controller',
  'cli',
  'angular',
  'react',
  'hub',
] as const;

/** One packed package. */
export interface PackedPackage {
  /** `@rxinformer/core`… */
  name: string;
  /** Its directory, `packages/core`… (absolute). */
  dir: string;
  /** The tarball's absolute path. */
  tarball: string;
  /** Bytes of the tarball. */
  size: number;
  /** Bytes of its files unpacked. */
  unpackedSize: number;
  /** Every file in the tarball, relative to the package root. */
  files: { path: string; size: number }[];
}

/** `npm pack --json`'s answer (the fields used here). */
interface NpmPackJson {
  name: string;
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/** An environment for npm and node run on behalf of the repository's tests, without the repository's own npm settings. */
export function cleanEnv(extraPath: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // npm_* and NODE_OPTIONS carry the repository's npm run context: its "@rxinformer/source"
    // export condition would send a consumer to TypeScript files its tarballs do not have.
    if (k.startsWith('npm_') || k === 'NODE_OPTIONS' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  const path = (process.env.PATH ?? '').split(':').filter((p) => p !== '' && !p.startsWith(ROOT));
  env.PATH = [...extraPath, ...path].join(':');
  return env;
}

/**
 * A module in core's `dist/` whose source was removed (or renamed): `globalSetup` writes it before
 * its build, which must drop it, so that no tarball ships it (packaging.test.ts looks in core's).
 */
export const STALE_MODULE = 'dist/removedModule.js';

/** Writes `STALE_MODULE` into core's `dist/`, as a build before a source was removed would have left it. */
export function plantStaleModule(): void {
  mkdirSync(join(ROOT, 'packages/core/dist'), { recursive: true });
  writeFileSync(join(ROOT, 'packages/core', STALE_MODULE), 'export {};\n');
}

/** Builds the published packages into fresh `dist/`s and packs each (or those of `dirs`) into `dest`. */
export function buildAndPack(dest: string, dirs: readonly (typeof PUBLISHED)[number][] = PUBLISHED): PackedPackage[] {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts')], { cwd: ROOT, stdio: 'pipe' });
  return dirs.map((dir) => {
    const cwd = join(ROOT, 'packages', dir);
    // Built above, so no lifecycle scripts: `prepack` would only run the same build again.
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], {
      cwd,
      env: cleanEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [json] = JSON.parse(out) as NpmPackJson[];
    return {
      name: json.name,
      dir: cwd,
      tarball: join(dest, json.filename),
      size: json.size,
      unpackedSize: json.unpackedSize,
      files: json.files.map((f) => ({ path: f.path, size: f.size })),
    };
  });
}

/** The manifest `globalSetup` writes: where the tarballs of this test run are. */
export function packedFromManifest(): PackedPackage[] {
  const manifest = process.env.RXINFORMER_PACKED;
  if (!manifest) throw new Error('RXINFORMER_PACKED is not set: run these tests through jest (examples/test/globalSetup.ts packs)');
  return JSON.parse(readFileSync(manifest, 'utf8')) as PackedPackage[];
}

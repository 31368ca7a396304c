/**
 * The tarballs as the registry would get them: only what users need, nothing missing, publint and
 * @arethetypeswrong/cli clean, and `npm publish --dry-run` accepting each (nothing is published).
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanEnv, packedFromManifest, ROOT, STALE_MODULE } from './pack.ts';
import { tarballProblems, type PackageFiles } from './tarballs.ts';

const exec = promisify(execFile);
const packed = packedFromManifest();
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

describe('tarballProblems', () => {
  const pkg: PackageFiles = {
    exports: { '.': { '@rxinformer/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } },
    bin: { x: './dist/main.js' },
  };
  const good = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/main.js'];

  it('should accept dist/, the README and the LICENSE with every named file', () => {
    expect(tarballProblems(pkg, good)).toEqual([]);
  });

  it('should report a test file, a benchmark, a tsconfig and a source file', () => {
    const problems = tarballProblems(pkg, [...good, 'dist/a.test.js', 'bench/b.ts', 'tsconfig.json', 'src/index.ts']);
    expect(problems).toEqual([
      'holds dist/a.test.js, which users never need',
      'holds bench/b.ts, which users never need',
      'holds tsconfig.json, which users never need',
      "holds src/index.ts, outside dist/, README.md, LICENSE and envtest's Go module",
    ]);
  });

  it('should report a file that exports or bin names but the tarball lacks', () => {
    expect(
      tarballProblems(
        pkg,
        good.filter((f) => f !== 'dist/index.d.ts' && f !== 'dist/main.js'),
      ),
    ).toEqual(['misses dist/index.d.ts, which package.json names', 'misses dist/main.js, which package.json names']);
  });
});

describe('the build', () => {
  // globalSetup planted a stale module in core's dist/ before the build that packed the tarballs.
  it('should leave no module of a removed or renamed source in dist/, nor in the tarball', () => {
    const core = packed.find((p) => p.name === '@rxinformer/core')!;
    const paths = core.files.map((f) => f.path);
    expect(paths.filter((p) => p === STALE_MODULE)).toEqual([]);
    expect(paths).toContain('dist/index.js');
    expect(existsSync(join(core.dir, STALE_MODULE))).toBe(false);
  });
});

describe.each(packed.map((p) => [p.name, p] as const))('the %s tarball', (_name, p) => {
  const pkg = JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8')) as PackageFiles & Record<string, unknown>;

  it('should hold only dist/, README.md and LICENSE, and every file package.json names', () => {
    expect(
      tarballProblems(
        pkg,
        p.files.map((f) => f.path),
      ),
    ).toEqual([]);
  });

  it('should carry the metadata a registry page and an installer need', () => {
    expect(pkg).toMatchObject({ license: 'Apache-2.0', type: 'module', publishConfig: { access: 'public' } });
    expect(pkg.repository).toMatchObject({ type: 'git', directory: p.dir.slice(ROOT.length) });
    expect((pkg.keywords as string[]).length).toBeGreaterThan(3);
    expect(pkg.engines).toMatchObject({ node: expect.stringMatching(/^>=22/) });
    expect(readFileSync(join(p.dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
  });

  it('should pass publint', async () => {
    const { stdout } = await exec(bin('publint'), ['run', p.tarball, '--strict'], { env: cleanEnv() });
    expect(stdout).toContain('All good!');
  }, 60_000);

  it('should pass @arethetypeswrong/cli (require of ESM, from Node 22.12, allowed)', async () => {
    // cjs-resolves-to-esm: a require() reaches the ES module, which Node 22.12+ loads (require of
    // ESM) and TypeScript >= 5.8 types with module nodenext; examples/node-cjs checks both.
    const { stdout } = await exec(bin('attw'), [p.tarball, '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'ascii', '--no-color'], {
      env: cleanEnv(),
    });
    expect(stdout).toContain('No problems found');
  }, 120_000);

  it('should be accepted by npm publish --dry-run', async () => {
    const { stdout, stderr } = await exec('npm', ['publish', p.tarball, '--dry-run'], { cwd: tmpdir(), env: cleanEnv() });
    expect(`${stdout}${stderr}`).toContain(`+ ${p.name}@`);
    expect(stderr).toContain('(dry-run)');
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGoPrograms, goBuildDir, type GoProgramsBuild } from '../src/index.ts';

// The cached Go build that makes etcd and kube-apiserver, on a module of its own: a program without
// dependencies, built once, found current the second time, built again once its source changed.
describe('buildGoPrograms', () => {
  let root: string;
  let build: GoProgramsBuild;
  const cache = () => ({ cacheDir: join(root, 'cache') });
  const source = (text: string) =>
    writeFileSync(join(build.moduleDir, 'main.go'), `package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("${text}") }\n`);
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'go-build-'));
    build = { moduleDir: join(root, 'hello'), name: 'hello', packages: ['.'], sources: ['main.go'], binaries: ['hello'] };
    mkdirSync(build.moduleDir);
    writeFileSync(join(build.moduleDir, 'go.mod'), 'module example.com/hello\n\ngo 1.26\n');
    writeFileSync(join(build.moduleDir, 'go.sum'), '');
    source('one');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('should build into a folder named after its inputs, do nothing when current, and build again when a source changed', async () => {
    const first = await buildGoPrograms(build, cache());
    expect(first).toEqual({ dir: goBuildDir(build, cache()), built: true, ms: expect.any(Number) });
    expect(spawnSync(join(first.dir, 'hello'), { encoding: 'utf8' }).stdout).toBe('one\n');
    expect(await buildGoPrograms(build, cache())).toEqual({ dir: first.dir, built: false, ms: 0 });
    source('two');
    const second = await buildGoPrograms(build, cache());
    expect(second.dir).not.toBe(first.dir);
    expect(spawnSync(join(second.dir, 'hello'), { encoding: 'utf8' }).stdout).toBe('two\n');
  }, 120_000);
});

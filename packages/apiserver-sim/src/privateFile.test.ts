import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfigFile } from './kubeconfig.ts';
import { replacePrivateFile, UnsafePathError, writePrivateFile } from './privateFile.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('privateFile', () => {
  let dir: string;
  let target: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-private-'));
    target = join(dir, 'target');
    writeFileSync(target, 'original\n', { mode: 0o644 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('writePrivateFile', () => {
    it('should write a 0600 file in a new 0700 directory of an unpredictable name', async () => {
      const a = await writePrivateFile('token: x\n', { prefix: 'p-', parent: dir });
      const b = await writePrivateFile('token: y\n', { prefix: 'p-', parent: dir, name: 'kc' });
      expect(a.dir).not.toBe(b.dir);
      expect(a.path).toBe(join(a.dir, 'kubeconfig'));
      expect(b.path).toBe(join(b.dir, 'kc'));
      expect(mode(a.dir)).toBe(0o700);
      expect(mode(a.path)).toBe(0o600);
      expect(readFileSync(a.path, 'utf8')).toBe('token: x\n');
      expect(readdirSync(a.dir)).toEqual(['kubeconfig']);
    });
  });

  describe('replacePrivateFile', () => {
    it('should refuse a symlink at the path and leave its target untouched', async () => {
      const link = join(dir, 'link');
      symlinkSync(target, link);
      const err = await replacePrivateFile(link, 'secret').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafePathError);
      expect(err).toMatchObject({ reason: 'UnsafePath', path: link, message: `refusing to write ${link}: it is a symbolic link` });
      const dangling = join(dir, 'dangling');
      symlinkSync(join(dir, 'not-yet'), dangling);
      await expect(replacePrivateFile(dangling, 'secret')).rejects.toThrow(UnsafePathError);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      expect(readdirSync(dir).sort()).toEqual(['dangling', 'link', 'target']); // no temporary file left
    });

    it('should refuse a directory', async () => {
      mkdirSync(join(dir, 'd'));
      await expect(replacePrivateFile(join(dir, 'd'), 'secret')).rejects.toThrow('it exists and is not a regular file');
    });

    it('should replace a file atomically: mode 0600, and a hard link to it keeps the old content', async () => {
      const path = join(dir, 'kc');
      linkSync(target, path); // a hard link planted at the path: writing through it would change `target`
      await replacePrivateFile(path, 'secret\n');
      expect(readFileSync(path, 'utf8')).toBe('secret\n');
      expect(mode(path)).toBe(0o600);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      expect(mode(target)).toBe(0o644);
      await replacePrivateFile(join(dir, 'new'), 'fresh\n');
      expect(mode(join(dir, 'new'))).toBe(0o600);
      expect(readdirSync(dir).sort()).toEqual(['kc', 'new', 'target']);
    });
  });

  describe('writeKubeconfigFile', () => {
    it('should refuse a symlink and replace a world-readable file with a 0600 one', async () => {
      const link = join(dir, 'link');
      symlinkSync(target, link);
      await expect(writeKubeconfigFile(link, { server: 'http://127.0.0.1:1', token: 't0k' })).rejects.toThrow(UnsafePathError);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      await writeKubeconfigFile(target, { server: 'http://127.0.0.1:1', token: 't0k' });
      expect(mode(target)).toBe(0o600);
      expect(readFileSync(target, 'utf8')).toContain('token: "t0k"');
    });
  });
});

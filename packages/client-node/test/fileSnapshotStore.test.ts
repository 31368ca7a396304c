/**
 * The file snapshot store: private files in a private directory, atomic saves (a real process
 * killed with SIGKILL in the middle of one leaves the previous snapshot whole), refused keys.
 */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeSnapshot, snapshotIdentity, snapshotKey, SnapshotStoreError } from '@rxinformer/core/snapshot';
import { fileSnapshotStore } from '../src/index.ts';
import { until } from '@rxinformer/testing';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const identity = snapshotIdentity({ server: 'https://test:6443', resource: configMaps });
const key = snapshotKey(identity);

async function withDir<R>(fn: (dir: string) => Promise<R>): Promise<R> {
  const parent = await mkdtemp(join(tmpdir(), 'rxinformer-snapshots-'));
  try {
    return await fn(join(parent, 'a', 'b'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/** Saves snapshots of `count` ConfigMaps under `key` in `dir`, one after another, forever: `saved <rv>` after each. */
const WRITER = `
import { fileSnapshotStore } from '@rxinformer/client-node';
import { encodeSnapshot, snapshotIdentity, snapshotKey } from '@rxinformer/core/snapshot';
const { DIR, COUNT } = process.env;
const identity = snapshotIdentity({ server: 'https://test:6443', resource: { group: '', version: 'v1', resource: 'configmaps', namespaced: true } });
const store = fileSnapshotStore(DIR);
for (let rv = 1; ; rv++) {
  const objects = Array.from({ length: Number(COUNT) }, (_, i) => ({ metadata: { namespace: 'n', name: 'cm-' + i, resourceVersion: String(rv) }, data: { v: 'x'.repeat(200) } }));
  await store.save(snapshotKey(identity), encodeSnapshot({ identity, resourceVersion: String(rv), writtenAt: new Date().toISOString(), objects }));
  process.stdout.write('saved ' + rv + '\\n');
}
`;

describe('fileSnapshotStore', () => {
  it('should write each snapshot as a 0600 file in a directory it makes 0700, read it back and remove it', async () => {
    await withDir(async (dir) => {
      const store = fileSnapshotStore(dir);
      expect(await store.load(key)).toBeUndefined();
      await store.save(key, 'one');
      await store.save(key, 'two');
      expect(await store.load(key)).toBe('two');
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, '..'))).mode & 0o777).toBe(0o700); // the parents it made too
      expect((await stat(join(dir, `${key}.snapshot`))).mode & 0o777).toBe(0o600);
      expect(await readdir(dir)).toEqual([`${key}.snapshot`]); // no temporary file left
      await store.remove(key);
      await store.remove(key); // nothing there: no error
      expect(await store.load(key)).toBeUndefined();
    });
  });

  it('should refuse a key that is not a file name, with a typed error', async () => {
    await withDir(async (dir) => {
      const store = fileSnapshotStore(dir);
      for (const bad of ['../escape', 'a/b', '', '.hidden', 'UPPER'])
        await expect(store.save(bad, 'x')).rejects.toMatchObject({ name: 'SnapshotStoreError', reason: 'SaveFailed' });
      await expect(store.load('../x')).rejects.toBeInstanceOf(SnapshotStoreError);
    });
  });

  it('should report a directory it cannot write as SaveFailed, with the cause', async () => {
    await withDir(async (dir) => {
      await writeFile(join(dir, '..', '..', 'file'), 'not a directory');
      const store = fileSnapshotStore(join(dir, '..', '..', 'file', 'sub'));
      const error = await store.save(key, 'x').catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'SnapshotStoreError', reason: 'SaveFailed', key });
      expect((error as Error).cause).toMatchObject({ code: 'ENOTDIR' });
    });
  });

  it('should leave the previous snapshot whole when the writing process is killed in the middle of a save', async () => {
    await withDir(async (dir) => {
      const midSave = async () => (await readdir(dir)).some((n) => n.endsWith('.tmp'));
      let killedMidSave = 0;
      for (let attempt = 0; attempt < 10 && killedMidSave < 1; attempt++) {
        const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER], {
          env: { ...process.env, DIR: dir, COUNT: '10000' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        const exited = new Promise((resolve) => child.once('exit', resolve));
        await until(() => out.includes('saved 1\n'), { timeoutMs: 60_000, what: 'the first save' });
        // Kill it as soon as one of its next saves has its temporary file: between the save's start and its rename.
        for (const deadline = Date.now() + 60_000; !(await midSave()) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 1));
        child.kill('SIGKILL');
        await exited;
        const snapshot = decodeSnapshot((await fileSnapshotStore(dir).load(key))!, identity, key);
        expect(snapshot.objects).toHaveLength(10_000);
        const saved = [...out.matchAll(/saved (\d+)/g)].map((m) => m[1]);
        // The last save it finished, or the one it had just renamed into place before the kill.
        expect([saved.at(-1), String(Number(saved.at(-1)) + 1)]).toContain(snapshot.resourceVersion);
        if (await midSave()) killedMidSave++;
      }
      expect(killedMidSave).toBe(1); // a kill landed between a save's start and its rename, and left the snapshot whole
    });
  }, 240_000);
});

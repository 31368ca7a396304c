/**
 * Informers' snapshots as files in one directory, for Node processes (core's stores are
 * browser-safe; this one needs node:fs). A save is atomic and private: the text goes into a new
 * file (created exclusively, mode 0600) beside the snapshot, is flushed to disk, and is renamed
 * onto it, so a process killed mid-write leaves the previous snapshot whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotStore } from '@rxinformer/core';
import { SnapshotStoreError } from '@rxinformer/core/snapshot';

/** Options of `fileSnapshotStore`. */
export interface FileSnapshotStoreOptions {
  /**
   * Flush each snapshot (and the directory entry of its rename) to disk before the save resolves,
   * so a power loss cannot leave an empty or partial file under the snapshot's name. Default true.
   */
  fsync?: boolean;
}

/** Leftover temporary files of saves cut short (a process killed) are removed after this long. */
const STALE_TEMP_MS = 10 * 60_000;

/** What a key may be: `snapshotKey`'s alphabet, so it is a file name on every system. */
const KEY = /^[a-z0-9][a-z0-9._-]{0,199}$/;

/**
 * A `SnapshotStore` of files in `directory`: one `<key>.snapshot` per informer, mode 0600. The
 * directory is created on the first save with mode 0700 (and any missing parents); an existing
 * one is used as it is.
 *
 * @example
 * const factory = createKubeInformerFactory(kc, { snapshots: { store: fileSnapshotStore('/var/lib/my-controller/snapshots') } });
 *
 * Caveat: snapshots hold the cached objects as they are (after the informer's transform): keep the
 * directory private to the process's user, and out of images and backups that others read.
 */
export function fileSnapshotStore(directory: string, options: FileSnapshotStoreOptions = {}): SnapshotStore {
  if (typeof directory !== 'string' || directory === '') throw new SnapshotStoreError('Unavailable', 'fileSnapshotStore needs a directory');
  const fsync = options.fsync !== false;
  let made: Promise<unknown> | undefined;
  const pathOf = (key: string, operation: 'LoadFailed' | 'SaveFailed' | 'RemoveFailed'): string => {
    if (typeof key !== 'string' || !KEY.test(key))
      throw new SnapshotStoreError(operation, `snapshot key ${JSON.stringify(key)} is not a file name ([a-z0-9._-])`);
    return join(directory, `${key}.snapshot`);
  };
  const failed = (operation: 'LoadFailed' | 'SaveFailed' | 'RemoveFailed', key: string, cause: unknown) =>
    cause instanceof SnapshotStoreError
      ? cause
      : new SnapshotStoreError(
          operation,
          `${verbs[operation]} snapshot ${key} in ${directory}: ${(cause as Error)?.message ?? String(cause)}`,
          { key, cause },
        );
  return {
    async load(key) {
      try {
        return await readFile(pathOf(key, 'LoadFailed'), 'utf8');
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw failed('LoadFailed', key, cause);
      }
    },
    async save(key, data) {
      const path = pathOf(key, 'SaveFailed');
      try {
        await (made ??= mkdir(directory, { recursive: true, mode: 0o700 }).catch((e: unknown) => {
          made = undefined;
          throw e;
        }));
        await writeAtomically(directory, key, path, data, fsync);
      } catch (cause) {
        throw failed('SaveFailed', key, cause);
      }
      await removeStaleTemps(directory, key).catch(() => undefined); // tidying only
    },
    async remove(key) {
      try {
        await unlink(pathOf(key, 'RemoveFailed'));
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw failed('RemoveFailed', key, cause);
      }
    },
  };
}

const verbs = { LoadFailed: 'could not read', SaveFailed: 'could not write', RemoveFailed: 'could not remove' } as const;

/** The temporary file name of one save of `key`: hidden, unique, recognisable by `removeStaleTemps`. */
const tempName = (key: string): string => `.${key}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;

/**
 * `data` into a new file (exclusive, 0600), flushed, then renamed onto `path`, then the directory
 * flushed: a reader sees the old snapshot or the new one, whole, whatever happens in between.
 */
async function writeAtomically(directory: string, key: string, path: string, data: string, fsync: boolean): Promise<void> {
  const temp = join(directory, tempName(key));
  const file = await open(temp, 'wx', 0o600);
  try {
    try {
      await file.writeFile(data, 'utf8');
      if (fsync) await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (fsync) await syncDirectory(directory);
}

/** Flushes a directory's entries (the rename) to disk; a system that cannot (Windows) is let be. */
async function syncDirectory(directory: string): Promise<void> {
  const dir = await open(directory, 'r').catch(() => undefined);
  if (dir === undefined) return;
  try {
    await dir.sync();
  } catch {
    // EPERM/EINVAL where directories cannot be synced: the rename stands, only its durability is the system's
  } finally {
    await dir.close();
  }
}

/** Removes temporary files of `key` that a killed process left, once they are old enough to belong to no save in progress. */
async function removeStaleTemps(directory: string, key: string): Promise<void> {
  const prefix = `.${key}.`;
  const now = Date.now();
  for (const name of await readdir(directory)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const path = join(directory, name);
    const { mtimeMs } = await stat(path);
    if (now - mtimeMs > STALE_TEMP_MS) await unlink(path);
  }
}

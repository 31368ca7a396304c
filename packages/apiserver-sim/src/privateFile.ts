/**
 * Files that hold a secret (a kubeconfig with a bearer token or a client key), written so that no
 * other local user can read them or redirect the write: created exclusively (`O_CREAT|O_EXCL`, which
 * never follows a symlink) with mode 0600, either in a fresh private directory (`mkdtemp`, mode
 * 0700, unpredictable name) or next to a path the user chose and then renamed over it.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RxInformerError } from '@rxinformer/core';

/** A path a secret file will not be written to: a symbolic link, a directory or another special file. */
export class UnsafePathError extends RxInformerError {
  /** Always `UnsafePathError`: set as a string, so it survives minification. */
  override readonly name: string = 'UnsafePathError';
  /** The path that was refused. */
  readonly path: string;

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super('UnsafePath', `refusing to write ${path}: ${detail}`, options);
    this.path = path;
  }
}

/** Where `writePrivateFile` put the file. */
export interface PrivateFile {
  /** The private directory (mode 0700) holding only this file: remove it when done. */
  readonly dir: string;
  /** The file (mode 0600). */
  readonly path: string;
}

/** Options of `writePrivateFile`. */
export interface PrivateFileOptions {
  /** Start of the directory's name; `mkdtemp` appends six random characters. Required. */
  prefix: string;
  /** The file's name inside the directory. Default `kubeconfig`. */
  name?: string;
  /** Where the directory is created. Default `os.tmpdir()`. */
  parent?: string;
}

/**
 * Writes `text` to a new file (mode 0600) in a new directory only this user can enter (mode 0700,
 * unpredictable name), so no one else can plant a link there, read the file or swap it.
 *
 * @example
 * const { dir, path } = await writePrivateFile(sim.kubeconfigYaml(), { prefix: 'my-sim-' });
 * // … kubectl --kubeconfig ${path} …
 * await rm(dir, { recursive: true, force: true });
 *
 * Caveat: the directory is the caller's to remove; nothing removes it on exit.
 */
export async function writePrivateFile(text: string, options: PrivateFileOptions): Promise<PrivateFile> {
  const dir = await mkdtemp(join(options.parent ?? tmpdir(), options.prefix));
  const path = join(dir, options.name ?? 'kubeconfig');
  try {
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return { dir, path };
}

/**
 * Writes `text` to `path` (mode 0600), replacing a regular file there atomically: the text goes into
 * a new file of a random name beside it (created exclusively), which is then renamed onto `path`.
 * A rename replaces the directory entry and never writes through it, so a symlink or hard link
 * planted at `path` leaves its target untouched; a symlink found at `path` is refused outright.
 *
 * @example
 * await replacePrivateFile('./sim.kubeconfig', sim.kubeconfigYaml());
 *
 * Caveat: rejects with `UnsafePathError` when `path` is a symbolic link or not a regular file; the
 * directories above `path` are resolved as usual (they are the caller's choice).
 */
export async function replacePrivateFile(path: string, text: string): Promise<void> {
  const existing = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (existing?.isSymbolicLink()) throw new UnsafePathError(path, 'it is a symbolic link');
  if (existing && !existing.isFile()) throw new UnsafePathError(path, 'it exists and is not a regular file');
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}

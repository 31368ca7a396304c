/**
 * The errors of persisted snapshots: one refused as read (corrupt or another informer's), a store
 * that failed, and a Secrets informer given a store without being allowed to persist.
 */
import { RxInformerError } from '../errors.ts';

/**
 * Why a stored snapshot was refused, the `reason` of a `SnapshotRejectedError`:
 * - `Malformed`: not a snapshot of this format (no header line, JSON that does not parse, an object
 *   count that does not match the header);
 * - `Truncated`: shorter (or longer) than its header says: a write cut short;
 * - `ChecksumMismatch`: the right length, other content: bit rot, or a file edited by hand;
 * - `UnsupportedVersion`: a snapshot of another version of the format;
 * - `Foreign`: another informer's: another server, resource, scope or transform (`field` says which).
 */
export type SnapshotRejection = 'Malformed' | 'Truncated' | 'ChecksumMismatch' | 'UnsupportedVersion' | 'Foreign';

/**
 * A stored snapshot the informer refused: it starts cold (lists) instead, removes the snapshot and
 * reports this on its status (`getStatus().snapshot.restoreError`). Nothing of the refused snapshot
 * reaches the cache. The message never quotes the snapshot's content (it may hold objects' data).
 *
 * @example
 * const { restoreError } = informer.getStatus().snapshot ?? {};
 * if (restoreError instanceof SnapshotRejectedError) console.warn(restoreError.reason, restoreError.field);
 */
export class SnapshotRejectedError extends RxInformerError {
  /** Always `SnapshotRejectedError`: set as a string, so it survives minification. */
  override readonly name: string = 'SnapshotRejectedError';
  declare readonly reason: SnapshotRejection;
  /** The store key the snapshot was read from. */
  readonly key: string;
  /** For `Foreign`: the identity field that differs (`server`, `resource`, `namespace`, `transform`…). */
  readonly field?: string;

  constructor(reason: SnapshotRejection, key: string, detail: string, options: { field?: string; cause?: unknown } = {}) {
    super(reason, `snapshot ${key} refused (${reason}): ${detail}; starting cold`, { cause: options.cause });
    this.key = key;
    if (options.field !== undefined) this.field = options.field;
  }
}

/** What a `SnapshotStoreError` was doing: reading, writing or removing a snapshot, or the store is missing. */
export type SnapshotStoreOperation = 'LoadFailed' | 'SaveFailed' | 'RemoveFailed' | 'Unavailable';

/**
 * A snapshot store failed (a file that cannot be read or written, IndexedDB refused), or is not
 * available here (`Unavailable`: no IndexedDB). A failed load starts the informer cold; a failed
 * save leaves the previous snapshot as it was. `cause` is the store's own error.
 *
 * @example
 * informer.status$.subscribe((s) => s.snapshot?.saveError && console.warn(s.snapshot.saveError.message));
 */
export class SnapshotStoreError extends RxInformerError {
  /** Always `SnapshotStoreError`: set as a string, so it survives minification. */
  override readonly name: string = 'SnapshotStoreError';
  declare readonly reason: SnapshotStoreOperation;
  /** The store key concerned, when there is one. */
  readonly key?: string;

  constructor(reason: SnapshotStoreOperation, message: string, options: { key?: string; cause?: unknown } = {}) {
    super(reason, message, { cause: options.cause });
    if (options.key !== undefined) this.key = options.key;
  }
}

/**
 * A Secrets informer (core group, `secrets`) was given a snapshot store without `persistSecrets:
 * true`: thrown where the informer is made, so no Secret reaches a disk or a browser's storage by
 * a factory-wide default. Say `persistSecrets: true` to persist them, or `snapshots: false` for
 * that informer.
 *
 * @example
 * factory.informerFor(secrets, { snapshots: false }); // a factory with a snapshot store: Secrets stay in memory
 */
export class SecretsSnapshotError extends RxInformerError {
  /** Always `SecretsSnapshotError`: set as a string, so it survives minification. */
  override readonly name: string = 'SecretsSnapshotError';
  constructor(what: string) {
    super(
      'SecretsNotPersisted',
      `${what} would persist Secrets: pass snapshots: false for this informer, or persistSecrets: true to write them to the snapshot store`,
    );
  }
}

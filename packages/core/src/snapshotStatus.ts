/**
 * The status of an informer's persisted snapshots (its `snapshot` option), part of the informer's
 * status (`ReflectorStatus.snapshot`). Plain data, as everything in `types.ts`, which re-exports it.
 */

/**
 * An informer's persisted snapshots, as its status reports them (`getStatus().snapshot`).
 *
 * @example
 * const s = informer.getStatus().snapshot;
 * if (s?.start === 'restored' && !informer.hasSynced()) showBanner(`as of ${s.restored?.writtenAt}`);
 */
export interface SnapshotStatus {
  /**
   * How the cache started: `loading` while the stored snapshot is read (the phase is `listing`
   * meanwhile); `restored` from it (the watch resumes from its resource version); `cold` from a
   * list, because none was stored, or it was refused or unreadable (`restoreError`).
   */
  readonly start: 'loading' | 'restored' | 'cold';
  /** The snapshot the cache started from, when `restored`: its resource version, time written and size. */
  readonly restored?: {
    /** The resource version the watch resumed from. */
    readonly resourceVersion: string;
    /** When the snapshot was written (RFC 3339, the writer's clock): how old the shown cache may be. */
    readonly writtenAt: string;
    /** Objects restored. */
    readonly objects: number;
  };
  /** Why a stored snapshot was not used: a `SnapshotRejectedError` (corrupt, foreign) or the store's `SnapshotStoreError`. */
  readonly restoreError?: Error;
  /** Snapshots this informer has written. */
  readonly saves: number;
  /** The resource version of the last snapshot written. */
  readonly savedResourceVersion?: string;
  /** Why the last save failed (a `SnapshotStoreError`), until one succeeds; the previous snapshot stays. */
  readonly saveError?: Error;
}

/** The mark of a `LIST` event (`ReflectorEvent`) that is not the reflector's: an informer's restored snapshot. */
export interface RestoredMark {
  /**
   * True for the persisted snapshot the shared informer restored as it started (its `snapshot`
   * option): the delta store holds it unsynced until the server confirms its resource version.
   */
  readonly restored?: boolean;
}

/**
 * Persisted snapshots of informer caches, for warm restarts: the store contract and two stores
 * (memory, IndexedDB), the identity and key of a snapshot, its format, and its errors. Node's file
 * store is client-node's `fileSnapshotStore`. An informer uses them through its `snapshot` option
 * (a factory's `snapshots`).
 *
 * @module @rxinformer/core/snapshot
 */
export { memorySnapshotStore } from './snapshotStore.ts';
export type { SnapshotStore } from './snapshotStore.ts';
export { indexedDbSnapshotStore } from './indexedDbSnapshotStore.ts';
export type { IndexedDbSnapshotStoreOptions } from './indexedDbSnapshotStore.ts';
export { isSecrets, snapshotIdentity, snapshotKey } from './snapshotIdentity.ts';
export type { SnapshotIdentity, SnapshotIdentityParts } from './snapshotIdentity.ts';
export { decodeSnapshot, encodeSnapshot, snapshotWriter, SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION } from './snapshotCodec.ts';
export type { InformerSnapshot, SnapshotWriter } from './snapshotCodec.ts';
export { SecretsSnapshotError, SnapshotRejectedError, SnapshotStoreError } from './snapshotErrors.ts';
export type { SnapshotRejection, SnapshotStoreOperation } from './snapshotErrors.ts';

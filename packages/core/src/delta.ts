/**
 * The store's changes in client-go's vocabulary (`DeltaType`): a `Delta` is a union with one shape
 * per type, and a deletion carries one `DeletedObject` (client-go's typed
 * `DeletedFinalStateUnknown`). Plain data, as everything in `types.ts`, which re-exports it.
 *
 * @example
 * informer.events$.subscribe((d) => console.log(d.type, d.key, objectOf(d)?.metadata?.resourceVersion));
 */
import type { KubeObject, Store } from './types.ts';

/** The kind of change a `Delta` reports (client-go's `DeltaType`). */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/**
 * A deleted object as a handler receives it (client-go's typed `DeletedFinalStateUnknown`): the key
 * always, the object as last known (absent when it never was), and whether that is its final state.
 */
export interface DeletedObject<T extends KubeObject = KubeObject> {
  /** The deleted object's key. */
  key: string;
  /**
   * The object as last known: the state the watch's DELETED carried, or, when `finalStateUnknown`,
   * the one the cache held (possibly stale).
   */
  lastKnown?: T;
  /**
   * True for a tombstone: the object vanished while the watch was down (found missing on a relist,
   * or recreated under a new UID), or its deletion came with an object that could not be prepared.
   */
  finalStateUnknown: boolean;
}

/** The fields every `Delta` has. */
interface DeltaBase<T extends KubeObject> {
  /** The object's key (`namespace/name` by default). */
  key: string;
  /** The store snapshot after this delta was applied; never older than the event. */
  store: Store<T>;
}

/** `Added`: a new key (also a recreated object: a tombstone `Deleted` of the old UID comes first). */
export interface AddedDelta<T extends KubeObject = KubeObject> extends DeltaBase<T> {
  /** What happened. */
  type: 'Added';
  /** The object now. */
  object: T;
  /** True for deltas produced by the first complete list, and by a late handler's replay. */
  isInInitialList: boolean;
  /**
   * True when the object was read from a persisted snapshot that the server has not confirmed yet
   * (the informer's `snapshot` option): it may be as old as the snapshot. Absent otherwise.
   */
  fromSnapshot?: boolean;
}

/** `Updated`: a changed object; `Replaced`: a relist found it unchanged (`object === oldObject`). */
export interface UpdatedDelta<T extends KubeObject = KubeObject> extends DeltaBase<T> {
  /** What happened. */
  type: 'Updated' | 'Replaced';
  /** The object now. */
  object: T;
  /** The object before. */
  oldObject: T;
}

/** `Sync`: a resync re-delivery of a cached object (handlers get an update with old === new). */
export interface SyncDelta<T extends KubeObject = KubeObject> extends DeltaBase<T> {
  /** What happened. */
  type: 'Sync';
  /** The cached object. */
  object: T;
}

/** `Deleted`: the key is gone. */
export interface DeletedDelta<T extends KubeObject = KubeObject> extends DeltaBase<T> {
  /** What happened. */
  type: 'Deleted';
  /** The deletion: key, last known object, whether it is a tombstone. */
  deleted: DeletedObject<T>;
}

/**
 * One change applied to the store, with the snapshot it produced: one shape per `DeltaType`.
 * `objectOf(delta)` reads the object of any of them (a deletion's last known one).
 */
export type Delta<T extends KubeObject = KubeObject> = AddedDelta<T> | UpdatedDelta<T> | SyncDelta<T> | DeletedDelta<T>;

/** The object a delta is about: the object now, or a deletion's last known one (possibly none). */
export function objectOf<T extends KubeObject>(delta: Delta<T>): T | undefined {
  return delta.type === 'Deleted' ? delta.deleted.lastKnown : delta.object;
}

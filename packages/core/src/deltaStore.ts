/**
 * The delta store: client-go's DeltaFIFO (in its atomic form) as a pure reducer for RxJS `scan`.
 * Each `ReflectorEvent` produces a new store snapshot and the deltas that lead to it.
 *
 * @example
 * reflector(lw).pipe(scan(createDeltaReducer<V1Pod>(), initialDeltaState<V1Pod>()))
 *   .subscribe(({ deltas }) => deltas.forEach((d) => console.log(d.type, d.key)));
 */
import { freezeReusing } from './deepFreeze.ts';
import { IndexerError, InvalidObjectError } from './errors.ts';
import { createStore, type StoreSnapshot } from './indexer.ts';
import type { Delta, Indexers, KubeObject, ReflectorEvent } from './types.ts';

/** Options of `createDeltaReducer`. */
export interface DeltaStoreOptions<T extends KubeObject> {
  /** Indexers in addition to the namespace index. Default: none. */
  indexers?: Indexers<T>;
  /** How keys are made. Default: `metaNamespaceKeyFunc`. */
  keyFunc?: (obj: T) => string;
  /**
   * Runs on each decoded object before it is frozen and stored, e.g. to drop
   * `metadata.managedFields`. It receives the raw object and may mutate and return it.
   * Default: none.
   */
  transform?: (obj: T) => T;
  /**
   * `false` stores objects as decoded, unfrozen and unshared (no freeze walk), so a handler that
   * mutates an object it was given changes the cache (client-node's risk). Unshared objects keep
   * more alive, so it is not faster in general: measure. Default `true`.
   */
  freeze?: boolean;
}

/** The state `scan` carries: the latest snapshot and what the last event did. */
export interface DeltaStoreState<T extends KubeObject> {
  /** The latest snapshot. */
  store: StoreSnapshot<T>;
  /** The deltas produced by the last applied event (empty for `status` and `bookmark`). */
  deltas: readonly Delta<T>[];
  /** Typed errors of the last applied event: objects skipped, index functions that threw. */
  errors: readonly Error[];
  /** The resource version of the last list, event or bookmark applied (opaque). */
  resourceVersion?: string;
  /** True once a complete list has been applied. */
  synced: boolean;
}

/**
 * The state before anything was applied: an empty store with the configured indexes and key
 * function. Pass the same options to `initialDeltaState` and `createDeltaReducer`: the store's
 * indexers and key function travel in the state, the transform in the reducer.
 *
 * @example
 * const options = { indexers: { byNode: (p: V1Pod) => [p.spec?.nodeName ?? ''] } };
 * reflector(lw).pipe(scan(createDeltaReducer(options), initialDeltaState(options)));
 */
export function initialDeltaState<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): DeltaStoreState<T> {
  return { store: createStore<T>(options), deltas: [], errors: [], synced: false };
}

/**
 * The reducer. Semantics:
 * - `replace` is atomic: every delta of a relist carries the final snapshot. Keys missing from the
 *   list become `Deleted` tombstones (`finalStateUnknown`), new keys `Added`, changed objects
 *   `Updated`, unchanged ones (same UID and resourceVersion) `Replaced` — the stored instance is kept.
 * - A key whose UID changed (deleted and recreated) becomes `Deleted` then `Added`, never `Updated`;
 *   the `Deleted` is a tombstone (`finalStateUnknown`): the old incarnation's deletion was not seen.
 * - A `modified`/`added` with the resourceVersion already stored produces nothing.
 * - A `deleted` of an unknown key changes nothing; of another UID than the stored one, it removes
 *   the stored object as a tombstone.
 * - Objects that cannot be keyed, transformed or indexed are skipped with a typed error in `errors`,
 *   except in a `deleted`: its key (read from the raw object) is removed all the same, and the
 *   stored object delivered as a `Deleted` tombstone (`finalStateUnknown`), so no deleted object
 *   stays cached.
 * - Stored objects are deeply frozen (unless `freeze: false`). A subtree equal to the same part of
 *   the object applied just before may be that object's (frozen) instance: stored objects can share
 *   equal parts.
 *
 * @example
 * const options = { transform: dropManagedFields };
 * reflector(lw)
 *   .pipe(scan(createDeltaReducer(options), initialDeltaState(options)))
 *   .subscribe(({ store, deltas }) => deltas.forEach((d) => console.log(d.type, d.key, store.size)));
 */
export function createDeltaReducer<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): DeltaReducer<T> {
  const { transform } = options;
  const freeze = options.freeze !== false;

  // Each object is frozen sharing the subtrees it has in common with the object prepared just
  // before it (pods of one ReplicaSet differ in a few fields; that object is still in the CPU's
  // cache, unlike the stored version of a key in a big store): only the differing parts are
  // frozen and kept alive, so the garbage collector copies far less. The reference only changes
  // which equal, frozen instances are shared, never what the store holds.
  let reference: T | undefined;
  // List items already transformed and frozen as their page arrived (`prepareListItem`), and the
  // transform failures met then, reported when the list is applied.
  const ready = new WeakSet<object>();
  const failed = new WeakMap<object, unknown>();
  const transformed = (raw: T): T => {
    if (raw === null || typeof raw !== 'object') throw new InvalidObjectError('object is not a JSON object', raw);
    if (failed.has(raw)) throw failed.get(raw);
    if (ready.has(raw)) return raw;
    const obj = transform ? transform(raw) : raw;
    if (!freeze) return obj;
    const frozen = freezeReusing(obj, reference);
    reference = frozen;
    return frozen;
  };
  const prepare = (store: StoreSnapshot<T>, raw: T, errors: Error[]): Prepared<T> | undefined => {
    try {
      const obj = transformed(raw);
      const key = store.keyFunc(obj);
      return { key, obj, stored: store.get(key) };
    } catch (cause) {
      errors.push(
        cause instanceof InvalidObjectError
          ? cause
          : new InvalidObjectError(`transform failed: ${(cause as Error)?.message ?? cause}`, raw, { cause }),
      );
      return undefined;
    }
  };
  const prepareListItem = (raw: T): T => {
    if (raw === null || typeof raw !== 'object' || ready.has(raw) || failed.has(raw)) return raw;
    try {
      const obj = transformed(raw);
      ready.add(obj);
      return obj;
    } catch (cause) {
      failed.set(raw, cause);
      return raw;
    }
  };
  return Object.assign(
    function applyDelta(state: DeltaStoreState<T>, event: ReflectorEvent<T>): DeltaStoreState<T> {
      switch (event.type) {
        case 'status':
          return state.deltas.length === 0 && state.errors.length === 0 ? state : { ...state, deltas: [], errors: [] };
        case 'bookmark':
          return { ...state, deltas: [], errors: [], resourceVersion: event.resourceVersion };
        case 'replace':
          return replace(state, event.items, event.resourceVersion, (raw, errors) => prepare(state.store, raw, errors));
        case 'added':
        case 'modified':
        case 'deleted': {
          const errors: Error[] = [];
          const prepared = prepare(state.store, event.object, errors);
          const resourceVersion = rvOf(event.object) ?? state.resourceVersion;
          let next: { store: StoreSnapshot<T>; deltas: Delta<T>[] };
          if (event.type !== 'deleted') {
            if (prepared === undefined) return { ...state, deltas: [], errors, resourceVersion };
            next = upsert(state.store, prepared, errors);
          } else next = prepared !== undefined ? remove(state.store, prepared) : removeUnprepared(state.store, event.object);
          return { ...state, store: next.store, deltas: next.deltas, errors, resourceVersion };
        }
        default: {
          const unknown: { type?: unknown } = event;
          return { ...state, deltas: [], errors: [new InvalidObjectError(`unknown reflector event type ${String(unknown.type)}`, event)] };
        }
      }
    },
    { prepareListItem },
  );
}

/**
 * The reducer of `createDeltaReducer`, for `scan`, with `prepareListItem`: the transform and freeze
 * of one list item, to run as its page arrives rather than when the whole list is applied, so that
 * an initial list's objects are frozen and share structure while young (far less for the garbage
 * collector to copy). Items so prepared are not transformed again; a transform that failed then is
 * reported, as usual, when the list is applied. Optional: unprepared items are prepared on apply.
 *
 * @example
 * const reduce = createDeltaReducer<V1Pod>({ transform: dropManagedFields });
 * const pages = lw.list({ limit: 500 }).pipe(map((p) => ({ ...p, items: p.items.map(reduce.prepareListItem) })));
 */
export type DeltaReducer<T extends KubeObject> = ((state: DeltaStoreState<T>, event: ReflectorEvent<T>) => DeltaStoreState<T>) & {
  /** The transformed, frozen item (kept for the `replace`), or `raw` when it cannot be prepared now. */
  prepareListItem: (raw: T) => T;
};

type Pending<T extends KubeObject> = Omit<Delta<T>, 'store'>;
/** A keyed, frozen object and what the store held under its key when it was prepared. */
type Prepared<T> = { key: string; obj: T; stored: T | undefined };

function withStore<T extends KubeObject>(pending: Pending<T>[], store: StoreSnapshot<T>): Delta<T>[] {
  return pending.map((d) => ({ ...d, store }));
}

const uidOf = (obj: KubeObject | undefined): string | undefined => obj?.metadata?.uid;
const rvOf = (obj: KubeObject | undefined): string | undefined => obj?.metadata?.resourceVersion;
const uidChanged = (a: KubeObject, b: KubeObject): boolean => uidOf(a) !== undefined && uidOf(b) !== undefined && uidOf(a) !== uidOf(b);
/** `obj` is the version already `stored`: same incarnation, same (known) resourceVersion. */
const sameVersion = (stored: KubeObject, obj: KubeObject): boolean =>
  !uidChanged(stored, obj) && rvOf(stored) !== undefined && rvOf(stored) === rvOf(obj);

function upsert<T extends KubeObject>(
  store: StoreSnapshot<T>,
  { key, obj, stored: old }: Prepared<T>,
  errors: Error[],
): { store: StoreSnapshot<T>; deltas: Delta<T>[] } {
  if (old !== undefined && sameVersion(old, obj)) return { store, deltas: [] };
  // The hot path of a busy watch: each delta is made once, with the final snapshot.
  const recreated = old !== undefined && uidChanged(old, obj);
  let next = recreated ? store.delete(key) : store;
  try {
    next = next === store ? next.setKnown(key, obj, old) : next.set(key, obj);
  } catch (err) {
    errors.push(err as IndexerError);
    // The old incarnation is gone on the server even if the new one cannot be indexed.
    return { store: next, deltas: recreated ? [{ type: 'Deleted', key, object: old, finalStateUnknown: true, store: next }] : [] };
  }
  if (recreated)
    return {
      store: next,
      deltas: [
        // The old incarnation's deletion was never seen: its last known state, as a tombstone.
        { type: 'Deleted', key, object: old, finalStateUnknown: true, store: next },
        { type: 'Added', key, object: obj, store: next },
      ],
    };
  return {
    store: next,
    deltas: [
      old !== undefined
        ? { type: 'Updated', key, object: obj, oldObject: old, store: next }
        : { type: 'Added', key, object: obj, store: next },
    ],
  };
}

function remove<T extends KubeObject>(
  store: StoreSnapshot<T>,
  { key, obj, stored }: Prepared<T>,
): { store: StoreSnapshot<T>; deltas: Delta<T>[] } {
  if (stored === undefined) return { store, deltas: [] };
  // A delete of another incarnation than the one we hold: ours is gone too, its final state unknown.
  if (uidChanged(stored, obj)) return removeAsTombstone(store, key, stored);
  const next = store.delete(key);
  return { store: next, deltas: [{ type: 'Deleted', key, object: obj, store: next }] };
}

/** Removes `key` and delivers `stored`, the last object known under it, as a tombstone (`finalStateUnknown`). */
function removeAsTombstone<T extends KubeObject>(
  store: StoreSnapshot<T>,
  key: string,
  stored: T,
): { store: StoreSnapshot<T>; deltas: Delta<T>[] } {
  const next = store.delete(key);
  return { store: next, deltas: [{ type: 'Deleted', key, object: stored, finalStateUnknown: true, store: next }] };
}

/**
 * A delete whose object could not be prepared (a transform that threw, an object the freeze
 * refused): the object is gone on the server all the same, so the key, read from the raw object,
 * is removed and its last known object delivered as a tombstone (its final state unknown: the one
 * that arrived could not be stored). Only an object that cannot even be keyed changes nothing.
 */
function removeUnprepared<T extends KubeObject>(store: StoreSnapshot<T>, raw: T): { store: StoreSnapshot<T>; deltas: Delta<T>[] } {
  let key: string;
  try {
    key = store.keyFunc(raw);
  } catch {
    return { store, deltas: [] }; // the preparation error already says why
  }
  const stored = store.get(key);
  return stored === undefined ? { store, deltas: [] } : removeAsTombstone(store, key, stored);
}

function replace<T extends KubeObject>(
  state: DeltaStoreState<T>,
  items: readonly T[],
  resourceVersion: string,
  prepare: (raw: T, errors: Error[]) => Prepared<T> | undefined,
): DeltaStoreState<T> {
  const errors: Error[] = [];
  const initial = !state.synced;
  const old = state.store;
  const entries = new Map<string, T>();
  for (const raw of items) {
    const prepared = prepare(raw, errors);
    if (prepared === undefined) continue;
    const kept = prepared.stored;
    // Unchanged objects keep the instance already stored, so a relist does not double the heap.
    const same = kept !== undefined && sameVersion(kept, prepared.obj);
    entries.set(prepared.key, same ? kept : prepared.obj);
  }
  const next = buildSkippingBadIndexes(old, entries, errors);
  const pending: Pending<T>[] = [];
  for (const key of old.keys()) {
    const before = old.get(key) as T;
    const after = next.get(key);
    if (after === undefined || uidChanged(before, after)) pending.push({ type: 'Deleted', key, object: before, finalStateUnknown: true });
  }
  for (const [key, after] of entries) {
    if (next.get(key) === undefined) continue;
    const before = old.get(key);
    if (before === undefined || uidChanged(before, after)) pending.push({ type: 'Added', key, object: after });
    else if (before === after) pending.push({ type: 'Replaced', key, object: after, oldObject: before });
    else pending.push({ type: 'Updated', key, object: after, oldObject: before });
  }
  const deltas = withStore(pending, next);
  if (initial) for (const d of deltas) d.isInInitialList = true;
  return { store: next, deltas, errors, resourceVersion, synced: true };
}

/** Replaces the whole content; an object an index function refuses is left out and reported. */
function buildSkippingBadIndexes<T extends KubeObject>(old: StoreSnapshot<T>, entries: Map<string, T>, errors: Error[]): StoreSnapshot<T> {
  return old.rebuilt(entries, (error, key) => {
    errors.push(error);
    entries.delete(key);
  });
}

/**
 * The delta store: client-go's DeltaFIFO (in its atomic form) as a pure reducer for RxJS `scan`.
 * Each prepared `ReflectorEvent` produces the next state (snapshot, resource version, synced) and,
 * beside it, what changed: the deltas that lead to it and the errors met.
 *
 * @example
 * reflector(lw, { prepare: createPrepare<Wire<V1Pod>>() })
 *   .pipe(scan((s, e) => applyEvent(s.state, e), initialDeltaStep<Wire<V1Pod>>()))
 *   .subscribe(({ deltas }) => deltas.forEach((d) => console.log(d.type, d.key)));
 */
import { InvalidObjectError, withCause, type IndexerError } from '../errors.ts';
import { createStore, type StoreSnapshot } from './indexer.ts';
import type { PrepareOptions } from './prepare.ts';
import type { DeletedDelta, Delta, Indexers, KubeObject, ReflectorEvent } from '../types.ts';

/** Options of the delta store: the store's and the prepare stage's. */
export interface DeltaStoreOptions<T extends KubeObject> extends PrepareOptions<T> {
  /** Indexers in addition to the namespace index. Default: none. */
  indexers?: Indexers<T>;
  /** How keys are made. Default: `metaNamespaceKeyFunc`. */
  keyFunc?: (obj: T) => string;
}

/** What the delta store knows: the latest snapshot, its resource version, whether it has synced. */
export interface DeltaStoreState<T extends KubeObject> {
  /** The latest snapshot. */
  readonly store: StoreSnapshot<T>;
  /** The resource version of the last list, event or bookmark applied (opaque). */
  readonly resourceVersion?: string;
  /** True once a complete list has been applied (or a restored snapshot confirmed). */
  readonly synced: boolean;
  /**
   * True while the store holds a restored snapshot (a `LIST` marked `restored`) that the server has
   * not confirmed yet: until the first watch event or bookmark, or a `LIST`.
   */
  readonly restored?: boolean;
}

/**
 * One step of the delta store: the next state, and the deltas and errors of the event applied. The
 * state keeps any other fields of the one given (`S`), as the informer's status.
 */
export interface DeltaStoreStep<T extends KubeObject, S extends DeltaStoreState<T> = DeltaStoreState<T>> {
  /** The state after the event. */
  state: S;
  /** The deltas the event produced, each carrying `state.store`. */
  deltas: readonly Delta<T>[];
  /** Typed errors of the event: objects that could not be prepared, keyed or indexed. */
  errors: readonly Error[];
}

/**
 * The state before anything was applied: an empty store with the configured indexes and key
 * function.
 *
 * @example
 * const options = { indexers: { byNode: (p: Wire<V1Pod>) => [p.spec?.nodeName ?? ''] } };
 * reflector(lw).pipe(scan((s, e) => applyEvent(s, e).state, initialDeltaState(options)));
 */
export function initialDeltaState<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): DeltaStoreState<T> {
  return { store: createStore<T>(options), synced: false };
}

/** `initialDeltaState` as a step with nothing applied, the seed of a `scan` over `applyEvent`. */
export function initialDeltaStep<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): DeltaStoreStep<T> {
  return { state: initialDeltaState(options), deltas: [], errors: [] };
}

/**
 * The reducer, pure: it closes over nothing. Objects arrive prepared (see `prepare.ts`); those the
 * prepare stage refused arrive as errors (`invalid`). Semantics:
 * - `LIST` is atomic: every delta of a relist carries the final snapshot. Keys missing from the
 *   list become `Deleted` tombstones (`finalStateUnknown`), new keys `Added`, changed objects
 *   `Updated`, unchanged ones (same UID and resourceVersion) `Replaced` — the stored instance is kept.
 * - A key whose UID changed (deleted and recreated) becomes `Deleted` then `Added`, never `Updated`;
 *   the `Deleted` is a tombstone (`finalStateUnknown`): the old incarnation's deletion was not seen.
 * - A `MODIFIED`/`ADDED` with the resourceVersion already stored produces nothing.
 * - A `DELETED` of an unknown key changes nothing; of another UID than the stored one, it removes
 *   the stored object as a tombstone.
 * - Objects that could not be prepared, keyed or indexed are skipped with a typed error in
 *   `errors`, except in a `DELETED`: its key (read from the raw object) is removed all the same,
 *   and the stored object delivered as a `Deleted` tombstone (`finalStateUnknown`), so no deleted
 *   object stays cached.
 * - `STATUS` changes nothing: the same state, no deltas.
 * - A `LIST` marked `restored` (a persisted snapshot, before the server was asked) fills the store
 *   as the initial list does, its `Added` deltas flagged `fromSnapshot`, but leaves it unsynced
 *   (`restored`). The first `ADDED`, `MODIFIED`, `DELETED` or `BOOKMARK` after it syncs it: the
 *   server answered a watch from the snapshot's resource version. A `LIST` over it (the watch was
 *   refused: 410) delivers only the differences: no `Replaced` for objects the snapshot had right.
 *   Refused (an error, nothing changed) once the store has synced.
 *
 * @example
 * reflector(lw, { prepare: createPrepare({ transform: dropManagedFields }) })
 *   .pipe(scan((s, e) => applyEvent(s.state, e), initialDeltaStep()))
 *   .subscribe(({ state, deltas }) => deltas.forEach((d) => console.log(d.type, d.key, state.store.size)));
 */
export function applyEvent<T extends KubeObject, S extends DeltaStoreState<T> = DeltaStoreState<T>>(
  state: S,
  event: ReflectorEvent<T>,
): DeltaStoreStep<T, S> {
  switch (event.type) {
    case 'STATUS':
      return { state, deltas: NONE, errors: NONE };
    case 'BOOKMARK':
      return { state: { ...state, resourceVersion: event.resourceVersion, ...confirmed(state) }, deltas: NONE, errors: NONE };
    case 'LIST':
      if (event.restored && state.synced)
        return { state, deltas: NONE, errors: [new InvalidObjectError('a restored snapshot cannot replace a synced cache', undefined)] };
      return replace(state, event.items, event.resourceVersion, event.invalid ?? NONE, event.restored === true);
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED': {
      const errors: Error[] = event.invalid ? [event.invalid] : [];
      const resourceVersion = rvOf(event.object) ?? state.resourceVersion;
      const keyed = event.invalid ? undefined : keyOf(state.store, event.object, errors);
      let next: { store: StoreSnapshot<T>; deltas: Delta<T>[] };
      if (event.type !== 'DELETED') {
        if (keyed === undefined) return { state: { ...state, resourceVersion, ...confirmed(state) }, deltas: NONE, errors };
        next = upsert(state.store, keyed, errors);
      } else next = keyed !== undefined ? remove(state.store, keyed) : removeUnprepared(state.store, event.object);
      return { state: { ...state, store: next.store, resourceVersion, ...confirmed(state) }, deltas: next.deltas, errors };
    }
    default: {
      const unknown: { type?: unknown } = event;
      return { state, deltas: NONE, errors: [new InvalidObjectError(`unknown reflector event type ${String(unknown.type)}`, event)] };
    }
  }
}

const NONE: readonly never[] = Object.freeze([]);

/** A watch event over a restored snapshot: the server took its resource version, so the cache is synced. */
const confirmed = (state: { readonly restored?: boolean }): { synced?: boolean; restored?: boolean } =>
  state.restored ? CONFIRMED : NONE_CHANGED;
const CONFIRMED = Object.freeze({ synced: true, restored: false });
const NONE_CHANGED = Object.freeze({});

/** A keyed object and what the store held under its key. */
type Prepared<T> = { key: string; obj: T; stored: T | undefined };

/** `obj` with its key and the object stored under it, or `undefined` (the error in `errors`). */
function keyOf<T extends KubeObject>(store: StoreSnapshot<T>, obj: T, errors: Error[]): Prepared<T> | undefined {
  try {
    if (obj === null || typeof obj !== 'object') throw new InvalidObjectError('object is not a JSON object', obj);
    const key = store.keyFunc(obj);
    return { key, obj, stored: store.get(key) };
  } catch (cause) {
    errors.push(
      cause instanceof InvalidObjectError ? cause : new InvalidObjectError(withCause('cannot key object', cause), obj, { cause }),
    );
    return undefined;
  }
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
    return { store: next, deltas: recreated ? [tombstone(key, old, next)] : [] };
  }
  if (recreated)
    return {
      store: next,
      deltas: [
        // The old incarnation's deletion was never seen: its last known state, as a tombstone.
        tombstone(key, old, next),
        { type: 'Added', key, object: obj, isInInitialList: false, store: next },
      ],
    };
  return {
    store: next,
    deltas: [
      old !== undefined
        ? { type: 'Updated', key, object: obj, oldObject: old, store: next }
        : { type: 'Added', key, object: obj, isInInitialList: false, store: next },
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
  return { store: next, deltas: [{ type: 'Deleted', key, deleted: { key, lastKnown: obj, finalStateUnknown: false }, store: next }] };
}

/** Removes `key` and delivers `stored`, the last object known under it, as a tombstone (`finalStateUnknown`). */
function removeAsTombstone<T extends KubeObject>(
  store: StoreSnapshot<T>,
  key: string,
  stored: T,
): { store: StoreSnapshot<T>; deltas: Delta<T>[] } {
  const next = store.delete(key);
  return { store: next, deltas: [tombstone(key, stored, next)] };
}

/** The `Deleted` of `key` whose last known object is `lastKnown`, its final state unknown. */
function tombstone<T extends KubeObject>(key: string, lastKnown: T, store: StoreSnapshot<T>): DeletedDelta<T> {
  return { type: 'Deleted', key, deleted: { key, lastKnown, finalStateUnknown: true }, store };
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

/**
 * The store replaced by a list's `items` (or, `restoring`, a snapshot's): the differences as deltas.
 * Over a restored snapshot, objects it had right give no `Replaced`: handlers heard of them already.
 */
function replace<T extends KubeObject, S extends DeltaStoreState<T>>(
  state: S,
  items: readonly T[],
  resourceVersion: string,
  invalid: readonly InvalidObjectError[],
  restoring: boolean,
): DeltaStoreStep<T, S> {
  const errors: Error[] = [...invalid];
  const initial = !state.synced;
  const heard = state.restored === true;
  const old = state.store;
  const entries = new Map<string, T>();
  for (const obj of items) {
    const keyed = keyOf(old, obj, errors);
    if (keyed === undefined) continue;
    const kept = keyed.stored;
    // Unchanged objects keep the instance already stored, so a relist does not double the heap.
    const same = kept !== undefined && sameVersion(kept, obj);
    entries.set(keyed.key, same ? kept : obj);
  }
  const next = buildSkippingBadIndexes(old, entries, errors);
  const deltas: Delta<T>[] = [];
  for (const key of old.keys()) {
    const before = old.get(key) as T;
    const after = next.get(key);
    if (after === undefined || uidChanged(before, after)) deltas.push(tombstone(key, before, next));
  }
  for (const [key, after] of entries) {
    if (next.get(key) === undefined) continue;
    const before = old.get(key);
    if (before === undefined || uidChanged(before, after))
      deltas.push(
        restoring
          ? { type: 'Added', key, object: after, isInInitialList: true, fromSnapshot: true, store: next }
          : { type: 'Added', key, object: after, isInInitialList: initial, store: next },
      );
    else if (before !== after) deltas.push({ type: 'Updated', key, object: after, oldObject: before, store: next });
    else if (!heard) deltas.push({ type: 'Replaced', key, object: after, oldObject: before, store: next });
  }
  const synced = { synced: !restoring, ...((restoring || heard) && { restored: restoring }) };
  return { state: { ...state, store: next, resourceVersion, ...synced }, deltas, errors };
}

/** Replaces the whole content; an object an index function refuses is left out and reported. */
function buildSkippingBadIndexes<T extends KubeObject>(old: StoreSnapshot<T>, entries: Map<string, T>, errors: Error[]): StoreSnapshot<T> {
  return old.rebuilt(entries, (error, key) => {
    errors.push(error);
    entries.delete(key);
  });
}

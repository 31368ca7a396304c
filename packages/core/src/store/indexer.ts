/**
 * The immutable, indexed store (client-go's `Indexer`): every write returns a new snapshot that
 * shares structure with the old one, so old snapshots stay valid and an update costs O(log n)
 * whatever the size of the cache or of an index bucket.
 */
import { IndexerError, InvalidOptionsError, withCause } from '../errors.ts';
import { NAMESPACE_INDEX, metaNamespaceKeyFunc, namespaceIndexFunc } from './keys.ts';
import { PersistentMap } from './persistentMap.ts';
import type { IndexFunc, Indexers, KubeObject, Store } from '../types.ts';

/** index value → set of keys (a persistent map of key → true). */
type Index = PersistentMap<PersistentMap<true>>;

/** Options of `createStore`. */
export interface StoreOptions<T extends KubeObject> {
  /** Extra indexers; the namespace index (`NAMESPACE_INDEX`) is always there. Default: none. */
  indexers?: Indexers<T>;
  /** How keys are made. Default: `metaNamespaceKeyFunc` (`namespace/name` or `name`). */
  keyFunc?: (obj: T) => string;
}

const EMPTY_KEYS = PersistentMap.empty<true>();

/**
 * An immutable snapshot of the cache with its indexes. Reads are the `Store` interface; writes
 * (`set`, `delete`, `replaceAll`, `addIndexers`) return new snapshots and never change this one.
 *
 * @example
 * const s1 = createStore<Wire<V1Pod>>();
 * const s2 = s1.set('default/web', pod);
 * s2.byIndex(NAMESPACE_INDEX, 'default'); // [pod]; s1 is still empty
 */
export class StoreSnapshot<T extends KubeObject = KubeObject> implements Store<T> {
  readonly #items: PersistentMap<T>;
  readonly #indexers: Readonly<Indexers<T>>;
  readonly #indices: Readonly<Record<string, Index>>;
  /** The key function objects of this store are filed with. */
  readonly keyFunc: (obj: T) => string;
  #list?: readonly T[];
  #keys?: readonly string[];

  /** @internal use `createStore`. */
  constructor(
    items: PersistentMap<T>,
    indexers: Readonly<Indexers<T>>,
    indices: Readonly<Record<string, Index>>,
    keyFunc: (obj: T) => string,
  ) {
    this.#items = items;
    this.#indexers = indexers;
    this.#indices = indices;
    this.keyFunc = keyFunc;
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** The objects, in the order of `keys()` (both walk the one map): `list()[i]` is stored under `keys()[i]`. */
  list(): readonly T[] {
    if (this.#list) return this.#list;
    const list: T[] = [];
    this.#items.forEach((value) => list.push(value));
    return (this.#list = Object.freeze(list));
  }

  /** The keys, in the order of `list()`. */
  keys(): readonly string[] {
    if (this.#keys) return this.#keys;
    const keys: string[] = [];
    this.#items.forEach((_, key) => keys.push(key));
    return (this.#keys = Object.freeze(keys));
  }

  indexKeys(indexName: string, value: string): readonly string[] {
    return [...(this.#index(indexName).get(value)?.keys() ?? [])];
  }

  byIndex(indexName: string, value: string): readonly T[] {
    const out: T[] = [];
    for (const key of this.#index(indexName).get(value)?.keys() ?? []) {
      const obj = this.#items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  listIndexValues(indexName: string): readonly string[] {
    return [...this.#index(indexName).keys()];
  }

  indexNames(): readonly string[] {
    return Object.keys(this.#indexers);
  }

  /** The indexers this store maintains, by name. */
  get indexers(): Readonly<Indexers<T>> {
    return this.#indexers;
  }

  /**
   * A snapshot with `obj` stored under `key`. Throws `IndexerError` (and changes nothing) when an
   * index function throws or returns something other than an array of strings.
   */
  set(key: string, obj: T): StoreSnapshot<T> {
    return this.setKnown(key, obj, this.#items.get(key));
  }

  /**
   * `set` for a caller that has just read `get(key)` (passed as `old`): saves a second walk of a
   * big store. `old` must be exactly what this snapshot holds under `key`.
   * @internal the delta store's hot path.
   */
  setKnown(key: string, obj: T, old: T | undefined): StoreSnapshot<T> {
    let indices: Record<string, Index> | undefined;
    for (const [name, fn] of Object.entries(this.#indexers)) {
      const before = old === undefined ? [] : indexValuesOrEmpty(fn, old);
      const after = safeIndexValues(name, fn, obj, key);
      const index = updateIndex(this.#indices[name], key, before, after);
      if (index !== this.#indices[name]) (indices ??= { ...this.#indices })[name] = index;
    }
    return new StoreSnapshot(this.#items.set(key, obj), this.#indexers, indices ? Object.freeze(indices) : this.#indices, this.keyFunc);
  }

  /** A snapshot without `key` (this one when the key is absent). */
  delete(key: string): StoreSnapshot<T> {
    const old = this.#items.get(key);
    if (old === undefined) return this;
    const indices: Record<string, Index> = {};
    for (const [name, fn] of Object.entries(this.#indexers)) {
      indices[name] = updateIndex(this.#indices[name], key, indexValuesOrEmpty(fn, old), []);
    }
    return new StoreSnapshot(this.#items.delete(key), this.#indexers, Object.freeze(indices), this.keyFunc);
  }

  /**
   * A snapshot holding exactly `entries` (an atomic relist), with every index rebuilt. Throws
   * `IndexerError` when an index function throws.
   */
  replaceAll(entries: Iterable<readonly [string, T]>): StoreSnapshot<T> {
    return this.rebuilt(entries, (error) => {
      throw error;
    });
  }

  /**
   * A snapshot holding exactly `entries` (later entries win), its map and indexes built in one pass
   * (no path copied per entry: a relist of 100k objects is several times faster than as many
   * `set`s). An entry an index function refuses is left out and handed to `onRefused`, which may
   * throw to give up.
   * @internal the delta store's relist; `replaceAll` for everyone else.
   */
  rebuilt(entries: Iterable<readonly [string, T]>, onRefused: (error: IndexerError, key: string) => void): StoreSnapshot<T> {
    const byKey = new Map<string, T>(entries);
    const names = Object.keys(this.#indexers);
    const buckets = names.map(() => new Map<string, string[]>());
    const values: (readonly string[])[] = [];
    for (const [key, obj] of byKey) {
      values.length = 0;
      try {
        for (const name of names) values.push(safeIndexValues(name, this.#indexers[name], obj, key));
      } catch (error) {
        byKey.delete(key);
        onRefused(error as IndexerError, key);
        continue;
      }
      values.forEach((vs, i) => {
        for (const v of vs) {
          const keys = buckets[i].get(v);
          if (keys === undefined) buckets[i].set(v, [key]);
          else keys.push(key);
        }
      });
    }
    const indices: Record<string, Index> = {};
    names.forEach((name, i) => {
      indices[name] = PersistentMap.from(
        [...buckets[i]].map(([v, keys]) => [v, PersistentMap.from(keys.map((k) => [k, true] as const))] as const),
      );
    });
    return new StoreSnapshot<T>(PersistentMap.from(byKey), this.#indexers, Object.freeze(indices), this.keyFunc);
  }

  /**
   * A snapshot that also maintains `indexers`; objects already stored are indexed at once.
   * Throws `IndexerError` for a name already in use or an index function that throws.
   */
  addIndexers(indexers: Indexers<T>): StoreSnapshot<T> {
    const indices: Record<string, Index> = { ...this.#indices };
    for (const [name, fn] of Object.entries(indexers)) {
      if (Object.hasOwn(this.#indexers, name)) throw new IndexerError(name, `indexer "${name}" already exists`);
      if (name === '__proto__') throw new InvalidOptionsError('"__proto__" cannot name an indexer');
      if (typeof fn !== 'function') throw new InvalidOptionsError(`indexer "${name}" is not a function`);
      let index: Index = PersistentMap.empty();
      for (const [key, obj] of this.#items) index = updateIndex(index, key, [], safeIndexValues(name, fn, obj, key));
      indices[name] = index;
    }
    return new StoreSnapshot(this.#items, Object.freeze({ ...this.#indexers, ...indexers }), Object.freeze(indices), this.keyFunc);
  }

  #index(name: string): Index {
    const index = Object.hasOwn(this.#indices, name) ? this.#indices[name] : undefined; // not `constructor` & co.
    if (index === undefined) throw new IndexerError(name, `index "${name}" does not exist (known: ${this.indexNames().join(', ')})`);
    return index;
  }
}

/**
 * An empty store with the namespace index and `options.indexers`.
 *
 * @example
 * const store = createStore<Wire<V1Pod>>({ indexers: { byNode: (p) => [p.spec?.nodeName ?? ''] } });
 */
export function createStore<T extends KubeObject = KubeObject>(options: StoreOptions<T> = {}): StoreSnapshot<T> {
  const indexers: Indexers<T> = { [NAMESPACE_INDEX]: namespaceIndexFunc as IndexFunc<T> };
  for (const [name, fn] of Object.entries(options.indexers ?? {})) {
    if (typeof fn !== 'function') throw new InvalidOptionsError(`indexer "${name}" is not a function`);
    if (name === '__proto__') throw new InvalidOptionsError('"__proto__" cannot name an indexer');
    indexers[name] = fn;
  }
  return new StoreSnapshot<T>(
    PersistentMap.empty(),
    Object.freeze(indexers),
    emptyIndices(indexers),
    options.keyFunc ?? metaNamespaceKeyFunc,
  );
}

function emptyIndices(indexers: Indexers<never>): Readonly<Record<string, Index>> {
  return Object.freeze(Object.fromEntries(Object.keys(indexers).map((name) => [name, PersistentMap.empty<PersistentMap<true>>()])));
}

function safeIndexValues<T>(name: string, fn: IndexFunc<T & KubeObject>, obj: T, key: string): readonly string[] {
  let values: unknown;
  try {
    values = fn(obj as T & KubeObject);
  } catch (cause) {
    throw new IndexerError(name, withCause(`index function "${name}" threw for ${key}`, cause), { cause });
  }
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
    throw new IndexerError(name, `index function "${name}" must return an array of strings for ${key}`);
  }
  return values as readonly string[];
}

/** The old object's values when removing it: an index function that now throws files it nowhere. */
function indexValuesOrEmpty<T extends KubeObject>(fn: IndexFunc<T>, obj: T): readonly string[] {
  try {
    const values: unknown = fn(obj);
    return Array.isArray(values) ? (values as readonly string[]) : [];
  } catch {
    return [];
  }
}

function updateIndex(index: Index, key: string, before: readonly string[], after: readonly string[]): Index {
  let next = index;
  for (const value of before) {
    if (after.includes(value)) continue;
    const keys = next.get(value);
    if (keys === undefined) continue;
    const remaining = keys.delete(key);
    next = remaining.size === 0 ? next.delete(value) : next.set(value, remaining);
  }
  for (const value of after) {
    if (before.includes(value)) continue;
    next = next.set(value, (next.get(value) ?? EMPTY_KEYS).set(key, true));
  }
  return next;
}

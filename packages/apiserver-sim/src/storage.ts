/**
 * The simulator's etcd and watch cache: one global resource-version counter, objects keyed by
 * group/version/resource + `namespace/name`, a history window per resource (bounded by count and
 * by age, like the API server's per-resource watch cache: churn of one kind never expires another
 * kind's window), compaction, point-in-time snapshots for consistent paging, and watchers.
 *
 * This layer stores what it is given: metadata defaults, validation and conflicts live in the
 * object store (`objects.ts` and its write paths). Stored objects are never mutated; every change
 * stores a new object.
 */
import type { KubeObject } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import { HistoryWindow } from './historyWindow.ts';
import { Collection, lowerBound, mergeSorted, prefixEnd, rangeKeys } from './sortedCollection.ts';

/** The change types a watch sees. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, as kept in the history. */
export interface StoredEvent {
  /** The revision this change created. */
  readonly rv: number;
  /** `group/version/resource` of the object. */
  readonly gvr: string;
  /** What the change was. */
  readonly type: ChangeType;
  /** `namespace/name` or `name`. */
  readonly key: string;
  /** The new state (for DELETED: the last state, carrying the deletion's revision). */
  readonly object: KubeObject;
  /** The state before the change (MODIFIED and DELETED). */
  readonly prev?: KubeObject;
  /** Wall-clock time of the commit (ms). */
  readonly time: number;
}

/** Watch history bounds, applied to each resource's window. */
export interface HistoryOptions {
  /** Most events kept per resource (default 10,000). */
  maxEvents?: number;
  /**
   * Oldest event age kept in ms (default 300,000: etcd's 5-minute compaction). Events aging out
   * also compact the revisions that lists at an old revision and continue tokens can use. A number
   * >= 0 of any length (compared with the clock, no timer), or `Infinity`: by count only.
   */
  maxAgeMs?: number;
}

/** `maxAgeMs`, checked: >= 0 of any length (compared with the clock, no timer), or `Infinity`. */
const checkMaxAge = (ms: number | undefined): number => checkDuration('history.maxAgeMs', ms, 300_000, { infinite: true });

/** A listener of committed changes. */
export type ChangeListener = (event: StoredEvent) => void;

/** `namespace/name` for namespaced objects, `name` otherwise. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A read view of one resource at one revision. */
export interface Snapshot {
  /** The revision the view is at. */
  readonly rv: number;
  /** The object under `key` at this revision. */
  get(key: string): KubeObject | undefined;
  /** Keys in order, starting at the first key >= `from` (and < `prefix`'s end when given). */
  keys(from: string, prefix?: string): Iterable<string>;
  /** Count of keys >= `from` within `prefix`. */
  countFrom(from: string, prefix?: string): number;
}

/**
 * The storage: revisions, objects, history and watchers.
 *
 * @example
 * const s = new Storage({ maxEvents: 1000 });
 * s.commit('/v1/pods', 'ADDED', 'default/a', pod);
 */
export class Storage {
  /** The current revision (the last committed change). */
  #rv: number;
  /** The etcd compaction: explicit (`compact()`) or by age. */
  #compactedRv: number;
  /** The last explicit compaction, which empties every window. */
  #explicitRv: number;
  readonly #windows = new Map<string, HistoryWindow<StoredEvent>>();
  #historySize = 0;
  readonly #collections = new Map<string, Collection>();
  readonly #listeners = new Map<string, Set<ChangeListener>>();
  #maxEvents: number;
  #maxAgeMs: number;
  readonly #now: () => number;

  constructor(options: HistoryOptions & { initialRv?: number; now?: () => number } = {}) {
    this.#maxEvents = options.maxEvents ?? 10_000;
    this.#maxAgeMs = checkMaxAge(options.maxAgeMs);
    this.#rv = options.initialRv ?? 1;
    this.#compactedRv = this.#rv;
    this.#explicitRv = this.#rv;
    this.#now = options.now ?? Date.now;
  }

  /** The current revision. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /**
   * The compacted revision (etcd's): explicit compactions and events aged out of any window. Lists
   * at an older revision and continue tokens from before it answer 410.
   */
  get compactedRevision(): number {
    this.#trimAge();
    return this.#compactedRv;
  }

  /**
   * The highest revision a watch of `gvr` can no longer start from: the newest event of that
   * resource evicted from its window (by count or age), or the last explicit compaction.
   */
  watchCompactedRevision(gvr: string): number {
    this.#trimAge();
    return Math.max(this.#explicitRv, this.#windows.get(gvr)?.evictedRv ?? 0);
  }

  /** The highest revision a view of `gvr` can no longer be taken at (the larger of the two above). */
  listCompactedRevision(gvr: string): number {
    return Math.max(this.compactedRevision, this.watchCompactedRevision(gvr));
  }

  /** Number of events currently retained, all resources together. */
  get historySize(): number {
    return this.#historySize;
  }

  /** Changes the history bounds (applied at the next commit or read). */
  setHistoryLimits(options: HistoryOptions): void {
    if (options.maxEvents !== undefined) this.#maxEvents = options.maxEvents;
    if (options.maxAgeMs !== undefined) this.#maxAgeMs = checkMaxAge(options.maxAgeMs);
    for (const w of this.#windows.values()) this.#trimCount(w);
    this.#trimAge();
  }

  /** Takes the next revision without a change (used when an object's revision must be known first). */
  nextRevision(): number {
    return this.#rv + 1;
  }

  /** The current object under `key`, if any. */
  get(gvr: string, key: string): KubeObject | undefined {
    return this.#collections.get(gvr)?.objects.get(key);
  }

  /** How many objects `gvr` holds. */
  count(gvr: string): number {
    return this.#collections.get(gvr)?.objects.size ?? 0;
  }

  /** Every current object of `gvr` (unordered). */
  values(gvr: string): IterableIterator<KubeObject> {
    return (this.#collections.get(gvr)?.objects ?? new Map<string, KubeObject>()).values();
  }

  /**
   * Commits one change at revision `nextRevision()`: the caller has already stamped the object
   * with that revision. Notifies watchers synchronously.
   */
  commit(gvr: string, type: ChangeType, key: string, object: KubeObject): StoredEvent {
    let col = this.#collections.get(gvr);
    if (!col) {
      col = new Collection();
      this.#collections.set(gvr, col);
    }
    const prev = col.objects.get(key);
    if (type === 'ADDED' && prev) throw new Error(`storage: ${gvr} ${key} already exists`);
    if (type !== 'ADDED' && !prev) throw new Error(`storage: ${gvr} ${key} does not exist`);
    this.#rv += 1;
    if (type === 'DELETED') {
      col.objects.delete(key);
      col.remove(key);
    } else {
      if (!prev) col.insert(key);
      col.objects.set(key, object);
    }
    const event: StoredEvent = prev
      ? { rv: this.#rv, gvr, type, key, object, prev, time: this.#now() }
      : { rv: this.#rv, gvr, type, key, object, time: this.#now() };
    let w = this.#windows.get(gvr);
    if (!w) {
      w = new HistoryWindow<StoredEvent>();
      this.#windows.set(gvr, w);
    }
    w.events.push(event);
    this.#historySize += 1;
    this.#trimCount(w);
    this.#trimAge();
    const listeners = this.#listeners.get(gvr);
    if (listeners) for (const l of [...listeners]) l(event);
    return event;
  }

  /** Drops every history event up to the current revision. */
  compact(): void {
    for (const w of this.#windows.values()) {
      w.head = w.events.length;
      w.gc();
    }
    this.#historySize = 0;
    this.#compactedRv = this.#rv;
    this.#explicitRv = this.#rv;
  }

  #trimCount(w: HistoryWindow<StoredEvent>): void {
    while (w.size > this.#maxEvents) {
      w.evict();
      this.#historySize -= 1;
    }
    w.gc();
  }

  /** Evicts events older than `maxAgeMs` from every window; that much of etcd is compacted too. */
  #trimAge(): void {
    const cutoff = this.#now() - this.#maxAgeMs;
    for (const w of this.#windows.values()) {
      if (w.size === 0 || w.events[w.head].time >= cutoff) continue;
      while (w.size > 0 && w.events[w.head].time < cutoff) {
        const e = w.evict();
        this.#historySize -= 1;
        if (e.rv > this.#compactedRv) this.#compactedRv = e.rv;
      }
      w.gc();
    }
  }

  /** History events of `gvr` with rv > `rv`, oldest first, at most `limit` of them. Throws if `rv` is compacted. */
  eventsSince(gvr: string, rv: number, limit = Infinity): StoredEvent[] {
    const compacted = this.watchCompactedRevision(gvr);
    if (rv < compacted) throw new CompactedError(rv, compacted);
    const w = this.#windows.get(gvr);
    if (!w) return [];
    const from = w.firstAfter(rv);
    return w.events.slice(from, Math.min(w.events.length, from + limit));
  }

  /**
   * A view of `gvr` at revision `rv` (<= current). Throws `CompactedError` when the history no
   * longer reaches back to `rv`.
   */
  snapshot(gvr: string, rv: number = this.#rv): Snapshot {
    const col = this.#collections.get(gvr) ?? new Collection();
    if (rv >= this.#rv) return liveSnapshot(col, this.#rv);
    const compacted = this.listCompactedRevision(gvr);
    if (rv < compacted) throw new CompactedError(rv, compacted);
    // Undo the changes made after rv: the first later event of each key holds its state at rv.
    const overlay = new Map<string, KubeObject | null>();
    for (const e of this.eventsSince(gvr, rv)) if (!overlay.has(e.key)) overlay.set(e.key, e.type === 'ADDED' ? null : (e.prev ?? null));
    const extra = [...overlay.keys()].filter((k) => !col.objects.has(k)).sort();
    const keys = extra.length === 0 ? col.sorted : mergeSorted(col.sorted, extra);
    return {
      rv,
      get: (key) => (overlay.has(key) ? (overlay.get(key) ?? undefined) : col.objects.get(key)),
      keys: (from, prefix) => rangeKeys(keys, from, prefix),
      countFrom: (from, prefix) => {
        let n = 0;
        for (const k of rangeKeys(keys, from, prefix)) if (overlay.has(k) ? overlay.get(k) : true) n++;
        return n;
      },
    };
  }

  /** Subscribes to committed changes of `gvr`. Returns the unsubscribe function. */
  subscribe(gvr: string, listener: ChangeListener): () => void {
    let set = this.#listeners.get(gvr);
    if (!set) {
      set = new Set();
      this.#listeners.set(gvr, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Forgets the whole history (a restart): revisions continue from the current one. */
  dropHistory(): void {
    this.compact();
  }
}

function liveSnapshot(col: Collection, rv: number): Snapshot {
  return {
    rv,
    get: (key) => col.objects.get(key),
    keys: (from, prefix) => rangeKeys(col.sorted, from, prefix),
    countFrom: (from, prefix) => {
      const start = lowerBound(col.sorted, from);
      const end = prefix === undefined ? col.sorted.length : lowerBound(col.sorted, prefixEnd(prefix));
      return Math.max(0, end - start);
    },
  };
}

/** The history no longer reaches back to the revision asked for. */
export class CompactedError extends Error {
  /** Always `CompactedError`: set as a string, so it survives minification. */
  override readonly name: string = 'CompactedError';
  /** The revision asked for. */
  readonly requested: number;
  /** The compacted revision. */
  readonly compacted: number;

  constructor(requested: number, compacted: number) {
    super(`too old resource version: ${requested} (${compacted + 1})`);
    this.requested = requested;
    this.compacted = compacted;
  }
}

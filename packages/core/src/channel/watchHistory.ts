/**
 * The bounded history a server keeps per informer, so that a watch from resource version r gets
 * exactly the events after r (kube-apiserver's watch cache, in small): a ring of recent events, each
 * at the resource version the informer reached with it, and the gaps a relist of the server's
 * informer leaves (its differences are known, not the changes in between).
 *
 * Resource versions are compared as etcd revisions (unsigned integers), as kube-apiserver's watch
 * cache does; one that is not an integer cannot be placed (`parseRevision` is undefined for it).
 */
import type { WatchEvent } from '../types.ts';

/** An etcd revision: a resource version as kube-apiserver writes it (an unsigned integer, no leading zero); else undefined. */
export function parseRevision(rv: string | undefined): bigint | undefined {
  return typeof rv === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(rv) ? BigInt(rv) : undefined;
}

/** One event of the history, at the revision the informer reached with it. */
interface Entry {
  readonly at: bigint;
  /** When it was appended, on the retention's clock (0 without one). */
  readonly t: number;
  readonly event: WatchEvent;
  /** The relist it belongs to started from this revision: nothing between it and `at` is known. */
  readonly since?: bigint;
}

/** Where a watch from some revision starts: the events after it, or why there is none. */
export type Placement =
  /** The events after the revision, in order (possibly none). */
  | { type: 'replay'; events: WatchEvent[] }
  /** The revision is older than the history (or falls in a relist's gap): 410, relist. */
  | { type: 'expired'; oldest: bigint }
  /** The revision is newer than the history's head: wait for it. */
  | { type: 'future'; head: bigint };

/**
 * Which events a history keeps besides its capacity: every one of the last `ageMs` (kube-apiserver's
 * watch cache keeps at least 75 s), and the last `minKept` whatever their age; older ones go.
 */
export interface HistoryRetention {
  /** Events are kept this long, in ms (up to the capacity). */
  readonly ageMs: number;
  /** The clock, in ms. */
  readonly now: () => number;
  /** This many of the newest events are kept whatever their age. */
  readonly minKept: number;
}

/**
 * The history of one informer: `begin` once it has synced, then `append` each event, `relisted` for
 * a relist's differences, `advance` when its resource version moves with no object change.
 *
 * @example
 * const h = new WatchHistory(102_400, { ageMs: 75_000, now: Date.now, minKept: 1024 });
 * h.begin(10n);
 * h.append(11n, { type: 'ADDED', object: pod });
 * h.place(10n); // { type: 'replay', events: [the ADDED] }
 */
export class WatchHistory {
  /** The events, oldest first, from `first`. */
  #entries: Entry[] = [];
  #first = 0;
  /** Every event after this revision is held. */
  #floor = 0n;
  #head = 0n;

  /** At most this many events are held: the oldest go first. */
  readonly capacity: number;
  readonly #retention: HistoryRetention | undefined;

  /** Holds at most `capacity` events; with `retention`, drops those older than its age too (past its `minKept`). */
  constructor(capacity: number, retention?: HistoryRetention) {
    this.capacity = capacity;
    this.#retention = retention;
  }

  /** The revision the informer is at. */
  get head(): bigint {
    return this.#head;
  }

  /** Starts (or restarts, forgetting everything) at `at`: the informer's state there is its cache. */
  begin(at: bigint): void {
    this.#entries = [];
    this.#first = 0;
    this.#floor = this.#head = at;
  }

  /** An event that took the informer to `at` (at least the head: an older one is held at the head). */
  append(at: bigint, event: WatchEvent): void {
    if (at > this.#head) this.#head = at;
    this.#push({ at: this.#head, event });
  }

  /**
   * A relist that took the informer from `since` to `at`, with its differences as events (all held
   * at `at`): a watch from between the two cannot be placed.
   */
  relisted(since: bigint, at: bigint, events: readonly WatchEvent[]): void {
    if (at <= this.#head) {
      // Nothing newer than what is held: the differences at the head, no gap to mark.
      for (const event of events) this.#push({ at: this.#head, event });
      return;
    }
    this.#head = at;
    const gapFrom = since < at ? since : at;
    if (events.length === 0)
      this.#push({ at, event: { type: 'BOOKMARK', object: { metadata: { resourceVersion: String(at) } } }, since: gapFrom });
    for (const event of events) this.#push({ at, event, since: gapFrom });
  }

  /** The informer's resource version moved to `at` with no object change (a bookmark of its own watch). */
  advance(at: bigint): void {
    if (at > this.#head) this.#head = at;
  }

  /** Where a watch from revision `from` starts. */
  place(from: bigint): Placement {
    this.#trim();
    if (from > this.#head) return { type: 'future', head: this.#head };
    if (from < this.#floor) return { type: 'expired', oldest: this.#floor };
    const start = this.#firstAfter(from);
    const entries = this.#entries;
    const gap = entries[start]?.since;
    if (gap !== undefined && gap < from) return { type: 'expired', oldest: entries[start].at };
    const events: WatchEvent[] = [];
    for (let i = start; i < entries.length; i++) if (!isGapMark(entries[i])) events.push(entries[i].event);
    return { type: 'replay', events };
  }

  /** The index of the first entry after revision `from` (entries are in revision order). */
  #firstAfter(from: bigint): number {
    let lo = this.#first;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#entries[mid].at > from) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  #push(entry: Omit<Entry, 't'>): void {
    this.#entries.push({ ...entry, t: this.#retention?.now() ?? 0 });
    this.#trim();
  }

  /** Drops the oldest events past the capacity, and those past the retention's age. */
  #trim(): void {
    const entries = this.#entries;
    const r = this.#retention;
    const oldest = r ? r.now() - r.ageMs : -Infinity;
    let held = entries.length - this.#first;
    while (held > this.capacity || (r !== undefined && held > r.minKept && entries[this.#first].t <= oldest)) {
      this.#floor = entries[this.#first].at;
      this.#first++;
      held--;
    }
    // Copied down now and then (once half is dropped), so the array does not grow with what it dropped.
    if (this.#first > 1024 && this.#first * 2 >= entries.length) {
      this.#entries = entries.slice(this.#first);
      this.#first = 0;
    }
  }
}

/** The mark of a relist that found no difference: it holds the gap, and is no event to send. */
const isGapMark = (e: Entry): boolean => e.since !== undefined && e.event.type === 'BOOKMARK';

/**
 * One resource's watch history: its events oldest first, evicted from the front (by count or age,
 * as the storage decides), with a binary search by revision for watches and snapshots.
 */

/** One resource's history window: events oldest first from `head`. */
export class HistoryWindow<E extends { readonly rv: number }> {
  readonly events: E[] = [];
  head = 0;
  /** The highest revision of an event of this resource no longer in the window. */
  evictedRv = 0;

  /** Events in the window. */
  get size(): number {
    return this.events.length - this.head;
  }

  /** Removes the oldest event and returns it. */
  evict(): E {
    const e = this.events[this.head];
    this.head += 1;
    this.evictedRv = e.rv;
    return e;
  }

  /** Drops evicted events from the array once they are the larger part of it. */
  gc(): void {
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Index of the first event with rv > `rv`. */
  firstAfter(rv: number): number {
    const h = this.events;
    let lo = this.head;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

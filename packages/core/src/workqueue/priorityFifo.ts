/**
 * The waiting line of a `WorkQueue`: keys in first-in first-out order within a priority, higher
 * priorities first. A key waits once; adding it again with a higher priority moves it up (to the
 * end of that priority's line), with a lower or equal one leaves it where it is.
 */

/** The keys of one priority, in arrival order; entries of keys that moved or left are skipped. */
interface Lane<K> {
  readonly priority: number;
  readonly items: K[];
  head: number;
}

/** A de-duplicating FIFO per priority, highest priority first. */
export class PriorityFifo<K> {
  /** Non-empty lanes, highest priority first. */
  readonly #lanes: Lane<K>[] = [];
  /** Each waiting key and the priority it waits at. */
  readonly #waiting = new Map<K, number>();

  /** Keys waiting. */
  get size(): number {
    return this.#waiting.size;
  }

  /** True if `key` is waiting. */
  has(key: K): boolean {
    return this.#waiting.has(key);
  }

  /** The priority `key` waits at, or undefined. */
  priorityOf(key: K): number | undefined {
    return this.#waiting.get(key);
  }

  /** Appends `key` at `priority`, or raises a waiting key to it; true if the key was not waiting. */
  push(key: K, priority: number): boolean {
    const current = this.#waiting.get(key);
    if (current !== undefined && current >= priority) return false;
    this.#waiting.set(key, priority);
    this.#lane(priority).items.push(key);
    return current === undefined;
  }

  /** Takes `key` out of the line; true if it was waiting. */
  delete(key: K): boolean {
    return this.#waiting.delete(key); // its lane entry is skipped when reached
  }

  /** Takes the first key of the highest priority, or undefined when none waits. */
  shift(): K | undefined {
    while (this.#lanes.length > 0) {
      const lane = this.#lanes[0];
      while (lane.head < lane.items.length) {
        const key = lane.items[lane.head];
        lane.items[lane.head] = undefined as K;
        lane.head++;
        // An entry left behind when its key moved up, or taken already from another entry.
        if (this.#waiting.get(key) !== lane.priority) continue;
        this.#waiting.delete(key);
        if (lane.head > 1024 && lane.head * 2 > lane.items.length) {
          lane.items.splice(0, lane.head);
          lane.head = 0;
        }
        return key;
      }
      this.#lanes.shift();
    }
    return undefined;
  }

  /** Drops every waiting key. */
  clear(): void {
    this.#lanes.length = 0;
    this.#waiting.clear();
  }

  #lane(priority: number): Lane<K> {
    let i = 0;
    while (i < this.#lanes.length && this.#lanes[i].priority > priority) i++;
    if (this.#lanes[i]?.priority === priority) return this.#lanes[i];
    const lane: Lane<K> = { priority, items: [], head: 0 };
    this.#lanes.splice(i, 0, lane);
    return lane;
  }
}

/**
 * A bounded cache whose entries expire: what the token and decision caches of the hub's
 * authenticators and authorizer keep, on a scheduler's clock so that tests run it in virtual time.
 */

/** One entry: its value and when it stops being served, in the clock's ms. */
interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/**
 * A Map of at most `maxEntries` entries, each served until its own expiry; the least recently read
 * entry makes room for a new one. Keys are whatever the caller chose: never a credential (hash it).
 *
 * @example
 * const cache = new TtlCache<boolean>(10_000, () => scheduler.now());
 * cache.set('k', true, 5_000);
 * cache.get('k'); // true for the next 5 s
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(maxEntries: number, now: () => number) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The value of `key` when present and not expired (an expired one is dropped). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) return undefined;
    this.#entries.set(key, entry); // most recently read last
    return entry.value;
  }

  /** Stores `value` for `ttlMs` (nothing for a TTL ≤ 0), dropping the least recently read entry when full. */
  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (!(ttlMs > 0)) return;
    while (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
  }

  /** Drops the entries expired by now, and those `also` selects; returns the values dropped. */
  sweep(also: (value: V) => boolean = () => false): V[] {
    const now = this.#now();
    const dropped: V[] = [];
    for (const [key, entry] of this.#entries)
      if (entry.expiresAt <= now || also(entry.value)) {
        this.#entries.delete(key);
        dropped.push(entry.value);
      }
    return dropped;
  }

  /** The keys held (for tests that check what is stored). */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** How many entries are held, expired ones included until read or swept. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Runs `load` once per key at a time: concurrent callers of the same key share one promise (one
 * review for a burst of tabs of the same user).
 */
export function coalescing<T>(): (key: string, load: () => Promise<T>) => Promise<T> {
  const inFlight = new Map<string, Promise<T>>();
  return (key, load) => {
    const running = inFlight.get(key);
    if (running) return running;
    const promise = load().finally(() => inFlight.delete(key));
    inFlight.set(key, promise);
    return promise;
  };
}

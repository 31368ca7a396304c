/**
 * Where snapshots are kept: a small key → text contract, so a store needs no knowledge of the
 * format (the informer encodes, checks and decodes; every store gets the same checksum and
 * refusals). core has a memory store and an IndexedDB store (browsers); client-node a file store.
 */

/**
 * A place to keep informers' snapshots, by key (`snapshotKey`: `[a-z0-9.-]`, under 120 characters).
 * Every method may reject; the informer reports a failure on its status and goes on (a failed load
 * starts cold, a failed save keeps the previous snapshot).
 *
 * @example
 * const store: SnapshotStore = {
 *   load: async (key) => (await redis.get(key)) ?? undefined,
 *   save: async (key, data) => void (await redis.set(key, data)),
 *   remove: async (key) => void (await redis.del(key)),
 * };
 *
 * Caveat: `save` must replace the old text whole or not at all (a file renamed into place, one
 * transaction): a snapshot cut short is refused on load (`Truncated`), and the informer then starts cold.
 */
export interface SnapshotStore {
  /** The text saved under `key`, or `undefined` when there is none. */
  load(key: string): Promise<string | undefined>;
  /** Replaces what is saved under `key` with `data`, atomically. */
  save(key: string, data: string): Promise<void>;
  /** Removes what is saved under `key` (nothing there is no error). */
  remove(key: string): Promise<void>;
}

/**
 * A snapshot store in this process's memory: for tests, and for informers restarted within one
 * process (a new factory after a reconnect to the same cluster).
 *
 * @example
 * const store = memorySnapshotStore();
 * const factory = createInformerFactory(source, { snapshots: { store, server: 'test' } });
 */
export function memorySnapshotStore(): SnapshotStore {
  const saved = new Map<string, string>();
  return {
    load: (key) => Promise.resolve(saved.get(key)),
    save: (key, data) => Promise.resolve(void saved.set(key, data)),
    remove: (key) => Promise.resolve(void saved.delete(key)),
  };
}

/** True when `value` has the three methods of a `SnapshotStore`. */
export function isSnapshotStore(value: unknown): value is SnapshotStore {
  const store = value as Partial<Record<keyof SnapshotStore, unknown>> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    ['load', 'save', 'remove'].every((m) => typeof store[m as keyof SnapshotStore] === 'function')
  );
}

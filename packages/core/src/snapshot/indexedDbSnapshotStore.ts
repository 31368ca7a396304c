/**
 * A snapshot store over IndexedDB, for informers in a browser tab or worker: one object store of
 * texts by key, each save one transaction (atomic: a reader sees the old snapshot or the new one).
 */
import { withCause } from '../errors.ts';
import { SnapshotStoreError } from './snapshotErrors.ts';
import type { SnapshotStore } from './snapshotStore.ts';

/** Options of `indexedDbSnapshotStore`. */
export interface IndexedDbSnapshotStoreOptions {
  /** The database's name (one per origin). Default `rxinformer-snapshots`. */
  databaseName?: string;
  /** The IndexedDB to use. Default `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
}

const OBJECT_STORE = 'snapshots';

/**
 * A `SnapshotStore` in the origin's IndexedDB. Throws `SnapshotStoreError` (`Unavailable`) where
 * there is none (Node, some private windows): test for it before choosing a store.
 *
 * @example
 * const snapshots = typeof indexedDB === 'undefined' ? undefined : { store: indexedDbSnapshotStore(), server: 'prod (alice)' };
 * const factory = createInformerFactory(source, { snapshots });
 *
 * Caveat: anyone with script access to the origin can read it, and it outlives the tab: give
 * `server` the user's identity so that another user of the browser profile never sees this
 * user's snapshot, and remove the database at sign-out (`indexedDB.deleteDatabase(name)`).
 */
export function indexedDbSnapshotStore(options: IndexedDbSnapshotStoreOptions = {}): SnapshotStore {
  const idb = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (idb === undefined || idb === null) throw new SnapshotStoreError('Unavailable', 'IndexedDB is not available here: no snapshots');
  const name = options.databaseName ?? 'rxinformer-snapshots';
  let opened: Promise<IDBDatabase> | undefined;
  const database = (): Promise<IDBDatabase> =>
    (opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const request = idb.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(OBJECT_STORE);
      request.onsuccess = () => {
        const db = request.result;
        db.onversionchange = () => {
          db.close(); // another tab deletes or upgrades it: let it
          opened = undefined;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error ?? new Error(`could not open ${name}`));
      request.onblocked = () => reject(new Error(`database ${name} is blocked by another tab`));
    }).catch((error: unknown) => {
      opened = undefined;
      throw error;
    }));
  const run = async <R>(
    operation: 'LoadFailed' | 'SaveFailed' | 'RemoveFailed',
    key: string,
    mode: IDBTransactionMode,
    act: (store: IDBObjectStore) => IDBRequest,
  ): Promise<R> => {
    try {
      const tx = (await database()).transaction(OBJECT_STORE, mode);
      const request = act(tx.objectStore(OBJECT_STORE));
      return await new Promise<R>((resolve, reject) => {
        // Resolved once the transaction committed: a save is on disk (or refused) by then.
        tx.oncomplete = () => resolve(request.result as R);
        tx.onerror = () => reject(tx.error ?? request.error ?? new Error('transaction failed'));
        tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
      });
    } catch (cause) {
      throw new SnapshotStoreError(operation, withCause(`IndexedDB ${verbs[operation]} snapshot ${key}`, cause), { key, cause });
    }
  };
  return {
    load: async (key) => {
      // Anything but a string is handed on as found: the informer refuses it as `Malformed`.
      const value = await run<unknown>('LoadFailed', key, 'readonly', (s) => s.get(key));
      return value === undefined ? undefined : (value as string);
    },
    save: (key, data) => run<void>('SaveFailed', key, 'readwrite', (s) => s.put(data, key)),
    remove: (key) => run<void>('RemoveFailed', key, 'readwrite', (s) => s.delete(key)),
  };
}

const verbs = { LoadFailed: 'could not read', SaveFailed: 'could not write', RemoveFailed: 'could not remove' } as const;

/**
 * Read-your-writes for a builder controller (the idea of KEP-5647): the writes a reconcile made
 * through `req.api` are remembered per primary key, and the key's next reconcile is put off until
 * every informer written through shows its write — or a newer change, or a delete — or until the
 * timeout passed. The hold is the work queue's (`WorkQueue.hold`): a held key is not handed to a
 * worker, so other keys go on; what was added meanwhile is queued once the hold ends.
 *
 * "Shows the write": the cached object's resourceVersion equals the written one, or both are
 * decimal integers (kube-apiserver's are etcd revisions, which client-go's KEP-5647 work compares
 * the same way) and the cached one is larger; or the informer delivered a delete of the key after
 * the write (unless integer versions show it deleted an older state). Opaque versions (other
 * servers) only match equal. A delete is "gone or going", whatever the server answered: shown once
 * the cache lacks the key or holds the object marked with a `deletionTimestamp`, or the informer
 * delivered its deletion (of the same uid, when known).
 */
import { RxInformerError, type KubeObject, type SharedInformer } from '@rxinformer/core';

/** Counts of a controller's read-your-writes, from its creation on (across terms). */
export interface ReadYourWritesStats {
  /** Holds that put off a reconcile: the key was asked for while the cache did not yet show its writes (`stale_sync_skips_total`). */
  holds: number;
  /** Holds ended by the cache showing the writes. */
  released: number;
  /** Keys whose writes the cache had not shown within the timeout (then reconciled anyway). */
  timeouts: number;
  /** Total time reconciles were held, in ms (from the first put-off reconcile to the release). */
  heldMs: number;
  /** Keys with writes not yet shown, now. */
  pending: number;
}

/**
 * One write a reconcile made, as its informer's cache should come to show it: `key` at
 * `resourceVersion` (or newer), or, for a delete, gone or being deleted.
 */
export type TrackedWrite = {
  /** The resource written (`pods`), for reports. */
  readonly resource: string;
  /** The object's key in the informer's cache. */
  readonly key: string;
} & (
  | {
      /** The resourceVersion the server answered. */
      readonly resourceVersion: string;
    }
  | {
      /** A delete: gone or going is enough. */
      readonly deleted: true;
      /** The deleted object's uid, when the answer named it: a namesake's events are not its. */
      readonly uid?: string;
    }
);

/** One write expected in one informer's cache. */
type Expected = TrackedWrite & { readonly informer: SharedInformer<KubeObject> };

/**
 * A key's read-your-writes hold ran out: the caches had not shown `writes` within `timeoutMs`,
 * and the key was reconciled on the cache as it was. Reported on the controller's `onError` and
 * the term's `errors$` at the `readYourWrites` stage (not a failure: nothing is retried), and
 * counted in `readYourWritesStats().timeouts`.
 *
 * @example
 * onError: (e) => { if (e.error instanceof ReadYourWritesTimeoutError) log.warn(e.error.message); }
 */
export class ReadYourWritesTimeoutError extends RxInformerError {
  override readonly name: string = 'ReadYourWritesTimeoutError';
  /** The key whose reconcile was held. */
  readonly key: string;
  /** How long it was held, in ms: the controller's `readYourWrites.timeoutMs`. */
  readonly timeoutMs: number;
  /** The writes the caches had not shown. */
  readonly writes: readonly TrackedWrite[];

  constructor(key: string, timeoutMs: number, writes: readonly TrackedWrite[]) {
    const what = writes.map((w) => `${w.resource} ${w.key} ${'deleted' in w ? 'deleted' : `at resourceVersion ${w.resourceVersion}`}`);
    super(
      'ReadYourWritesTimeout',
      `the caches did not show the writes of the reconcile of ${JSON.stringify(key)} within ${timeoutMs} ms (${what.join(', ')}): reconciled on the cache as it is`,
    );
    this.key = key;
    this.timeoutMs = timeoutMs;
    this.writes = writes;
  }
}

const INTEGER_RV = /^[1-9][0-9]*$/;

/** `a` > `b` when both are decimal integers (no leading zeros): longer, or larger at equal length. */
export function newerResourceVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || !INTEGER_RV.test(a) || !INTEGER_RV.test(b)) return false;
  return a.length !== b.length ? a.length > b.length : a > b;
}

/** `w` without its informer, as reports show it. */
function trackedWrite({ informer: _informer, ...write }: Expected): TrackedWrite {
  return write;
}

/** False only when both uids are known and differ: another object of the same name. */
function sameObject(uid: string | undefined, obj: KubeObject | undefined): boolean {
  const other = obj?.metadata?.uid;
  return uid === undefined || other === undefined || other === uid;
}

/**
 * True when `cached` (the informer's state of the key) shows the write `w`, or the informer's whole
 * cache is at the write's resourceVersion or later (Kubernetes 1.36's check of a store's last
 * synced resourceVersion: every event up to it was applied, so the write or what followed is in).
 */
function shows(cached: KubeObject | undefined, w: Expected): boolean {
  if ('deleted' in w) return cached === undefined || (cached.metadata?.deletionTimestamp !== undefined && sameObject(w.uid, cached));
  const rv = cached?.metadata?.resourceVersion;
  if (rv !== undefined && (rv === w.resourceVersion || newerResourceVersion(rv, w.resourceVersion))) return true;
  const store = w.informer.lastSyncResourceVersion;
  return store !== undefined && (store === w.resourceVersion || newerResourceVersion(store, w.resourceVersion));
}

/** True when `informer`'s delete of the key, `lastKnown` its last state, came after the write `w`. */
function deletedAfter(w: Expected, lastKnown: KubeObject | undefined): boolean {
  if ('deleted' in w) return sameObject(w.uid, lastKnown);
  return !newerResourceVersion(w.resourceVersion, lastKnown?.metadata?.resourceVersion);
}

/**
 * The writes of one controller term not yet shown by the caches, per primary key (KEP-5647's
 * `ConsistencyStore`): `record` a write, ask whether the caches are `ready` for a key, `clear` a
 * key's writes; and `seen`, each event of a followed informer as its source's handler delivered it,
 * which tells `shown(primaryKey)` once the last write of a key shows (after that handler queued its
 * own keys: the queue then releases the key's hold once, not again after a reconcile the event
 * started). The hold itself, its timeout and what it put off are the queue's.
 */
export class WriteTracker {
  readonly #shown: (primaryKey: string) => void;
  /** The writes of each primary key not yet shown. */
  readonly #writes = new Map<string, Set<Expected>>();
  /** Each expected write's primary key, per informer and object key: what an event can settle. */
  readonly #byObject = new Map<SharedInformer<KubeObject>, Map<string, Map<Expected, string>>>();

  /** `shown` is told of each primary key whose writes the caches all show now. */
  constructor(shown: (primaryKey: string) => void) {
    this.#shown = shown;
  }

  /** The reconcile of `primaryKey` made `write`, which `informer`'s cache must show. */
  record(primaryKey: string, informer: SharedInformer<KubeObject>, write: TrackedWrite): void {
    const w: Expected = { ...write, informer };
    let list = this.#writes.get(primaryKey);
    if (list === undefined) this.#writes.set(primaryKey, (list = new Set()));
    list.add(w);
    let keys = this.#byObject.get(informer);
    if (keys === undefined) this.#byObject.set(informer, (keys = new Map<string, Map<Expected, string>>()));
    let waiting = keys.get(w.key);
    if (waiting === undefined) keys.set(w.key, (waiting = new Map<Expected, string>()));
    waiting.set(w, primaryKey);
  }

  /**
   * True when the caches show every write of `primaryKey` (or it made none): its reconcile may
   * run on them. Writes shown are forgotten.
   */
  ready(primaryKey: string): boolean {
    if (this.#writes.size === 0) return true; // nothing written: the common case
    const list = this.#writes.get(primaryKey);
    if (list === undefined) return true;
    for (const w of [...list]) if (shows(w.informer.getStore().get(w.key), w)) this.#forget(w, primaryKey);
    return !this.#writes.has(primaryKey);
  }

  /** Forgets the writes of `primaryKey` (its reconcile failed, or its hold ran out); answers those not yet shown, as reports show them. */
  clear(primaryKey: string): TrackedWrite[] {
    const list = [...(this.#writes.get(primaryKey) ?? [])];
    for (const w of list) this.#forget(w, primaryKey);
    return list.map(trackedWrite);
  }

  /** `informer` delivered `key`'s new state (`undefined`: deleted; then `lastKnown`, if known). */
  seen(informer: SharedInformer<KubeObject>, key: string, state: KubeObject | undefined, lastKnown?: KubeObject): void {
    if (this.#byObject.size === 0) return; // no write waits to be shown
    const waiting = this.#byObject.get(informer)?.get(key);
    if (waiting === undefined) return;
    for (const [w, primaryKey] of waiting)
      if (state === undefined ? deletedAfter(w, lastKnown) : shows(state, w)) {
        this.#forget(w, primaryKey);
        if (!this.#writes.has(primaryKey)) this.#shown(primaryKey);
      }
  }

  /** Forgets every write (the term ended). */
  dispose(): void {
    this.#byObject.clear();
    this.#writes.clear();
  }

  #forget(w: Expected, primaryKey: string): void {
    const list = this.#writes.get(primaryKey);
    if (list?.delete(w) === true && list.size === 0) this.#writes.delete(primaryKey);
    const keys = this.#byObject.get(w.informer);
    const waiting = keys?.get(w.key);
    if (waiting === undefined || !waiting.delete(w) || waiting.size > 0) return;
    keys!.delete(w.key);
    if (keys!.size === 0) this.#byObject.delete(w.informer); // `seen` skips at once when none is left
  }
}

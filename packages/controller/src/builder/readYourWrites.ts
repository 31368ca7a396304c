/**
 * Read-your-writes for a builder controller (the idea of KEP-5647): the writes a reconcile made
 * through `req.api` are remembered per primary key, and the key's next reconcile is put off until
 * every informer written through shows its write — or a newer change, or a delete — or until the
 * timeout passed. A held key is not kept in a worker: its reconcile returns at once and the key is
 * added again when the hold ends, so other keys go on.
 *
 * "Shows the write": the cached object's resourceVersion equals the written one, or both are
 * decimal integers (kube-apiserver's are etcd revisions, which client-go's KEP-5647 work compares
 * the same way) and the cached one is larger; or the informer delivered a delete of the key after
 * the write (unless integer versions show it deleted an older state). Opaque versions (other
 * servers) only match equal. A delete is "gone or going", whatever the server answered: shown once
 * the cache lacks the key or holds the object marked with a `deletionTimestamp`, or the informer
 * delivered its deletion (of the same uid, when known).
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { RxInformerError, type KubeObject, type SharedInformer } from '@rxinformer/core';

/** Counts of a controller's read-your-writes, from its creation on (across terms). */
export interface ReadYourWritesStats {
  /** Reconciles put off because the cache did not yet show the key's writes. */
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

/** The writes of one primary key not yet shown, and its timer. */
interface Hold {
  readonly writes: Set<Expected>;
  readonly timer: Subscription;
  /** When a reconcile was first put off; undefined: none was yet. */
  heldSince: number | undefined;
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

/** True when `cached` (the informer's state of the key) shows the write `w`. */
function shows(cached: KubeObject | undefined, w: Expected): boolean {
  if ('deleted' in w) return cached === undefined || (cached.metadata?.deletionTimestamp !== undefined && sameObject(w.uid, cached));
  const rv = cached?.metadata?.resourceVersion;
  return rv !== undefined && (rv === w.resourceVersion || newerResourceVersion(rv, w.resourceVersion));
}

/** True when `informer`'s delete of the key, `lastKnown` its last state, came after the write `w`. */
function deletedAfter(w: Expected, lastKnown: KubeObject | undefined): boolean {
  if ('deleted' in w) return sameObject(w.uid, lastKnown);
  return !newerResourceVersion(w.resourceVersion, lastKnown?.metadata?.resourceVersion);
}

/** The remembered writes of one controller term. */
export class WriteTracker {
  readonly #timeoutMs: number;
  readonly #scheduler: SchedulerLike;
  readonly #release: (primaryKey: string) => void;
  readonly #timedOut: (error: ReadYourWritesTimeoutError) => void;
  readonly #stats: ReadYourWritesStats;
  /** Writes of reconciles running now, per primary key. */
  readonly #running = new Map<string, Expected[]>();
  readonly #holds = new Map<string, Hold>();
  /** Keys whose hold ended, to add again unless a reconcile of theirs starts first. */
  readonly #owed = new Set<string>();
  /** Each expected write's primary key, per informer and object key: what an event can settle. */
  readonly #byObject = new Map<SharedInformer<KubeObject>, Map<string, Map<Expected, string>>>();

  /**
   * `release` adds a key again when its hold ends; `timedOut` is told of each hold that ran out;
   * `stats` is counted into (it outlives terms).
   */
  constructor(
    timeoutMs: number,
    scheduler: SchedulerLike,
    release: (primaryKey: string) => void,
    timedOut: (error: ReadYourWritesTimeoutError) => void,
    stats: ReadYourWritesStats,
  ) {
    this.#timeoutMs = timeoutMs;
    this.#scheduler = scheduler;
    this.#release = release;
    this.#timedOut = timedOut;
    this.#stats = stats;
  }

  /** The reconcile of `primaryKey` made `write`, which `informer` must show. */
  record(primaryKey: string, informer: SharedInformer<KubeObject>, write: TrackedWrite): void {
    const w: Expected = { ...write, informer };
    const { key } = w;
    let list = this.#running.get(primaryKey);
    if (list === undefined) this.#running.set(primaryKey, (list = []));
    list.push(w);
    let keys = this.#byObject.get(informer);
    if (keys === undefined) this.#byObject.set(informer, (keys = new Map<string, Map<Expected, string>>()));
    let waiting = keys.get(key);
    if (waiting === undefined) keys.set(key, (waiting = new Map<Expected, string>()));
    waiting.set(w, primaryKey);
  }

  /** The reconcile of `primaryKey` ended: its writes not yet shown hold the key's next reconcile. */
  commit(primaryKey: string): void {
    if (this.#running.size === 0) return; // no reconcile wrote: nothing to look up
    const list = this.#running.get(primaryKey);
    if (list === undefined) return;
    this.#running.delete(primaryKey);
    const before = this.#holds.get(primaryKey);
    const writes = before?.writes ?? new Set<Expected>();
    for (const w of list)
      if (!shows(w.informer.getStore().get(w.key), w)) writes.add(w);
      else this.#forget(w);
    if (writes.size === 0 || before !== undefined) return;
    const timer = this.#scheduler.schedule(() => this.#end(primaryKey, 'timeout'), this.#timeoutMs);
    this.#holds.set(primaryKey, { writes, timer, heldSince: undefined });
    this.#stats.pending++;
  }

  /** `primaryKey` was added to the queue (by an event): a hold that just ended need not add it. */
  added(primaryKey: string): void {
    if (this.#owed.size > 0) this.#owed.delete(primaryKey);
  }

  /** The reconcile of `primaryKey` ended without a hold: its writes are not waited for. */
  drop(primaryKey: string): void {
    if (this.#running.size === 0) return;
    for (const w of this.#running.get(primaryKey) ?? []) this.#forget(w);
    this.#running.delete(primaryKey);
  }

  /** True when the reconcile of `primaryKey` must wait: its writes are not all shown yet. */
  holds(primaryKey: string): boolean {
    if (this.#owed.size === 0 && this.#holds.size === 0) return false; // nothing held: the common case
    this.#owed.delete(primaryKey);
    const hold = this.#holds.get(primaryKey);
    if (hold === undefined) return false;
    for (const w of hold.writes)
      if (shows(w.informer.getStore().get(w.key), w)) {
        hold.writes.delete(w);
        this.#forget(w);
      }
    if (hold.writes.size === 0) {
      this.#end(primaryKey, 'shown', false); // reconciled now: no need to add it again
      return false;
    }
    if (hold.heldSince === undefined) hold.heldSince = this.#scheduler.now();
    this.#stats.holds++;
    return true;
  }

  /** `informer` delivered `key`'s new state (`undefined`: deleted; then `lastKnown`, if known). */
  observe(informer: SharedInformer<KubeObject>, key: string, state: KubeObject | undefined, lastKnown?: KubeObject): void {
    if (this.#byObject.size === 0) return; // no write waits to be shown
    const waiting = this.#byObject.get(informer)?.get(key);
    if (waiting === undefined) return;
    for (const [w, primaryKey] of waiting)
      if (state === undefined ? deletedAfter(w, lastKnown) : shows(state, w)) this.#settle(w, primaryKey);
  }

  /** Cancels the timers (the term ended). */
  dispose(): void {
    for (const hold of this.#holds.values()) hold.timer.unsubscribe();
    this.#stats.pending -= this.#holds.size;
    this.#holds.clear();
    this.#owed.clear();
    this.#running.clear();
    this.#byObject.clear();
  }

  /** `w` is shown: forgets it; the last of its key's hold ends the hold. */
  #settle(w: Expected, primaryKey: string): void {
    this.#forget(w);
    const hold = this.#holds.get(primaryKey);
    if (hold === undefined || !hold.writes.delete(w) || hold.writes.size > 0) return;
    this.#end(primaryKey, 'shown');
  }

  /** Ends the hold of `primaryKey`, counted; a reconcile it put off is asked for again when `again`. */
  #end(primaryKey: string, why: 'shown' | 'timeout', again = true): void {
    const hold = this.#holds.get(primaryKey);
    if (hold === undefined) return;
    this.#holds.delete(primaryKey);
    hold.timer.unsubscribe();
    for (const w of hold.writes) this.#forget(w);
    this.#stats.pending--;
    if (why === 'timeout') {
      this.#stats.timeouts++;
      this.#timedOut(new ReadYourWritesTimeoutError(primaryKey, this.#timeoutMs, [...hold.writes].map(trackedWrite)));
    }
    if (hold.heldSince === undefined) return;
    if (why === 'shown') this.#stats.released++;
    this.#stats.heldMs += this.#scheduler.now() - hold.heldSince;
    if (!again) return;
    // The event that ended the hold often adds the key too: added again only if it did not (its
    // handler runs on, adding its keys, before this does).
    this.#owed.add(primaryKey);
    this.#scheduler.schedule(() => this.#owed.delete(primaryKey) && this.#release(primaryKey));
  }

  #forget(w: Expected): void {
    const keys = this.#byObject.get(w.informer);
    const waiting = keys?.get(w.key);
    if (waiting === undefined || !waiting.delete(w) || waiting.size > 0) return;
    keys!.delete(w.key);
    if (keys!.size === 0) this.#byObject.delete(w.informer); // `observe` skips at once when none is left
  }
}

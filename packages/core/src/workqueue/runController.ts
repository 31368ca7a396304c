/**
 * `runController`, a controller loop over a `WorkQueue` (controller-runtime's controller, not
 * client-go's `controller.go`, which is the informer's list-and-watch loop): waits for the caches
 * to sync, then runs `concurrency` workers (`reconcileWorker.ts`) that reconcile keys — never one
 * key in two workers — forgetting a key on success and retrying it with the queue's backoff on
 * failure.
 */
import {
  BehaviorSubject,
  Subject,
  Subscription,
  asapScheduler,
  concatMap,
  filter,
  isObservable,
  take,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { InvalidOptionsError, RxInformerError, withCause } from '../errors.ts';
import { isPromiseLike, nextMacrotask, startWorker, type ControllerError, type WorkerContext } from './reconcileWorker.ts';
import type { Delta, KubeObject } from '../types.ts';
import { WorkQueue } from './workqueue.ts';

/**
 * What a reconcile may answer: nothing, or a request to look at the key again later.
 * `requeueAfterMs` must be a finite number >= 0 (0: at once) of any length (30 days wait 30 days,
 * past a JavaScript timer's 24.8); anything else — NaN, Infinity (say
 * `Math.min()` of an empty list), a negative number, a string — is an `InvalidReconcileResultError`.
 * `requeue: true` without `requeueAfterMs`: again after the queue's rate-limited backoff, which
 * keeps growing (controller-runtime's `Requeue`); `requeueAfterMs` wins when both are given.
 */
export type ReconcileResult = void | undefined | { requeueAfterMs?: number; requeue?: boolean };

/** Options of `runController`. */
export interface ControllerOptions<K = string> {
  /**
   * Reconciles one key. A throw, a rejection or an Observable error retries the key with backoff.
   * A promise is awaited, an Observable is run to completion (its last value is the result).
   * Answer `{ requeueAfterMs }` to look at the key again after a while (its backoff is forgotten).
   * A result the controller cannot act on — a `requeueAfterMs` that is not a finite number >= 0,
   * or a value returned directly that is neither `undefined` nor an object — is reported as
   * `InvalidReconcileResultError` and handled as a failure: retried with backoff, counted against
   * `maxRetries`. (A promise's or an Observable's value is only read if it is an object: `timer(10)`'s
   * `0` means nothing.)
   */
  reconcile: (key: K) => ReconcileResult | PromiseLike<unknown> | Observable<unknown>;
  /** Resolves, or emits `true`, once the informers the controller reads have synced. Required. */
  synced: Observable<boolean> | PromiseLike<unknown>;
  /** The queue to work on; `stop()` shuts it down. Default: a new `WorkQueue` on `scheduler`. */
  queue?: WorkQueue<K>;
  /** Parallel workers; one key is never handled by two at once. Default 1. */
  concurrency?: number;
  /** Retries of a failing key before it is dropped (reported, then forgotten). Default: unlimited. */
  maxRetries?: number;
  /**
   * Wakes idle workers (so `queue.add` never runs a reconcile in its caller's stack) and lets a
   * worker yield after 1000 reconciles in a row that settled without it yielding — synchronous
   * ones, and async ones that settle in microtasks (no I/O), which would otherwise starve timers
   * and I/O. Default: `asapScheduler` to wake, a macrotask (`setImmediate`, or a `MessageChannel`
   * message in browsers) to yield. Pass the test's `TestScheduler` for virtual time.
   */
  scheduler?: SchedulerLike;
  /** Called with each failure, as well as `errors$`. Default: none. */
  onError?: (error: ControllerError<K>) => void;
}

/** What a controller is doing. */
export type ControllerPhase = 'waitingForSync' | 'running' | 'stopping' | 'stopped';

/** Figures of a controller. */
export interface ControllerMetrics {
  /** What the controller is doing. */
  phase: ControllerPhase;
  /** Reconciles in progress. */
  active: number;
  /** Reconciles that succeeded. */
  reconciled: number;
  /** Reconciles that failed. */
  failed: number;
  /** Keys given up. */
  dropped: number;
}

/** A running controller. */
export interface ControllerHandle<K = string> {
  /** The queue the workers take keys from. */
  readonly queue: WorkQueue<K>;
  /** The current figures at once, then every change; completes once stopped. */
  readonly metrics$: Observable<ControllerMetrics>;
  /** Every failure, as it happens (hot); completes once stopped. */
  readonly errors$: Observable<ControllerError<K>>;
  /**
   * Stops: shuts the queue down (delayed retries are cancelled) and resolves once the reconciles
   * in progress have finished. Keys still waiting are dropped, unless `drainQueue` is true: then
   * they are reconciled first. Idempotent. Caveat: a reconcile that never settles keeps it waiting.
   */
  stop(options?: { drainQueue?: boolean }): Promise<void>;
}

/**
 * `synced` failed or ended before the caches synced: the controller never started. Its message
 * ends with the cause's (say, `FactoryNotStartedError`'s "call start() before waitForCacheSync()").
 * Reported with `stage: 'sync'` and no key: no reconcile ran.
 */
export class ControllerSyncError extends RxInformerError {
  /** Always `ControllerSyncError`: set as a string, so it survives minification. */
  override readonly name: string = 'ControllerSyncError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NotSynced', withCause(message, options?.cause), options);
  }
}

/**
 * Runs a controller loop: waits for `synced`, then `concurrency` workers take keys from the queue
 * and reconcile them.
 *
 * @example
 * const queue = new WorkQueue<string>();
 * pods.addEventHandler(enqueueKeys(queue)); // the cached objects first, then every change
 * const ctl = runController({ queue, synced: pods.synced$, concurrency: 4, reconcile: async (key) => {
 *   const pod = pods.getStore().get(key); // undefined: deleted
 * } });
 * await ctl.stop();
 */
export function runController<K = string>(options: ControllerOptions<K>): ControllerHandle<K> {
  const { concurrency, maxRetries } = validateControllerOptions(options);
  const queue = options.queue ?? new WorkQueue<K>(options.scheduler ? { scheduler: options.scheduler } : {});
  let workers = 0;
  let stopping: Promise<void> | undefined;
  /** Set by `stop`: runs once no worker is left (synchronously, so virtual time sees it). */
  let onAllExited: (() => void) | undefined;

  const reports = reporting<K>(options.onError);
  const { metrics, errors, update, report } = reports;
  const worker = workerContext(queue, options, maxRetries, reports, () => {
    if (--workers === 0) onAllExited?.();
  });
  const start = () => {
    if (stopping !== undefined) return;
    update({ phase: 'running' });
    for (let i = 0; i < concurrency; i++) {
      workers++;
      startWorker(worker);
    }
  };
  const syncFailed = (error: unknown) => {
    if (stopping !== undefined) return;
    const cause =
      error instanceof ControllerSyncError ? error : new ControllerSyncError('waiting for the caches to sync failed', { cause: error });
    report({ stage: 'sync', error: cause, retries: 0, dropped: true });
    void handle.stop();
  };
  const syncSub = new Subscription();
  const handle: ControllerHandle<K> = {
    queue,
    metrics$: metrics.asObservable(),
    errors$: errors.asObservable(),
    stop: (stopOptions = {}) => {
      stopping ??= new Promise<void>((resolve) => {
        let finished = false;
        onAllExited = () => {
          if (finished) return;
          finished = true;
          update({ phase: 'stopped' });
          metrics.complete();
          errors.complete();
          resolve();
        };
        syncSub.unsubscribe();
        update({ phase: 'stopping' });
        // Workers leave once the queue is shut down and empty, after their key in progress is done.
        void (stopOptions.drainQueue ? queue.shutDownWithDrain() : queue.shutdown());
        if (workers === 0) onAllExited();
      });
      return stopping;
    },
  };
  // Subscribed once `handle` exists: a synced stream that fails or ends at once stops the controller.
  syncSub.add(whenSynced(options.synced, start, syncFailed));
  return handle;
}

/** Checks `runController`'s options; the concurrency and retries they give. */
function validateControllerOptions<K>(options: ControllerOptions<K>): { concurrency: number; maxRetries: number | undefined } {
  if (typeof options?.reconcile !== 'function') throw new InvalidOptionsError('runController: reconcile must be a function');
  if (!isObservable(options.synced) && !isPromiseLike(options.synced))
    throw new InvalidOptionsError('runController: synced must be an Observable<boolean> or a promise');
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InvalidOptionsError(`runController: concurrency must be an integer >= 1, got ${String(options.concurrency)}`);
  const maxRetries = options.maxRetries;
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0))
    throw new InvalidOptionsError(`runController: maxRetries must be an integer >= 0, got ${String(maxRetries)}`);
  if (options.queue !== undefined && !(options.queue instanceof WorkQueue))
    throw new InvalidOptionsError('runController: queue must be a WorkQueue');
  return { concurrency, maxRetries };
}

/** A controller's figures and failures: the subjects behind `metrics$` and `errors$`. */
interface Reporting<K> {
  readonly metrics: BehaviorSubject<ControllerMetrics>;
  readonly errors: Subject<ControllerError<K>>;
  /** Emits the figures with `patch` applied (none once stopped). */
  readonly update: (patch: Partial<ControllerMetrics>) => void;
  /** Emits a failure on `errors$` and to `onError` (never throws). */
  readonly report: (failure: ControllerError<K>) => void;
}

function reporting<K>(onError: ControllerOptions<K>['onError']): Reporting<K> {
  const metrics = new BehaviorSubject<ControllerMetrics>({ phase: 'waitingForSync', active: 0, reconciled: 0, failed: 0, dropped: 0 });
  const errors = new Subject<ControllerError<K>>();
  const update = (patch: Partial<ControllerMetrics>) => {
    if (!metrics.closed) metrics.next({ ...metrics.value, ...patch });
  };
  const report = (failure: ControllerError<K>) => {
    errors.next(failure);
    try {
      onError?.(failure);
    } catch {
      /* a failing error callback must not stop the loop */
    }
  };
  return { metrics, errors, update, report };
}

/** What the workers of a controller share: its queue, its reconcile, its figures and its reports. */
function workerContext<K>(
  queue: WorkQueue<K>,
  options: ControllerOptions<K>,
  maxRetries: number | undefined,
  { metrics, update, report }: Reporting<K>,
  exited: () => void,
): WorkerContext<K> {
  const testScheduler = options.scheduler;
  return {
    queue,
    reconcile: (key) => options.reconcile(key),
    maxRetries,
    wakeScheduler: testScheduler ?? asapScheduler,
    yieldTo: testScheduler ? (then: () => void) => void testScheduler.schedule(then) : nextMacrotask,
    started: () => update({ active: metrics.value.active + 1 }),
    ended: (failed, dropped) => {
      const m = metrics.value;
      const counts = failed ? { failed: m.failed + 1 } : { reconciled: m.reconciled + 1 };
      update({ active: m.active - 1, ...counts, dropped: m.dropped + (dropped ? 1 : 0) });
    },
    report,
    exited,
  };
}

/**
 * Calls `start` once `synced` resolves or emits `true`; `failed` if it fails first, or (an
 * Observable) completes first. The subscription, to leave when stopped early.
 */
function whenSynced(
  synced: ControllerOptions<unknown>['synced'],
  start: () => void,
  failed: (error: unknown) => void,
): Subscription | undefined {
  if (!isObservable(synced)) {
    synced.then(start, failed);
    return undefined;
  }
  let started = false;
  return synced
    .pipe(
      filter((v) => v === true),
      take(1),
    )
    .subscribe({
      next: () => {
        started = true;
        start();
      },
      error: failed,
      complete: () => {
        if (!started) failed(new ControllerSyncError('synced completed before the caches synced'));
      },
    });
}

/**
 * Maps informer deltas to work queue keys — by default each delta's own key (tombstones
 * included: a deleted object's key is reconciled too). `keysOf` maps a delta to other keys (say,
 * the owner's) or to none (`undefined` or `[]`).
 *
 * Caveat: `events$` does not replay. Piped from it, this names only the changes after the
 * subscription: subscribed once the informer has listed (a controller started on becoming leader)
 * it never names the objects already cached. Subscribe before `start()`, or feed a queue with
 * `addEventHandler(enqueueKeys(queue))`, which is first handed the cache. `toKeys` fits streams of
 * deltas from the start: `events$` subscribed before `start()`, a `deliverTo` pipeline, tests.
 *
 * @example
 * pods.events$.pipe(toKeys()).subscribe((key) => queue.add(key));
 * pods.events$.pipe(toKeys((d) => ownerKey(objectOf(d)))).subscribe((key) => queue.add(key));
 */
export function toKeys<T extends KubeObject = KubeObject, K = string>(
  keysOf?: (delta: Delta<T>) => K | readonly K[] | undefined,
): OperatorFunction<Delta<T>, K> {
  const pick = keysOf ?? ((d: Delta<T>) => d.key as K);
  return concatMap((d: Delta<T>): readonly K[] => {
    const keys = pick(d);
    return keys === undefined ? [] : Array.isArray(keys) ? (keys as readonly K[]) : [keys as K];
  });
}

/**
 * A built controller: started (and stopped) once per leadership term, each start with a new work
 * queue fed by replaying handlers, so a start on warm caches reconciles everything they hold.
 */
import { BehaviorSubject, Subject, asyncScheduler, combineLatest, map, merge, type Observable, type SchedulerLike } from 'rxjs';
import { RxInformerError, type KubeObject, type SharedInformer } from '@rxinformer/core';
import { WorkQueue, runController, type ControllerError, type ControllerHandle, type WorkQueueOptions } from '@rxinformer/core/workqueue';
import type { ApiClient } from '../apiClient.ts';
import { Debouncer } from './debounce.ts';
import { WriteTracker, type ReadYourWritesStats, type ReadYourWritesTimeoutError } from './readYourWrites.ts';
import { checkReconcileResult, type Reconcile, type ReconcileRequest, type ReconcileResult } from './reconcileTypes.ts';
import { attachSource, type InvalidSourceKeyError, type Source } from './sources.ts';
import { requestApi, resourceKey, type RequestApi, type WriteParts } from './writes.ts';

/** `start()` was called on a controller that is running: stop it first. */
export class ControllerRunningError extends RxInformerError {
  /** Always `ControllerRunningError`: set as a string, so it survives minification. */
  override readonly name: string = 'ControllerRunningError';
  constructor(name: string) {
    super('ControllerRunning', `the controller ${JSON.stringify(name)} is already running: stop it first`);
  }
}

/** What a controller is made of, as its builder checked it. */
export interface ControllerParts<T extends KubeObject> {
  /** The controller's name: its handlers' prefix and its metrics' `name` label. */
  readonly name: string;
  /** Starts the informers (the factory's `start`). */
  readonly startInformers: () => void;
  /** The primary resource's informer, whose cache each reconcile reads. */
  readonly primary: SharedInformer<T>;
  /** Every source, the primary first. */
  readonly sources: readonly Source<KubeObject>[];
  /** The user's reconcile. */
  readonly reconcile: Reconcile<T>;
  /** Parallel reconciles (of distinct keys). */
  readonly concurrency: number;
  /** Retries of a failing key before it is dropped; undefined: unlimited. */
  readonly maxRetries: number | undefined;
  /** Quiet time of a key before it is queued, in ms (0: none). */
  readonly debounceMs: number;
  /** The work queue's backoff and rate limits. */
  readonly queue: Omit<WorkQueueOptions<string>, 'scheduler'>;
  /** Where time runs; undefined: real time. */
  readonly scheduler: SchedulerLike | undefined;
  /** Called with each failure. */
  readonly onError: ((error: ControllerError<string>) => void) | undefined;
  /** The client of `req.api`; undefined: none. */
  readonly client: ApiClient | undefined;
  /** How long a key's reconcile waits for the caches to show its writes; undefined: it does not. */
  readonly readYourWritesMs: number | undefined;
}

/** A running term of a controller: `runController`'s handle. `whileLeading` can stop it. */
export type RunningController = ControllerHandle<string>;

/** A controller made by `controllerFor(…).reconcile(fn)`: start it, or hand it to `whileLeading`. */
export interface Controller {
  /** Its name (its metrics' `name` label). */
  readonly name: string;
  /**
   * The work queue of the running term, `undefined` while stopped: the current value at once, then
   * each change. For metrics per term (`@rxinformer/prometheus`'s `controllerWorkqueueMetrics`).
   */
  readonly queue$: Observable<WorkQueue<string> | undefined>;
  /** True between `start()` and the end of `stop()`. */
  isRunning(): boolean;
  /** The read-your-writes counts so far, over every term (`@rxinformer/prometheus` can export them). */
  readYourWritesStats(): ReadYourWritesStats;
  /**
   * Starts a term: starts the informers, registers the handlers (which replay the caches), and
   * reconciles once every handler has seen its initial list. Throws `ControllerRunningError` while
   * a term runs. The handle's `stop()` removes the handlers and stops the workers.
   */
  start(): RunningController;
}

/** What a held key's reconcile answers: nothing, at once (shared: it holds no state). */
const HELD: Promise<undefined> = Promise.resolve(undefined);

/**
 * The reconcile `runController` runs for a key of a term: the request from the cache, the answer
 * checked. A key whose writes the caches do not show yet is not reconciled: `tracker` adds it again.
 * The writes of a reconcile that failed or answered a rate-limited `requeue` hold nothing: a held
 * reconcile counts as done, which would forget the key's growing backoff.
 *
 * Not an async function: the user's promise is chained once (`then`), with no generator or split
 * key object made per reconcile — the builder's cost over a bare `runController` on the hot path.
 */
function reconcileOf<T extends KubeObject>(
  parts: ControllerParts<T>,
  writes: WriteParts,
  tracker: WriteTracker | undefined,
): (key: string) => Promise<ReconcileResult | undefined> {
  const { primary, reconcile } = parts;
  const failed = (key: string, error: unknown): never => {
    tracker?.drop(key); // retried with backoff: a hold would forget it
    throw error;
  };
  const answered = (key: string, answer: unknown): ReconcileResult | undefined => {
    let result: ReconcileResult | undefined;
    try {
      result = checkReconcileResult(key, answer);
    } catch (e) {
      return failed(key, e);
    }
    if (result?.requeue === true && result.requeueAfterMs === undefined) tracker?.drop(key);
    else tracker?.commit(key);
    return result;
  };
  return (key) => {
    if (tracker?.holds(key) === true) return HELD;
    const object = primary.getStore().get(key);
    const api = requestApi(writes, tracker, key);
    let answer: unknown;
    try {
      answer = reconcile(requestOf(key, object, api));
    } catch (e) {
      tracker?.drop(key); // as a rejection would, at once
      return Promise.reject(e as Error);
    }
    return Promise.resolve(answer).then(
      (value) => answered(key, value),
      (error: unknown) => failed(key, error),
    );
  };
}

/**
 * The request of `key`: its namespace and name are the cached object's, or, once it is gone, the
 * key's read as `namespace/name` (`splitMetaNamespaceKey`, without its object): a custom `keyFunc`'s
 * key is passed as is, and its object found by it.
 */
function requestOf<T extends KubeObject>(key: string, object: T | undefined, api: RequestApi): ReconcileRequest<T> {
  const meta = object?.metadata;
  if (meta?.name !== undefined)
    return meta.namespace ? { key, namespace: meta.namespace, name: meta.name, object, api } : { key, name: meta.name, object, api };
  const slash = key.indexOf('/');
  return slash < 0 ? { key, name: key, object, api } : { key, namespace: key.slice(0, slash), name: key.slice(slash + 1), object, api };
}

/**
 * Tells of a failure off the reconcile loop (a read-your-writes hold that ran out, a key a source
 * refused) as the loop tells of its own: on the term's `errors$` (through `to`) and to `onError`,
 * whose throw does not stop the controller.
 */
function tell(
  to: Subject<ControllerError<string>>,
  onError: ControllerParts<KubeObject>['onError'],
  failure: ControllerError<string>,
): void {
  to.next(failure);
  try {
    onError?.(failure);
  } catch {
    /* a failing error callback must not stop the controller */
  }
}

/** Read-your-writes counts at zero. */
const noStats = (): ReadYourWritesStats => ({ holds: 0, released: 0, timeouts: 0, heldMs: 0, pending: 0 });

/** Makes the controller of `parts`. */
export function makeController<T extends KubeObject>(parts: ControllerParts<T>): Controller {
  const queue$ = new BehaviorSubject<WorkQueue<string> | undefined>(undefined);
  const writes: WriteParts = { client: parts.client, informers: new Map(parts.sources.map((s) => [resourceKey(s.resource), s.informer])) };
  const stats = noStats();
  let running: RunningController | undefined;

  const start = (): RunningController => {
    if (running !== undefined) throw new ControllerRunningError(parts.name);
    parts.startInformers();
    const { scheduler } = parts;
    const queue = new WorkQueue<string>({ ...parts.queue, ...(scheduler && { scheduler }) });
    const debouncer = new Debouncer(queue, parts.debounceMs, scheduler ?? asyncScheduler);
    const ms = parts.readYourWritesMs;
    const offLoop = new Subject<ControllerError<string>>();
    const timedOut = (error: ReadYourWritesTimeoutError) =>
      tell(offLoop, parts.onError, { stage: 'readYourWrites', key: error.key, error, retries: 0, dropped: false });
    const tracker =
      ms === undefined ? undefined : new WriteTracker(ms, scheduler ?? asyncScheduler, (key) => queue.add(key), timedOut, stats);
    const refuse = (error: InvalidSourceKeyError) =>
      tell(offLoop, parts.onError, {
        stage: 'source',
        ...(typeof error.key === 'string' && { key: error.key }),
        error,
        retries: 0,
        dropped: true,
      });
    const registrations = parts.sources.map((source) =>
      attachSource(
        source,
        (key, priority) => {
          tracker?.added(key);
          debouncer.push(key, priority);
        },
        refuse,
        tracker && ((key, state, lastKnown) => tracker.observe(source.informer, key, state, lastKnown)),
      ),
    );
    const synced = combineLatest(registrations.map((r) => r.synced$)).pipe(map((all) => all.every(Boolean)));
    const handle = runController<string>({
      queue,
      synced,
      reconcile: reconcileOf(parts, writes, tracker),
      concurrency: parts.concurrency,
      ...(parts.maxRetries !== undefined && { maxRetries: parts.maxRetries }),
      ...(scheduler && { scheduler }),
      ...(parts.onError && { onError: parts.onError }),
    });
    let stopping: Promise<void> | undefined;
    const term: RunningController = {
      queue,
      metrics$: handle.metrics$,
      errors$: merge(handle.errors$, offLoop),
      stop: (options) => {
        stopping ??= (async () => {
          for (const r of registrations) r.remove();
          if (options?.drainQueue === true)
            debouncer.flush(); // a drain reconciles what was heard
          else debouncer.cancel();
          await handle.stop(options);
          tracker?.dispose();
          offLoop.complete();
          running = undefined;
          queue$.next(undefined);
        })();
        return stopping;
      },
    };
    running = term;
    queue$.next(queue);
    return term;
  };

  return {
    name: parts.name,
    queue$: queue$.asObservable(),
    isRunning: () => running !== undefined,
    readYourWritesStats: () => ({ ...stats }),
    start,
  };
}

/**
 * A built controller: started (and stopped) once per leadership term, each start with a new work
 * queue fed by replaying handlers, so a start on warm caches reconciles everything they hold.
 * A term is the one reconcile loop (`reconcile/loop.ts`) over sources, read-your-writes and the
 * request each reconcile is given.
 */
import { BehaviorSubject, Subject, asyncScheduler, combineLatest, map, type Observable, type SchedulerLike } from 'rxjs';
import { RxInformerError, type HandlerRegistration, type KubeObject, type SharedInformer } from '@rxinformer/core';
import type { ShardRing } from '@rxinformer/core/sharding';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { childLogger, FailureLog, type Logger } from '../log/logger.ts';
import type { ControllerError } from '../reconcile/errors.ts';
import { runLoop, type Loop } from '../reconcile/loop.ts';
import type { Reconcile } from '../reconcile/request.ts';
import type { Requeue } from '../reconcile/result.ts';
import { ReconcileCounts, type ReconcileEvent, type ReconcileStats } from '../reconcile/stats.ts';
import type { ControllerBuilderOptions } from './controllerBuilder.ts';
import type { Shard } from '../shard/shard.ts';
import { ReadYourWritesTimeoutError, WriteTracker, type ReadYourWritesStats } from './readYourWrites.ts';
import { attachSource, type InvalidSourceKeyError, type Source } from './sources.ts';
import { requestsOf } from './request.ts';
import type { WriteParts } from './writes.ts';

/** `start()` was called on a controller that is running: stop it first. */
export class ControllerRunningError extends RxInformerError {
  /** Always `ControllerRunningError`: set as a string, so it survives minification. */
  override readonly name: string = 'ControllerRunningError';
  constructor(name: string) {
    super('ControllerRunning', `the controller ${JSON.stringify(name)} is already running: stop it first`);
  }
}

/** What the builder hands a controller besides its options: its sources and how to start them. */
export interface ControllerSources<T extends KubeObject> {
  /** Starts the informers (the factory's `start`). */
  readonly startInformers: () => void;
  /** The primary resource's informer, whose cache each reconcile reads. */
  readonly primary: SharedInformer<T>;
  /** Every source, the primary first. */
  readonly sources: readonly Source<KubeObject>[];
  /** The informers `req.api`'s writes are recorded for. */
  readonly writes: WriteParts;
  /** How long a key's reconcile waits for the caches to show its writes; undefined: it does not. */
  readonly readYourWritesMs: number | undefined;
  /** Where failures and reconciles are told. */
  readonly logger: Logger;
  /** The ring a sharded controller's terms join; undefined: not sharded. */
  readonly shard?: Shard<T>;
}

/** A running term of a controller. `whileLeading` can stop it. */
export interface RunningController {
  /** The work queue of this term. */
  readonly queue: WorkQueue<string>;
  /** A sharded controller's ring membership in this term (members, active slots); undefined: not sharded. */
  readonly ring?: ShardRing;
  /** Every failure of this term, as it happens (hot); completes once stopped. */
  readonly errors$: Observable<ControllerError<string>>;
  /**
   * Stops the term: removes the handlers, aborts the reconciles in progress (their signals' reason
   * a `ControllerStoppedError`) and resolves once they settled. Keys still waiting are dropped,
   * unless `drainQueue` is true: then nothing is aborted, and the keys queued (and in their
   * debounce) are reconciled first. Idempotent. Caveat: a reconcile that never settles keeps it waiting.
   */
  stop(options?: { drainQueue?: boolean }): Promise<void>;
}

/** One source's informer, and the resource it follows. */
export interface SourceInformer {
  /** The resource's API group (`''` for the core group). */
  readonly group: string;
  /** Its version. */
  readonly version: string;
  /** Its plural name. */
  readonly resource: string;
  /** The informer of the source's scope. */
  readonly informer: SharedInformer<KubeObject>;
}

/** A controller made by `controllerFor(…).reconcile(fn)`: start it, or hand it to `whileLeading`. */
export interface Controller {
  /** Its name (its metrics' `controller` and `name` labels). */
  readonly name: string;
  /**
   * The work queue of the running term, `undefined` while stopped: the current value at once, then
   * each change. For metrics per term (`@rxinformer/prometheus`'s `controllerWorkqueueMetrics`).
   */
  readonly queue$: Observable<WorkQueue<string> | undefined>;
  /**
   * Each reconcile as it ends, over every term (hot): for histograms of their durations.
   * @example ctl.reconciles$.subscribe(({ result, seconds }) => histogram.observe({ result }, seconds));
   * Caveat: only the reconciles that started once someone listened (only those are timed);
   * subscribe before `start()` to see every one. `reconcileStats()` counts them all.
   */
  readonly reconciles$: Observable<ReconcileEvent>;
  /** The reconcile counts so far, over every term (`@rxinformer/prometheus`'s `controllerRuntimeMetrics`). */
  reconcileStats(): ReconcileStats;
  /** The informers of its sources, the primary's first, with the resource each follows (for `store_resource_version`). */
  sourceInformers(): readonly SourceInformer[];
  /** True between `start()` and the end of `stop()`. */
  isRunning(): boolean;
  /** The read-your-writes counts so far, over every term (`@rxinformer/prometheus` can export them). */
  readYourWritesStats(): ReadYourWritesStats;
  /**
   * Starts a term: starts the informers, registers the handlers (which replay the caches), and
   * reconciles once every handler has seen its initial list. Throws `ControllerRunningError` while
   * a term runs.
   */
  start(): RunningController;
}

/** Read-your-writes counts at zero. */
const noStats = (): ReadYourWritesStats => ({ holds: 0, released: 0, timeouts: 0, heldMs: 0, pending: 0 });

/** What one term shares between its parts. */
interface Term {
  readonly queue: WorkQueue<string>;
  /** Its failures, the loop's and the others' (a source's key, a hold that ran out). */
  readonly errors: Subject<ControllerError<string>>;
  readonly tracker: WriteTracker | undefined;
}

/** What the parts of a controller share across its terms. */
interface Shared<T extends KubeObject> {
  readonly options: ControllerBuilderOptions<T>;
  readonly sources: ControllerSources<T>;
  readonly stats: ReadYourWritesStats;
  readonly counts: ReconcileCounts;
  readonly log: Logger;
  readonly clock: SchedulerLike;
  /** Tells of a failure on the term's `errors$` and to `onError`. */
  readonly tell: (term: Term, failure: ControllerError<string>) => void;
}

/**
 * After a reconcile: the writes it made hold the key until the caches show them (counted: a hold
 * that put a reconcile off is a stale-sync skip), unless it failed or asked a rate-limited requeue.
 */
function settled<T extends KubeObject>(shared: Shared<T>, term: Term, key: string, ok: boolean, asked: Requeue): void {
  const { tracker, queue } = term;
  const { stats, counts, sources, clock } = shared;
  if (tracker === undefined) return;
  if (!ok || asked === 'rateLimited') return void tracker.clear(key); // retried with backoff: a hold would forget it
  if (tracker.ready(key)) return;
  const timeoutMs = sources.readYourWritesMs!;
  stats.pending++;
  queue.hold(key, timeoutMs, {
    putOff: () => {
      stats.holds++;
      counts.staleSyncSkips++;
    },
    ended: ({ how, putOffAt }) => {
      stats.pending--;
      if (putOffAt !== undefined) stats.heldMs += clock.now() - putOffAt;
      if (how === 'released') {
        if (putOffAt !== undefined) stats.released++;
        return;
      }
      stats.timeouts++;
      const error = new ReadYourWritesTimeoutError(key, timeoutMs, tracker.clear(key));
      shared.log.warn({ key, error }, 'reconciling on caches that do not show its writes yet');
      shared.tell(term, { stage: 'readYourWrites', key, error, retries: 0, dropped: false });
    },
  });
}

/** Registers the handlers of every source of a term: their keys go to its queue (debounced when asked), its tracker sees their events. */
function attachSources<T extends KubeObject>(shared: Shared<T>, term: Term): HandlerRegistration[] {
  const { queue, tracker } = term;
  const refuse = (error: InvalidSourceKeyError) => {
    shared.log.warn({ source: error.source, error }, 'a source gave a key that names no object: not queued');
    shared.tell(term, { stage: 'source', ...(typeof error.key === 'string' && { key: error.key }), error, retries: 0, dropped: true });
  };
  const debounceMs = shared.options.debounceMs ?? 0;
  const enqueue = (key: string, priority: number) =>
    debounceMs > 0 ? queue.addDebounced(key, debounceMs, priority) : queue.add(key, priority);
  return shared.sources.sources.map((source) =>
    attachSource(source, enqueue, refuse, tracker && ((key, state, lastKnown) => tracker.seen(source.informer, key, state, lastKnown))),
  );
}

/** Tells of a failure on the term's `errors$` and to `onError`, whose throw does not stop the controller. */
function teller(onError: ControllerBuilderOptions<KubeObject>['onError']): Shared<KubeObject>['tell'] {
  return (term, failure) => {
    term.errors.next(failure);
    try {
      onError?.(failure);
    } catch {
      /* a failing error callback must not stop the controller */
    }
  };
}

/** Makes the controller of `options`, over `sources`, reconciling with `reconcile`. */
export function makeController<T extends KubeObject>(
  options: ControllerBuilderOptions<T>,
  sources: ControllerSources<T>,
  reconcile: Reconcile<T>,
): Controller {
  const { name, scheduler } = options;
  const clock = scheduler ?? asyncScheduler;
  const queue$ = new BehaviorSubject<WorkQueue<string> | undefined>(undefined);
  const stats = noStats();
  const counts = new ReconcileCounts(options.concurrency ?? 1);
  const log = childLogger(sources.logger, { controller: name });
  const failures = new FailureLog(options.logThrottleMs ?? 60_000, clock);
  let running: RunningController | undefined;

  const tell = teller(options.onError);
  const shared: Shared<T> = { options, sources, stats, counts, log, clock, tell };
  const start = (): RunningController => {
    if (running !== undefined) throw new ControllerRunningError(name);
    sources.startInformers();
    const queue = new WorkQueue<string>({ ...options.queue, ...(scheduler && { scheduler }) });
    const term: Term = {
      queue,
      errors: new Subject<ControllerError<string>>(),
      // Released a tick later: the handler of the event that showed the write adds the key first,
      // put off by the hold and made once at the release, not again after a reconcile it started.
      tracker:
        sources.readYourWritesMs === undefined ? undefined : new WriteTracker((key) => void clock.schedule(() => queue.release(key))),
    };
    const shardTerm = sources.shard?.start();
    const requestOf = requestsOf<T>({ log, writes: sources.writes, tracker: term.tracker, primary: sources.primary });
    const registrations = attachSources(shared, term);
    const loop: Loop = runLoop({
      name,
      queue,
      synced: combineLatest(registrations.map((r) => r.synced$)).pipe(map((all) => all.every(Boolean))),
      concurrency: options.concurrency ?? 1,
      maxRetries: options.maxRetries,
      timeoutMs: options.reconcileTimeoutMs,
      scheduler,
      clock,
      counts,
      log,
      failures,
      reconcile: shardTerm
        ? (key, run) => shardTerm.gate(key, () => reconcile(requestOf(key, run)))
        : (key, run) => reconcile(requestOf(key, run)),
      settled: (key, ok, asked) => settled(shared, term, key, ok, asked),
      report: (failure) => tell(term, failure),
    });
    let stopping: Promise<void> | undefined;
    const handle: RunningController = {
      queue,
      ...(shardTerm && { ring: shardTerm.ring }),
      errors$: term.errors.asObservable(),
      stop: (stopOptions) =>
        (stopping ??= (async () => {
          for (const r of registrations) r.remove();
          await loop.stop(stopOptions);
          await shardTerm?.stop();
          term.tracker?.dispose();
          stats.pending = 0;
          failures.clear();
          term.errors.complete();
          running = undefined;
          queue$.next(undefined);
        })()),
    };
    running = handle;
    queue$.next(queue);
    return handle;
  };

  return {
    name,
    queue$: queue$.asObservable(),
    reconciles$: counts.events$,
    reconcileStats: () => counts.snapshot(),
    sourceInformers: () =>
      sources.sources.map(({ resource: { group, version, resource }, informer }) => ({ group, version, resource, informer })),
    isRunning: () => running !== undefined,
    readYourWritesStats: () => ({ ...stats }),
    start,
  };
}

/**
 * The shared informer: one reflector and one store per resource, shared by any number of
 * consumers (client-go's `SharedIndexInformer`). The store is updated before any handler hears of
 * a change; each handler has its own buffer.
 *
 * Its shape: the reflector's events and the informer's own inputs are scanned into one state and
 * multicast (informerPipeline.ts); `store$`, `events$`, `synced$` and `status$` are derived from it,
 * and each handler is one subscription to it (handlerRegistration.ts).
 */
import { Subject, asyncScheduler, filter, mergeMap, type Observable, type SchedulerLike } from 'rxjs';
import type { DeltaStoreOptions } from '../store/deltaStore.ts';
import { checkScheduler, IndexerError, InvalidOptionsError, RxInformerError } from '../errors.ts';
import { validateHandler } from './eventHandler.ts';
import type { EventHandler, EventHandlerOptions, HandlerError, HandlerRegistration } from './handlerTypes.ts';
import { registerHandler, type HandlerSources } from './handlerRegistration.ts';
import type { StoreSnapshot } from '../store/indexer.ts';
import { eventsOf, informerPipeline, latestOf, syncedStore, type InformerPipeline } from './informerPipeline.ts';
import type { ReflectorOptions } from '../reflector/reflectorOptions.ts';
import { resyncClocks, validateResyncPeriod } from './resync.ts';
import { resolveSnapshotOptions, snapshotSaver, type InformerSnapshotOptions } from './snapshotting.ts';
import type { Delta, Indexers, KubeObject, ListerWatcher, ReflectorStatus } from '../types.ts';

/** Options of `createSharedInformer`. */
export interface SharedInformerOptions<T extends KubeObject> extends DeltaStoreOptions<T> {
  /**
   * Options of the underlying reflector (page size, backoff, streaming list…). Default: its
   * defaults. Selectors belong to the ListerWatcher (its options, or the factory's scope).
   */
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
  /**
   * Default resync period of the handlers that do not set their own, in ms (0 = off, else >= 1000).
   * Default 0.
   */
  resyncPeriodMs?: number;
  /** Where time runs (reflector, resync, lag). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * Persist the cache and start warm: the first start reads the stored snapshot (the store
   * holds its objects at once, handlers hear them as adds flagged `fromSnapshot`) and resumes
   * the watch from its resource version instead of listing; the first event or bookmark syncs the
   * informer, a 410 relists and delivers only the differences. The cache is saved at most once
   * per `intervalMs` while it changes, and when the informer stops (`saveSnapshot()` to wait for
   * it). A corrupt or foreign snapshot is refused (`SnapshotRejectedError` on
   * `getStatus().snapshot`) and the informer starts cold. Default: none (every start lists).
   */
  snapshot?: InformerSnapshotOptions;
}

/** A shared, indexed cache of one resource with event handlers. */
export interface SharedInformer<T extends KubeObject> {
  /** The latest snapshot, replayed to new subscribers. */
  readonly store$: Observable<StoreSnapshot<T>>;
  /**
   * Every change of the store, hot, as deltas, after the store has been updated; each carries the
   * snapshot it produced. Resyncs go to handlers only: no `Sync` delta comes here. No replay: use
   * `store$` for the current state.
   *
   * Caveat: to feed a work queue, prefer `addEventHandler` (e.g. `enqueueKeys(queue)`): a handler
   * is first handed every cached object, while a subscription made here after the informer has
   * listed (a controller started on becoming leader) never hears of the objects already cached.
   */
  readonly events$: Observable<Delta<T>>;
  /** `false` until the first complete list has been applied, then `true`. */
  readonly synced$: Observable<boolean>;
  /** The reflector's condition (phase, last error, relists…); `stopped` when not running. */
  readonly status$: Observable<ReflectorStatus>;
  /** Typed errors of the delta store: objects skipped, index functions that threw. */
  readonly storeErrors$: Observable<Error>;
  /**
   * Handler failures: which handler, on which delta, with what error. The handler goes on with its
   * next notification; to crash instead, subscribe and throw.
   */
  readonly handlerErrors$: Observable<HandlerError<T>>;
  /** The resource version of the last list, event or bookmark applied. */
  readonly lastSyncResourceVersion: string | undefined;
  /** The current snapshot. */
  getStore(): StoreSnapshot<T>;
  /** True once the first complete list has been applied. */
  hasSynced(): boolean;
  /**
   * The reflector's condition now: the value `status$` last emitted (or replays), the same object
   * until the status changes, so `===` tells a change (React's `useSyncExternalStore` needs that).
   *
   * @example
   * if (pods.getStatus().phase === 'backingOff') showRetry(pods.getStatus().lastError);
   *
   * Caveat: read inside a `status$` listener it may already be newer than the value that listener
   * was given, when an earlier listener changed the informer.
   */
  getStatus(): ReflectorStatus;
  /** True between `start()` and `stop()`. */
  isRunning(): boolean;
  /**
   * Writes the cache's snapshot now (with a `snapshot` store), unless it has not changed since the
   * last one or has not synced; after any save in progress. Resolves once it is written; rejects
   * with its `SnapshotStoreError`. Without a store it resolves at once. `stop()` and `shutdown()`
   * start a save themselves: await this one before a process exits.
   *
   * @example
   * process.once('SIGTERM', async () => { informer.shutdown(); await informer.saveSnapshot(); process.exit(0); });
   */
  saveSnapshot(): Promise<void>;
  /**
   * Starts listing and watching. Idempotent; returns at once. To run only while something reads
   * the store, see `whileSubscribed`.
   */
  start(): void;
  /**
   * Stops the watch (aborting its request) and the resync timers. Idempotent. The cache and the
   * handlers stay: notifications already buffered are still delivered, so each handler ends
   * consistent with the cache; `start()` again resumes with a relist, a consistent read even when
   * the first list was at RV "0" (which could be older than the cache), counted in `relistCount`.
   * May be called from any listener, also while a change is being applied: nothing is left open.
   */
  stop(): void;
  /**
   * Stops for good: `stop()`, removes every handler (dropping their buffers), and completes every
   * stream (`store$`, `events$`, `synced$`, `status$`, error streams, each handler's `synced$`
   * and `metrics$`). Idempotent. Afterwards `start()` and `addEventHandler()` throw
   * `InformerShutdownError`; `stop()` and reads of the last store still work.
   */
  shutdown(): void;
  /**
   * Registers a handler. Before the informer has synced, the handler receives the initial list as
   * adds with `isInInitialList: true`; after, it first receives the current store that way, then
   * live events, with no gap and no duplicate. Throws `InvalidOptionsError` for a handler without
   * callbacks or invalid options.
   *
   * Deltas map to callbacks as follows: `Added` → `onAdd(obj, isInInitialList, key)`; `Updated` →
   * `onUpdate(old, new, key)`; `Replaced` (a relist found the object unchanged) and `Sync` (resync)
   * → `onUpdate(obj, obj, key)` with the same instance twice, as client-go does; `Deleted` →
   * `onDelete(deleted)`, a `DeletedObject` (key, last known object, `finalStateUnknown`). `key` is
   * the delta's, made by this informer's `keyFunc`.
   *
   * A handler added to a stopped (not shut down) informer is registered: it receives the cache it
   * holds at once (if it has synced before) and live events once the informer starts.
   */
  addEventHandler(handler: EventHandler<T>, options?: EventHandlerOptions): HandlerRegistration;
  /**
   * Adds indexes to the live cache (client-go's `AddIndexers`, also on a started informer): the
   * objects already cached are indexed at once and `store$` emits the new snapshot; every later
   * snapshot keeps them. A name already present with the same function is left as it is; with
   * another function, or an index function that throws, it throws `IndexerError` and adds none.
   * Throws `InformerShutdownError` after `shutdown()`.
   *
   * @example
   * pods.addIndexers({ byNode: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
   * pods.getStore().byIndex('byNode', 'node-1');
   */
  addIndexers(indexers: Indexers<T>): void;
}

/** The informer was shut down: it starts no more and takes no more handlers. */
export class InformerShutdownError extends RxInformerError {
  /** Always `InformerShutdownError`: set as a string, so it survives minification. */
  override readonly name: string = 'InformerShutdownError';
  constructor(what: string) {
    super('InformerShutdown', `${what}: the informer was shut down`);
  }
}

/**
 * Creates a shared informer over `lw`.
 *
 * Caveat: handlers run after the store was updated, so `getStore()` may already be newer than
 * the event being handled.
 *
 * @example
 * const pods = createSharedInformer<Wire<V1Pod>>(lw, { transform: dropManagedFields });
 * pods.addEventHandler({ onAdd: (p) => console.log('added', p.metadata?.name) });
 * pods.start();
 */
export function createSharedInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: SharedInformerOptions<T> = {},
): SharedInformer<T> {
  validateInformerOptions(lw, options);
  const scheduler = options.scheduler ?? asyncScheduler;
  const defaultResyncMs = validateResyncPeriod(options.resyncPeriodMs);
  const snapshot = resolveSnapshotOptions(options.snapshot);
  const pipeline = informerPipeline(lw, { ...options, snapshot }, scheduler);
  const { running, steps, lifetime } = pipeline;
  const saver =
    snapshot &&
    snapshotSaver<T>(snapshot, {
      current: () => steps.value.state,
      changed$: pipeline.changes$.pipe(filter(({ change }) => change.type === 'deltas')),
      running$: running,
      report: (input) => pipeline.commands.next(input),
      scheduler,
    });
  if (saver) lifetime.add(saver.subscription);
  const handlerErrors = new Subject<HandlerError<T>>();
  let handlerCount = 0;
  const handlers: HandlerSources<T> = {
    current: () => steps.value.state,
    changes$: pipeline.changes$,
    resync: resyncClocks<T>({ running$: running, scheduler, snapshot: () => syncedStore(steps.value.state) }),
    defaultResyncMs,
    scheduler,
    onError: (e) => handlerErrors.next(e),
  };

  const addEventHandler = (handler: EventHandler<T>, handlerOptions: EventHandlerOptions = {}): HandlerRegistration => {
    validateHandler(handler, handlerOptions);
    if (lifetime.closed) throw new InformerShutdownError('addEventHandler()');
    const name = handlerOptions.name ?? `handler-${++handlerCount}`;
    const { registration, subscription } = registerHandler(handlers, name, handler, handlerOptions);
    lifetime.add(subscription); // removed from it again when the handler is removed
    return registration;
  };
  const start = (): void => {
    if (lifetime.closed) throw new InformerShutdownError('start()');
    if (!running.value) running.next(true);
  };
  const stop = (): void => {
    if (running.value) running.next(false);
  };
  const shutdown = (): void => {
    if (lifetime.closed) return;
    stop();
    lifetime.unsubscribe(); // every handler (dropping its buffer), then the scan
    for (const s of [running, pipeline.commands, steps, handlerErrors] as Subject<unknown>[]) s.complete();
  };

  return {
    store$: latestOf(steps, (s) => s.store),
    events$: eventsOf(pipeline.changes$),
    synced$: latestOf(steps, (s) => s.synced),
    status$: latestOf(steps, (s) => s.status),
    storeErrors$: pipeline.changes$.pipe(mergeMap(({ change }) => (change.type === 'deltas' ? change.errors : []))),
    handlerErrors$: handlerErrors.asObservable(),
    get lastSyncResourceVersion() {
      return steps.value.state.resourceVersion;
    },
    getStore: () => steps.value.state.store,
    hasSynced: () => steps.value.state.synced,
    getStatus: () => steps.value.state.status,
    isRunning: () => running.value,
    saveSnapshot: () => saver?.save() ?? Promise.resolve(),
    start,
    stop,
    shutdown,
    addEventHandler,
    addIndexers: (indexers) => addIndexers(pipeline, indexers),
  };
}

/**
 * `addIndexers()`: the indexers not yet present go into the scan as one input, which the step
 * applies at once; when its change says it refused them (an index function threw), none was
 * added and this throws.
 */
function addIndexers<T extends KubeObject>({ lifetime, steps, changes$, commands }: InformerPipeline<T>, indexers: Indexers<T>): void {
  if (lifetime.closed) throw new InformerShutdownError('addIndexers()');
  const added = newIndexers(steps.value.state.store.indexers, indexers);
  if (Object.keys(added).length === 0) return;
  let refusal: { error: unknown } | undefined;
  const heard = changes$
    .pipe(filter(({ change }) => change.type === 'indexersRefused' && change.indexers === added))
    .subscribe(({ change }) => {
      if (change.type === 'indexersRefused') refusal = { error: change.error };
    });
  commands.next({ type: 'addIndexers', indexers: added });
  heard.unsubscribe();
  if (refusal) throw refusal.error;
}

/**
 * The indexers of `indexers` not yet in `present`. A name present with the same function is left as
 * it is; with another function, it throws `IndexerError`.
 */
function newIndexers<T extends KubeObject>(present: Readonly<Indexers<T>>, indexers: Indexers<T>): Indexers<T> {
  if (indexers === null || typeof indexers !== 'object') throw new InvalidOptionsError('addIndexers needs an object of index functions');
  const added: Indexers<T> = {};
  for (const [name, fn] of Object.entries(indexers)) {
    if (!Object.hasOwn(present, name)) added[name] = fn;
    else if (present[name] !== fn) throw new IndexerError(name, `indexer "${name}" already exists with another function`);
  }
  return added;
}

function validateInformerOptions<T extends KubeObject>(lw: ListerWatcher<T>, options: SharedInformerOptions<T>): void {
  if (lw === null || typeof lw !== 'object' || typeof lw.list !== 'function' || typeof lw.watch !== 'function') {
    throw new InvalidOptionsError('a ListerWatcher needs list() and watch()');
  }
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('options must be an object');
  if (options.indexers !== undefined && (options.indexers === null || typeof options.indexers !== 'object'))
    throw new InvalidOptionsError('indexers must be an object of index functions');
  for (const field of ['keyFunc', 'transform'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function') throw new InvalidOptionsError(`${field} must be a function`);
  }
  if (options.freeze !== undefined && typeof options.freeze !== 'boolean') throw new InvalidOptionsError('freeze must be a boolean');
  checkScheduler(options.scheduler);
}

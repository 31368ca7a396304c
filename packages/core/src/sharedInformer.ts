/**
 * The shared informer: one reflector and one store per resource, shared by any number of
 * consumers (client-go's `SharedIndexInformer`). The store is updated before any handler hears of
 * a change; each handler has its own buffer.
 */
import { BehaviorSubject, Observable, Subject, Subscription, asyncScheduler, distinctUntilChanged, map, type SchedulerLike } from 'rxjs';
import { createDeltaReducer, initialDeltaState, type DeltaStoreOptions, type DeltaStoreState } from './deltaStore.ts';
import { IndexerError, InvalidOptionsError, RxInformerError } from './errors.ts';
import {
  HandlerQueue,
  validateHandler,
  type EventHandler,
  type EventHandlerOptions,
  type HandlerError,
  type HandlerRegistration,
} from './eventHandler.ts';
import type { StoreSnapshot } from './indexer.ts';
import { reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflectorOptions.ts';
import { resyncPasses, validateResyncPeriod } from './resync.ts';
import type { Delta, Indexers, KubeObject, ListerWatcher, ReflectorStatus } from './types.ts';

/** Options of `createSharedInformer`. */
export interface SharedInformerOptions<T extends KubeObject> extends DeltaStoreOptions<T> {
  /** Options of the underlying reflector (page size, selectors, backoff…). Default: its defaults. */
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
  /**
   * Default resync period of handlers that do not set their own, in ms (0 = off, else >= 1000);
   * also the period of the `Sync` deltas on `events$`. Default 0.
   */
  resyncPeriodMs?: number;
  /**
   * `imperative` (default): `start()` / `stop()` run the watch. `refCount`: the watch runs while
   * `store$` or `events$` has subscribers, or a handler is registered.
   */
  mode?: 'imperative' | 'refCount';
  /**
   * `report` (default): a handler that throws or rejects is reported on `handlerErrors$` and goes on
   * with its next event. `throw`: the error is rethrown out of band (an uncaught exception, which
   * crashes a Node process like client-go's `HandleCrash`).
   */
  handlerErrors?: 'report' | 'throw';
  /** Where time runs (reflector, resync, lag). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** A shared, indexed cache of one resource with event handlers. */
export interface SharedInformer<T extends KubeObject> {
  /** The latest snapshot, replayed to new subscribers. */
  readonly store$: Observable<StoreSnapshot<T>>;
  /**
   * Every delta, hot, after the store has been updated; each carries the snapshot it produced.
   * With the informer's `resyncPeriodMs` set, also a `Sync` delta per cached object every period
   * (computed only while `events$` has subscribers). No replay: use `store$` for the current state.
   */
  readonly events$: Observable<Delta<T>>;
  /** `false` until the first complete list has been applied, then `true`. */
  readonly synced$: Observable<boolean>;
  /** The reflector's condition (phase, last error, relists…); `stopped` when not running. */
  readonly status$: Observable<ReflectorStatus>;
  /** Typed errors of the delta store: objects skipped, index functions that threw. */
  readonly storeErrors$: Observable<Error>;
  /** Handler failures: which handler, on which delta, with what error. */
  readonly handlerErrors$: Observable<HandlerError<T>>;
  /** The resource version of the last list, event or bookmark applied. */
  readonly lastSyncResourceVersion: string | undefined;
  /** The current snapshot. */
  getStore(): StoreSnapshot<T>;
  /** True once the first complete list has been applied. */
  hasSynced(): boolean;
  /** True between `start()` and `stop()`. */
  isRunning(): boolean;
  /** Starts listing and watching. Idempotent; returns at once. */
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
   * Deltas map to callbacks as follows: `Added` → `onAdd(obj, isInInitialList)`; `Updated` →
   * `onUpdate(old, new)`; `Replaced` (a relist found the object unchanged) and `Sync` (resync) →
   * `onUpdate(obj, obj)` with the same instance twice, as client-go does; `Deleted` →
   * `onDelete(obj, finalStateUnknown)`.
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
 * const pods = createSharedInformer<V1Pod>(lw, { transform: dropManagedFields });
 * pods.addEventHandler({ onAdd: (p) => console.log('added', p.metadata?.name) });
 * pods.start();
 */
export function createSharedInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: SharedInformerOptions<T> = {},
): SharedInformer<T> {
  validateInformerOptions(lw, options);
  const scheduler = options.scheduler ?? asyncScheduler;
  const defaultResync = validateResyncPeriod(options.resyncPeriodMs);
  if (options.handlerErrors !== undefined && options.handlerErrors !== 'report' && options.handlerErrors !== 'throw')
    throw new InvalidOptionsError(`handlerErrors must be 'report' or 'throw'`);
  if (options.mode !== undefined && options.mode !== 'imperative' && options.mode !== 'refCount')
    throw new InvalidOptionsError(`mode must be 'imperative' or 'refCount'`);
  const reducer = createDeltaReducer<T>(options);
  // List items are transformed and frozen as each page arrives, not when the whole list is applied.
  const preparingLw: ListerWatcher<T> = {
    list: (o) =>
      lw.list(o).pipe(map((page) => (Array.isArray(page?.items) ? { ...page, items: page.items.map(reducer.prepareListItem) } : page))),
    watch: (o) => lw.watch(o),
  };
  const source = reflector(preparingLw, { ...options.reflector, scheduler }); // validates reflector options now
  // A restart after a sync lists with a consistent read, as any relist does: a list at RV "0" (the
  // API server's cache) may be older than what the store already holds, and would roll it back.
  const restartSource =
    options.reflector?.initialListResourceVersion === undefined
      ? source
      : reflector(preparingLw, { ...options.reflector, initialListResourceVersion: undefined, scheduler });
  // A restarted reflector counts from zero: its status is reported on top of the earlier runs'.
  let relistsBefore = 0;
  let state: DeltaStoreState<T> = initialDeltaState<T>(options);
  const store = new BehaviorSubject<StoreSnapshot<T>>(state.store);
  const events = new Subject<Delta<T>>();
  const synced = new BehaviorSubject(false);
  const status = new BehaviorSubject<ReflectorStatus>({ phase: 'stopped', relistCount: 0, hasSynced: false });
  const storeErrors = new Subject<Error>();
  const handlerErrors = new Subject<HandlerError<T>>();
  // Replaced, never changed, when a handler comes or goes: a batch being applied keeps its own list.
  let handlers: readonly HandlerQueue<T>[] = [];
  let running: Subscription | undefined;
  const running$ = new BehaviorSubject(false);
  let consumers = 0;
  let handlerCount = 0;
  let isShutdown = false;
  const registrations = new Set<HandlerRegistration>();

  const apply = (next: DeltaStoreState<T>): void => {
    const first = !state.synced && next.synced;
    state = next;
    // A handler added by a listener in the middle of this batch replays the batch's final store:
    // it must not also receive the rest of the batch.
    const targets = handlers;
    if (next.store !== store.value) store.next(next.store); // the store first…
    for (const error of next.errors) storeErrors.next(error);
    for (const delta of next.deltas) {
      events.next(delta); // …then everyone who listens
      for (const h of targets) h.enqueue(delta);
    }
    if (first) {
      for (const h of targets) h.markInitialListEnd();
      synced.next(true);
    }
  };

  const start = (): void => {
    if (isShutdown) throw new InformerShutdownError('start()');
    if (running) return;
    const restarted = state.synced;
    if (restarted) relistsBefore = status.value.relistCount + 1; // the restart's list is a relist
    // Running before the reflector is subscribed: a listener may stop() while the source emits
    // synchronously, and what the source still emits then is ignored and released.
    const run = new Subscription();
    running = run;
    running$.next(true);
    run.add(
      (restarted ? restartSource : source).subscribe((event) => {
        if (running !== run) return;
        if (event.type !== 'status') apply(reducer(state, event));
        else if (!restarted) status.next(event.status);
        else {
          // Counted on top of the earlier runs, synced since the first, at the last version known
          // until the restart's own list lands.
          const { lastSyncResourceVersion = state.resourceVersion } = event.status;
          status.next({
            ...event.status,
            relistCount: event.status.relistCount + relistsBefore,
            hasSynced: true,
            ...(lastSyncResourceVersion !== undefined && { lastSyncResourceVersion }),
          });
        }
      }),
    );
  };
  const stop = (): void => {
    if (!running) return;
    running.unsubscribe();
    running = undefined;
    running$.next(false);
    const { backoffMs: _b, listProgress: _p, ...rest } = status.value; // only while backing off / listing
    status.next({ ...rest, phase: 'stopped' });
  };
  const acquire = (): void => {
    if (options.mode === 'refCount' && consumers++ === 0 && !isShutdown) start();
  };
  const release = (): void => {
    if (options.mode === 'refCount' && --consumers === 0) stop();
  };
  const counted = <R>(inner: Observable<R>): Observable<R> =>
    new Observable<R>((subscriber) => {
      acquire();
      const sub = inner.subscribe(subscriber);
      return () => {
        sub.unsubscribe();
        release();
      };
    });

  const onHandlerError = (e: HandlerError<T>): void => {
    if (options.handlerErrors === 'throw')
      queueMicrotask(() => {
        throw e.error;
      });
    handlerErrors.next(e);
  };

  // events$ carries Sync deltas at the informer's own period, computed only for actual listeners.
  const eventsResync = resyncPasses<T>({
    periodMs: defaultResync,
    running$,
    scheduler,
    snapshot: () => (state.synced && events.observed ? state.store : undefined),
  }).subscribe((deltas) => {
    for (const d of deltas) events.next(d);
  });

  const addEventHandler = (handler: EventHandler<T>, handlerOptions: EventHandlerOptions = {}): HandlerRegistration => {
    validateHandler(handler, handlerOptions);
    if (isShutdown) throw new InformerShutdownError('addEventHandler()');
    const name = handlerOptions.name ?? `handler-${++handlerCount}`;
    const queue = new HandlerQueue<T>(name, handler, handlerOptions, scheduler, { onError: onHandlerError });
    // Replay and subscription happen in one synchronous step: no live delta can fall in between.
    if (state.synced) {
      const snapshot = state.store;
      for (const key of snapshot.keys())
        queue.enqueue({ type: 'Added', key, object: snapshot.get(key)!, isInInitialList: true, store: snapshot });
      queue.markInitialListEnd();
    }
    handlers = [...handlers, queue];
    const period = handlerOptions.resyncPeriodMs ?? defaultResync;
    // Resync timers run only while the informer does; a key with a change still waiting in this
    // handler's buffer is skipped, so the handler never hears a stale object ahead of its change.
    const resync = resyncPasses<T>({
      periodMs: period,
      running$,
      scheduler,
      snapshot: () => (state.synced ? state.store : undefined),
      isPending: (key) => queue.hasPending(key),
    }).subscribe((deltas) => {
      for (const d of deltas) queue.enqueue(d);
    });
    acquire();
    let removed = false;
    const registration: HandlerRegistration = {
      name,
      hasSynced: () => queue.synced.value,
      synced$: queue.synced.pipe(distinctUntilChanged()),
      metrics$: queue.metrics$,
      remove: () => {
        if (removed) return;
        removed = true;
        resync.unsubscribe();
        handlers = handlers.filter((h) => h !== queue);
        registrations.delete(registration);
        queue.remove();
        release();
      },
    };
    registrations.add(registration);
    return registration;
  };

  const addIndexers = (indexers: Indexers<T>): void => {
    if (isShutdown) throw new InformerShutdownError('addIndexers()');
    if (indexers === null || typeof indexers !== 'object') throw new InvalidOptionsError('addIndexers needs an object of index functions');
    const present = state.store.indexers;
    const added: Indexers<T> = {};
    for (const [name, fn] of Object.entries(indexers)) {
      if (!Object.hasOwn(present, name)) added[name] = fn;
      else if (present[name] !== fn) throw new IndexerError(name, `indexer "${name}" already exists with another function`);
    }
    if (Object.keys(added).length === 0) return;
    state = { ...state, store: state.store.addIndexers(added), deltas: [], errors: [] };
    store.next(state.store);
  };

  const shutdown = (): void => {
    if (isShutdown) return;
    isShutdown = true;
    stop();
    for (const r of [...registrations]) r.remove();
    eventsResync.unsubscribe();
    running$.complete();
    for (const s of [store, events, synced, status, storeErrors, handlerErrors] as Subject<unknown>[]) s.complete();
  };

  return {
    store$: counted(store.asObservable()),
    events$: counted(events.asObservable()),
    synced$: synced.pipe(distinctUntilChanged()),
    status$: status.asObservable(),
    storeErrors$: storeErrors.asObservable(),
    handlerErrors$: handlerErrors.asObservable(),
    get lastSyncResourceVersion() {
      return state.resourceVersion;
    },
    getStore: () => state.store,
    hasSynced: () => state.synced,
    isRunning: () => running !== undefined,
    start,
    stop,
    shutdown,
    addEventHandler,
    addIndexers,
  };
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
  const s = options.scheduler;
  if (s !== undefined && (s === null || typeof s.now !== 'function' || typeof s.schedule !== 'function'))
    throw new InvalidOptionsError('scheduler must be an RxJS scheduler');
}

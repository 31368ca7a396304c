/**
 * The shared informer: one reflector and one store per resource, shared by any number of
 * consumers (client-go's `SharedIndexInformer`). The store is updated before any handler hears of
 * a change; each handler has its own buffer.
 */
import { BehaviorSubject, EMPTY, Observable, Subject, asyncScheduler, distinctUntilChanged, filter, interval, switchMap, type SchedulerLike, type Subscription } from 'rxjs';
import { createDeltaReducer, initialDeltaState, type DeltaStoreOptions, type DeltaStoreState } from './deltaStore.ts';
import { InvalidOptionsError } from './errors.ts';
import { HandlerQueue, validateHandler, type EventHandler, type EventHandlerOptions, type HandlerError, type HandlerRegistration } from './eventHandler.ts';
import type { StoreSnapshot } from './indexer.ts';
import { reflector, type ReflectorOptions } from './reflector.ts';
import type { Delta, KubeObject, ListerWatcher, ReflectorStatus } from './types.ts';

/** Options of `createSharedInformer`. */
export interface SharedInformerOptions<T extends KubeObject> extends DeltaStoreOptions<T> {
  /** Options of the underlying reflector (page size, selectors, backoff…). Default: its defaults. */
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
  /** Default resync period of handlers that do not set their own, in ms (0 = off, else >= 1000). Default 0. */
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
  /** Every delta, hot, after the store has been updated; each carries the snapshot it produced. */
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
  /** Stops the watch, the timers and delivery. Idempotent; a stopped informer can be started again. */
  stop(): void;
  /**
   * Registers a handler. Before the informer has synced, the handler receives the initial list as
   * adds with `isInInitialList: true`; after, it first receives the current store that way, then
   * live events, with no gap and no duplicate. Throws `InvalidOptionsError` for a handler without
   * callbacks or invalid options.
   */
  addEventHandler(handler: EventHandler<T>, options?: EventHandlerOptions): HandlerRegistration;
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
export function createSharedInformer<T extends KubeObject>(lw: ListerWatcher<T>, options: SharedInformerOptions<T> = {}): SharedInformer<T> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const defaultResync = options.resyncPeriodMs ?? 0;
  if (!Number.isFinite(defaultResync) || defaultResync < 0 || (defaultResync > 0 && defaultResync < 1000)) {
    throw new InvalidOptionsError(`resyncPeriodMs must be 0 (off) or at least 1000, got ${options.resyncPeriodMs}`);
  }
  if (options.mode !== undefined && options.mode !== 'imperative' && options.mode !== 'refCount') throw new InvalidOptionsError(`mode must be 'imperative' or 'refCount'`);
  const source = reflector(lw, { ...options.reflector, scheduler }); // validates reflector options now
  const reducer = createDeltaReducer<T>(options);
  let state: DeltaStoreState<T> = initialDeltaState<T>(options);
  const store = new BehaviorSubject<StoreSnapshot<T>>(state.store);
  const events = new Subject<Delta<T>>();
  const synced = new BehaviorSubject(false);
  const status = new BehaviorSubject<ReflectorStatus>({ phase: 'stopped', relistCount: 0, hasSynced: false });
  const storeErrors = new Subject<Error>();
  const handlerErrors = new Subject<HandlerError<T>>();
  const handlers = new Set<HandlerQueue<T>>();
  let running: Subscription | undefined;
  const running$ = new BehaviorSubject(false);
  let consumers = 0;
  let handlerCount = 0;

  const apply = (next: DeltaStoreState<T>): void => {
    const first = !state.synced && next.synced;
    state = next;
    if (next.store !== store.value) store.next(next.store); // the store first…
    for (const error of next.errors) storeErrors.next(error);
    for (const delta of next.deltas) {
      events.next(delta); // …then everyone who listens
      for (const h of handlers) h.enqueue(delta);
    }
    if (first) {
      for (const h of handlers) h.markInitialListEnd();
      synced.next(true);
    }
  };

  const start = (): void => {
    if (running) return;
    running = source.subscribe((event) => {
      if (event.type === 'status') status.next(event.status);
      else apply(reducer(state, event));
    });
    running$.next(true);
  };
  const stop = (): void => {
    if (!running) return;
    running.unsubscribe();
    running = undefined;
    running$.next(false);
    status.next({ ...status.value, phase: 'stopped' });
  };
  const acquire = (): void => { if (options.mode === 'refCount' && consumers++ === 0) start(); };
  const release = (): void => { if (options.mode === 'refCount' && --consumers === 0) stop(); };
  const counted = <R>(inner: Observable<R>): Observable<R> => new Observable<R>((subscriber) => {
    acquire();
    const sub = inner.subscribe(subscriber);
    return () => { sub.unsubscribe(); release(); };
  });

  const onHandlerError = (e: HandlerError<T>): void => {
    if (options.handlerErrors === 'throw') queueMicrotask(() => { throw e.error; });
    handlerErrors.next(e);
  };

  const addEventHandler = (handler: EventHandler<T>, handlerOptions: EventHandlerOptions = {}): HandlerRegistration => {
    validateHandler(handler, handlerOptions);
    const name = handlerOptions.name ?? `handler-${++handlerCount}`;
    const queue = new HandlerQueue<T>(name, handler, handlerOptions, scheduler, onHandlerError);
    // Replay and subscription happen in one synchronous step: no live delta can fall in between.
    if (state.synced) {
      const snapshot = state.store;
      for (const key of snapshot.keys()) queue.enqueue({ type: 'Added', key, object: snapshot.get(key)!, isInInitialList: true, store: snapshot });
      queue.markInitialListEnd();
    }
    handlers.add(queue);
    const period = handlerOptions.resyncPeriodMs ?? defaultResync;
    const resync = period > 0
      ? running$.pipe(
          distinctUntilChanged(),
          switchMap((on) => (on ? interval(period, scheduler) : EMPTY)), // resync timers run only while the informer does
          filter(() => state.synced),
        ).subscribe(() => {
          const snapshot = state.store;
          for (const key of snapshot.keys()) {
            if (queue.hasPending(key)) continue; // never re-deliver a stale object ahead of its change
            const object = snapshot.get(key)!;
            queue.enqueue({ type: 'Sync', key, object, oldObject: object, store: snapshot });
          }
        })
      : undefined;
    acquire();
    let removed = false;
    return {
      name,
      hasSynced: () => queue.synced.value,
      synced$: queue.synced.pipe(distinctUntilChanged()),
      metrics$: queue.metrics.asObservable(),
      remove: () => {
        if (removed) return;
        removed = true;
        resync?.unsubscribe();
        handlers.delete(queue);
        queue.remove();
        release();
      },
    };
  };

  return {
    store$: counted(store.asObservable()),
    events$: counted(events.asObservable()),
    synced$: synced.pipe(distinctUntilChanged()),
    status$: status.asObservable(),
    storeErrors$: storeErrors.asObservable(),
    handlerErrors$: handlerErrors.asObservable(),
    get lastSyncResourceVersion() { return state.resourceVersion; },
    getStore: () => state.store,
    hasSynced: () => state.synced,
    isRunning: () => running !== undefined,
    start,
    stop,
    addEventHandler,
  };
}

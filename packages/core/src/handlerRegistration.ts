/**
 * A shared informer's handler as one subscription: the replay of the cache, then the live batches,
 * with its resync passes merged in, through the handler's own buffer (`deliverBatches`).
 *
 *   concat(replay of the current store, live batches) ─┬─▶ deliverBatches(queue) ─▶ handler
 *   resync timer ─▶ Sync pass of the current store ──┘
 *
 * The replay and the subscription to the live batches happen in one synchronous step, so no
 * change falls in between (no gap) and none is both replayed and delivered live (no duplicate).
 */
import { concat, defer, distinctUntilChanged, map, mergeWith, of, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { deliverBatches } from './eventHandler.ts';
import type { EventHandler, EventHandlerOptions, HandlerError, HandlerRegistration } from './handlerTypes.ts';
import { HandlerQueue, type HandlerBatch } from './handlerQueue.ts';
import { syncedStore, type InformerState, type InformerStep } from './informerState.ts';
import { resyncPasses } from './resync.ts';
import type { Delta, KubeObject, Store } from './types.ts';

/** What a handler's subscription is made of: the informer's streams and settings. */
export interface HandlerSources<T extends KubeObject> {
  /** The informer's current state. */
  current(): InformerState<T>;
  /** Every later step, hot, in order: one batch each. */
  changes$: Observable<InformerStep<T>>;
  /** Whether the informer runs (resync timers run only then). */
  running$: Observable<boolean>;
  /** Held while the handler is registered (in `refCount` mode it keeps the watch running). */
  lease$: Observable<never>;
  /** The informer's resync period, for handlers that set none. */
  defaultResyncMs: number;
  scheduler: SchedulerLike;
  onError(e: HandlerError<T>): void;
}

/**
 * Subscribes `handler` as `name`: it hears the cache (at once if the informer has synced, as adds
 * flagged `isInInitialList`), then every change, then resyncs at its period. The registration's
 * `remove()` ends the subscription, which drops the buffer.
 */
export function registerHandler<T extends KubeObject>(
  sources: HandlerSources<T>,
  name: string,
  handler: EventHandler<T>,
  options: EventHandlerOptions,
): { registration: HandlerRegistration; subscription: Subscription } {
  const queue = new HandlerQueue<T>(name, handler, options, sources.scheduler, { onError: (e) => sources.onError(e) });
  const period = options.resyncPeriodMs ?? sources.defaultResyncMs;
  const batches$ = defer(() => {
    const current = sources.current();
    const live$ = sources.changes$.pipe(map(liveBatch));
    return current.synced ? concat(of(replayBatch(current.store)), live$) : live$;
  });
  const input$ = period > 0 ? batches$.pipe(mergeWith(resyncBatches(sources, period))) : batches$;
  const subscription = input$.pipe(deliverBatches(queue)).subscribe();
  subscription.add(sources.lease$.subscribe());
  const registration: HandlerRegistration = {
    name,
    hasSynced: () => queue.synced.value,
    synced$: queue.synced.pipe(distinctUntilChanged()),
    metrics$: queue.metrics$,
    remove: () => subscription.unsubscribe(),
  };
  return { registration, subscription };
}

/** The deltas one step brought, for a handler. */
function liveBatch<T extends KubeObject>({ change }: InformerStep<T>): HandlerBatch<T> {
  return change.type === 'deltas' ? { deltas: change.deltas, initialListEnd: change.initialListEnd } : { deltas: [] };
}

/** The whole store as adds flagged `isInInitialList`: a late handler's initial list. */
function replayBatch<T extends KubeObject>(store: Store<T>): HandlerBatch<T> {
  const deltas: Delta<T>[] = [];
  for (const key of store.keys()) deltas.push({ type: 'Added', key, object: store.get(key)!, isInInitialList: true, store });
  return { deltas, initialListEnd: true };
}

/** A resync pass of the current store every `period` while the informer runs, once it has synced. */
function resyncBatches<T extends KubeObject>(sources: HandlerSources<T>, periodMs: number): Observable<HandlerBatch<T>> {
  return resyncPasses<T>({
    periodMs,
    running$: sources.running$,
    scheduler: sources.scheduler,
    snapshot: () => syncedStore(sources.current()),
  }).pipe(map((deltas): HandlerBatch<T> => ({ deltas, resync: true })));
}

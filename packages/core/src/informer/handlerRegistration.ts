/**
 * A shared informer's handler as one subscription: the replay of the cache, then the live batches,
 * with the passes of its period's shared resync clock merged in, through the handler's own buffer
 * (`deliverBatches`), which leaves out of a pass the keys it still has a change of waiting.
 *
 *   concat(replay of the current store, live batches) ─┬─▶ deliverBatches(queue) ─▶ handler
 *   resync clock of its period (shared) ─▶ Sync pass ──┘
 *
 * The replay and the subscription to the live batches happen in one synchronous step, so no
 * change falls in between (no gap) and none is both replayed and delivered live (no duplicate).
 */
import { concat, defer, distinctUntilChanged, map, mergeWith, of, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { EventHandler, EventHandlerOptions, HandlerError, HandlerRegistration } from './handlerTypes.ts';
import { deliverBatches, HandlerQueue, type HandlerBatch } from './handlerQueue.ts';
import type { InformerState, InformerStep } from './informerPipeline.ts';
import type { ResyncClocks } from './resync.ts';
import type { Delta, KubeObject } from '../types.ts';

/** What a handler's subscription is made of: the informer's streams and settings. */
export interface HandlerSources<T extends KubeObject> {
  /** The informer's current state. */
  current(): InformerState<T>;
  /** Every later step, hot, in order: one batch each. */
  changes$: Observable<InformerStep<T>>;
  /** The informer's resync clocks, one per period, shared by the handlers of that period. */
  resync: ResyncClocks<T>;
  /** The informer's resync period, for handlers that set none. */
  defaultResyncMs: number;
  /** The clock of each handler's `lagMs`. */
  scheduler: SchedulerLike;
  /** Where a handler's failure goes. */
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
    return current.synced || current.restored ? concat(of(replayBatch(current)), live$) : live$;
  });
  const input$ = period > 0 ? batches$.pipe(mergeWith(sources.resync(period).pipe(map(resyncBatch)))) : batches$;
  const subscription = input$.pipe(deliverBatches(queue)).subscribe();
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

/**
 * The whole store as adds flagged `isInInitialList`: a late handler's initial list. Over a restored
 * snapshot not yet confirmed, they are `fromSnapshot` and do not end the initial list: the step
 * that syncs the informer does.
 */
function replayBatch<T extends KubeObject>({ store, synced }: InformerState<T>): HandlerBatch<T> {
  const deltas: Delta<T>[] = [];
  for (const key of store.keys())
    deltas.push(
      synced
        ? { type: 'Added', key, object: store.get(key)!, isInInitialList: true, store }
        : { type: 'Added', key, object: store.get(key)!, isInInitialList: true, fromSnapshot: true, store },
    );
  return { deltas, initialListEnd: synced };
}

/** A pass of the shared resync clock, for one handler's buffer (which skips its pending keys). */
function resyncBatch<T extends KubeObject>(deltas: readonly Delta<T>[]): HandlerBatch<T> {
  return { deltas, resync: true };
}

/**
 * Event handlers of a shared informer: each registration owns a buffer and delivers its deltas one
 * at a time, awaiting async callbacks, so a slow or failing handler never delays the store or the
 * other handlers (client-go's `processorListener`).
 */
import { Observable, asyncScheduler, map, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';
import { HandlerQueue, type HandlerBatch } from './handlerQueue.ts';
import { validateResyncPeriod } from './resync.ts';
import type { Delta, KubeObject } from './types.ts';

/** The callbacks of a handler; at least one is required. A returned promise is awaited. */
export interface EventHandler<T extends KubeObject> {
  /** A new object; `isInInitialList` is true for the initial list and a late handler's replay. */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** A changed object; on resync (`Sync`) and unchanged relist (`Replaced`) deltas `oldObj === newObj`. */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** A deleted object; `finalStateUnknown` when `obj` is only its last known state (a tombstone: see `Delta`). */
  onDelete?(obj: T, finalStateUnknown: boolean): void | Promise<void>;
}

/** How a handler's pending notifications are buffered. */
export type BufferPolicy = 'fifo' | 'coalesce';

/** Options of `addEventHandler`. */
export interface EventHandlerOptions {
  /** A name for error reports and metrics. Default `handler-<n>`. */
  name?: string;
  /**
   * `fifo` (default, client-go's behaviour): every notification in order, unbounded.
   * `coalesce`: only the newest pending notification per key is kept (an update keeps the oldest
   * pending `oldObject`); deletes are never dropped, and a delete followed by an add stays two.
   * Order holds per key, not across keys.
   */
  buffer?: BufferPolicy;
  /** Re-deliver the whole cache as `Sync` updates every this many ms (minimum 1000; 0 = off). Default 0. */
  resyncPeriodMs?: number;
}

/** A handler failure: which handler, on which delta, with what error. */
export interface HandlerError<T extends KubeObject = KubeObject> {
  /** The handler's name. */
  handler: string;
  /** The delta it was handling. */
  delta: Delta<T>;
  /** What it threw or rejected with. */
  error: unknown;
}

/** Per-handler delivery figures. */
export interface HandlerMetrics {
  /** Notifications waiting in the buffer. */
  depth: number;
  /** Time the last delivered notification waited in the buffer, in ms (scheduler time). */
  lagMs: number;
  /** Notifications delivered so far. */
  delivered: number;
  /** Callbacks that threw or rejected so far. */
  errors: number;
}

/** What `addEventHandler` returns. */
export interface HandlerRegistration {
  /** The handler's name. */
  readonly name: string;
  /** True once this handler has finished (returned or settled) every object of the initial list. */
  hasSynced(): boolean;
  /** `hasSynced()` as a stream: emits `false`, then `true` once. */
  readonly synced$: Observable<boolean>;
  /** Delivery figures as a stream. */
  readonly metrics$: Observable<HandlerMetrics>;
  /** Stops delivery and drops the buffer. Removing twice is a no-op. */
  remove(): void;
}

/** Validates handler input at the call; throws `InvalidOptionsError`. */
export function validateHandler<T extends KubeObject>(handler: EventHandler<T>, options: EventHandlerOptions): void {
  if (handler === null || typeof handler !== 'object')
    throw new InvalidOptionsError('an event handler must be an object with onAdd, onUpdate or onDelete');
  const callbacks = (['onAdd', 'onUpdate', 'onDelete'] as const).filter((k) => handler[k] !== undefined);
  if (callbacks.length === 0) throw new InvalidOptionsError('an event handler needs at least one of onAdd, onUpdate, onDelete');
  for (const k of callbacks) if (typeof handler[k] !== 'function') throw new InvalidOptionsError(`${k} must be a function`);
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('handler options must be an object');
  validateResyncPeriod(options.resyncPeriodMs);
  if (options.name !== undefined && typeof options.name !== 'string') throw new InvalidOptionsError('name must be a string');
  if (options.buffer !== undefined && options.buffer !== 'fifo' && options.buffer !== 'coalesce')
    throw new InvalidOptionsError(`buffer must be 'fifo' or 'coalesce', got ${String(options.buffer)}`);
}

/** One notification handed to a handler, as `deliverTo` reports it. */
export interface Delivery<T extends KubeObject = KubeObject> {
  /** The handler's name. */
  handler: string;
  /** The delta the callback was called with. */
  delta: Delta<T>;
  /** How long it waited in the buffer, in ms (scheduler time). */
  lagMs: number;
  /** True when the callback threw or rejected; `error` holds what it threw. */
  failed: boolean;
  /** What the callback threw or rejected with, when `failed`. */
  error?: unknown;
}

/** Options of `deliverTo`. */
export interface DeliverToOptions extends Omit<EventHandlerOptions, 'resyncPeriodMs'> {
  /** The clock of `lagMs`. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * Delivers a stream of deltas to a handler through its own buffer, and emits one `Delivery` per
 * callback finished. The same buffer the shared informer gives each handler, for any delta stream.
 *
 * - Callbacks run one at a time: a returned promise is awaited before the next delta.
 * - The source is never slowed: deltas wait in the buffer (`fifo` or `coalesce`).
 * - A callback that throws or rejects is a `Delivery` with `failed: true`; delivery goes on.
 * - Completes when the source has completed and the buffer is drained; a source error is passed
 *   on at once and drops the buffer. Unsubscribing drops the buffer.
 *
 * @example
 * informer.events$.pipe(deliverTo({ onAdd: (pod) => save(pod) }, { buffer: 'coalesce' }))
 *   .subscribe((d) => d.failed && console.error(d.delta.key, d.error));
 */
export function deliverTo<T extends KubeObject>(
  handler: EventHandler<T>,
  options: DeliverToOptions = {},
): OperatorFunction<Delta<T>, Delivery<T>> {
  validateHandler(handler, options);
  const name = options.name ?? 'handler';
  const scheduler = options.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<Delivery<T>>((subscriber) => {
      const queue = new HandlerQueue<T>(name, handler, options, scheduler, {
        onDelivered: (d) => subscriber.next(d),
        onEnd: () => subscriber.complete(),
      });
      return source
        .pipe(
          map((delta): HandlerBatch<T> => ({ deltas: [delta] })),
          deliverBatches(queue),
        )
        .subscribe({ error: (err) => subscriber.error(err) });
    });
}

/**
 * The buffered subscription of a handler, under `deliverTo` and each shared-informer handler:
 * every batch of the source goes into `queue`, which delivers to its handler one callback at a
 * time; the source's completion ends the queue (its owner hears `onEnd` once it has drained) and
 * its error is passed on. Emits nothing; unsubscribing drops the buffer.
 *
 * Written by hand: unsubscribing must drop the buffer while the source completing must not (the
 * queue drains first), and `finalize` and its kin run on both alike.
 * @internal
 */
export function deliverBatches<T extends KubeObject>(queue: HandlerQueue<T>): OperatorFunction<HandlerBatch<T>, never> {
  return (source) =>
    new Observable<never>((subscriber) => {
      const sub = source.subscribe({
        next: (batch) => queue.enqueueBatch(batch),
        error: (err) => subscriber.error(err),
        complete: () => queue.end(),
      });
      return () => {
        sub.unsubscribe();
        queue.remove();
      };
    });
}

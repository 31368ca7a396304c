/**
 * Event handlers of a shared informer: each registration owns a buffer and delivers its deltas one
 * at a time, awaiting async callbacks, so a slow or failing handler never delays the store or the
 * other handlers (client-go's `processorListener`).
 */
import { Observable, asyncScheduler, map, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import type { Delivery, EventHandler, EventHandlerOptions } from './handlerTypes.ts';
import { deliverBatches, HandlerQueue, type HandlerBatch } from './handlerQueue.ts';
import { validateResyncPeriod } from './resync.ts';
import type { Delta, KubeObject } from '../types.ts';

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

/**
 * Event handlers of a shared informer: each registration owns a buffer and delivers its deltas one
 * at a time, awaiting async callbacks, so a slow or failing handler never delays the store or the
 * other handlers (client-go's `processorListener`).
 */
import { BehaviorSubject, Observable, Subject, asapScheduler, asyncScheduler, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';
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

type Entry<T extends KubeObject> = { delta: Delta<T>; at: number };

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

/** What a `HandlerQueue` reports to its owner. */
interface QueueHooks<T extends KubeObject> {
  onError?(e: HandlerError<T>): void;
  onDelivered?(d: Delivery<T>): void;
  /** The buffer is empty and no callback is running. */
  onIdle?(): void;
}

/**
 * One handler's buffer and delivery loop. The owner pushes deltas with `enqueue`; delivery starts
 * on `asapScheduler` (a microtask, or virtual time inside `TestScheduler.run`), one callback at a
 * time: a returned promise is awaited before the next delta.
 * @internal used by the shared informer and `deliverTo`.
 */
export class HandlerQueue<T extends KubeObject> {
  readonly name: string;
  readonly #handler: EventHandler<T>;
  readonly #policy: BufferPolicy;
  readonly #scheduler: SchedulerLike;
  readonly #hooks: QueueHooks<T>;
  #entries: (Entry<T> | undefined)[] = [];
  #head = 0;
  /** Index of the last pending entry per key (coalescing only). */
  #lastByKey = new Map<string, number>();
  /** Pending entries per key, so resync asks in O(1) whatever the backlog. */
  #pendingByKey = new Map<string, number>();
  #running = false;
  #removed = false;
  #enqueued = 0;
  #processed = 0;
  #syncMark: number | undefined;
  #lagMs = 0;
  #errors = 0;
  /** The depth last published on `metrics$` (figures are published only while someone listens). */
  #publishedDepth = 0;
  readonly #metrics = new Subject<HandlerMetrics>();
  readonly synced = new BehaviorSubject(false);
  /**
   * Delivery figures: the current ones on subscription, then each change (a notification
   * buffered or taken, a callback finished). Computed only while subscribed, so an unobserved
   * handler pays nothing per event. Completes on `remove()`.
   */
  readonly metrics$ = new Observable<HandlerMetrics>((subscriber) => {
    if (!this.#removed) {
      const figures = this.#figures();
      this.#publishedDepth = figures.depth; // what every listener has now seen
      subscriber.next(figures);
    }
    return this.#metrics.subscribe(subscriber);
  });

  constructor(
    name: string,
    handler: EventHandler<T>,
    options: Pick<EventHandlerOptions, 'buffer'>,
    scheduler: SchedulerLike,
    hooks: QueueHooks<T> = {},
  ) {
    this.name = name;
    this.#handler = handler;
    this.#policy = options.buffer ?? 'fifo';
    this.#scheduler = scheduler;
    this.#hooks = hooks;
  }

  /** Notifications waiting. */
  get depth(): number {
    return this.#entries.length - this.#head;
  }

  /** True when nothing is waiting and no callback is running. */
  get idle(): boolean {
    return !this.#running && this.depth === 0;
  }

  /** True when a notification for `key` is waiting (resync skips such keys). */
  hasPending(key: string): boolean {
    return this.#pendingByKey.has(key);
  }

  /** Adds a delta to the buffer (merging it in coalescing mode) and starts delivery. */
  enqueue(delta: Delta<T>): void {
    if (this.#removed) return;
    const at = this.#scheduler.now();
    if (this.#policy === 'coalesce') {
      const index = this.#lastByKey.get(delta.key);
      const pending = index === undefined ? undefined : this.#entries[index];
      const merged = pending && merge(pending.delta, delta);
      if (pending && merged) {
        this.#entries[index!] = { delta: merged, at: pending.at };
        return;
      }
      this.#lastByKey.set(delta.key, this.#entries.length);
    }
    this.#entries.push({ delta, at });
    this.#pendingByKey.set(delta.key, (this.#pendingByKey.get(delta.key) ?? 0) + 1);
    this.#enqueued++;
    this.#publish();
    if (!this.#running) {
      this.#running = true;
      asapScheduler.schedule(() => void this.#drain());
    }
  }

  /** Marks the end of this handler's initial list: it is synced once everything enqueued so far is done. */
  markInitialListEnd(): void {
    if (this.#syncMark !== undefined) return;
    this.#syncMark = this.#enqueued;
    this.#checkSynced();
  }

  /** Stops delivery and drops the buffer; a callback already running finishes. */
  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    this.#entries = [];
    this.#head = 0;
    this.#lastByKey.clear();
    this.#pendingByKey.clear();
    this.synced.complete();
    this.#metrics.complete();
  }

  async #drain(): Promise<void> {
    while (!this.#removed && this.#head < this.#entries.length) {
      const index = this.#head++;
      const entry = this.#entries[index]!;
      this.#entries[index] = undefined;
      const left = this.#pendingByKey.get(entry.delta.key)! - 1;
      if (left === 0) this.#pendingByKey.delete(entry.delta.key);
      else this.#pendingByKey.set(entry.delta.key, left);
      if (this.#policy === 'coalesce' && this.#lastByKey.get(entry.delta.key) === index) this.#lastByKey.delete(entry.delta.key);
      if (this.#head > 1024 && this.#head * 2 > this.#entries.length) this.#compact();
      this.#publish();
      const lagMs = this.#scheduler.now() - entry.at;
      let failed = false;
      let error: unknown;
      try {
        const result = this.#call(entry.delta);
        if (result !== undefined && typeof (result as Promise<void>).then === 'function') await result;
      } catch (e) {
        failed = true;
        error = e;
      }
      this.#processed++;
      if (failed) this.#errors++;
      this.#lagMs = lagMs;
      if (failed) this.#hooks.onError?.({ handler: this.name, delta: entry.delta, error }); // even when removed meanwhile
      if (this.#removed) break;
      if (this.#metrics.observed) this.#emitFigures();
      this.#hooks.onDelivered?.(
        failed
          ? { handler: this.name, delta: entry.delta, lagMs, failed, error }
          : { handler: this.name, delta: entry.delta, lagMs, failed },
      );
      this.#checkSynced();
    }
    this.#running = false;
    if (!this.#removed) this.#hooks.onIdle?.();
  }

  #call(delta: Delta<T>): void | Promise<void> {
    const h = this.#handler;
    switch (delta.type) {
      case 'Added':
        return h.onAdd?.(delta.object, delta.isInInitialList === true);
      case 'Deleted':
        return h.onDelete?.(delta.object, delta.finalStateUnknown === true);
      default:
        return h.onUpdate?.(delta.oldObject ?? delta.object, delta.object);
    }
  }

  #compact(): void {
    const shift = this.#head;
    this.#entries = this.#entries.slice(shift);
    this.#head = 0;
    for (const [key, i] of this.#lastByKey) this.#lastByKey.set(key, i - shift);
  }

  /** Publishes a change of depth, if anyone listens. */
  #publish(): void {
    if (this.#removed || !this.#metrics.observed || this.#publishedDepth === this.depth) return;
    this.#emitFigures();
  }

  #emitFigures(): void {
    const figures = this.#figures();
    this.#publishedDepth = figures.depth;
    this.#metrics.next(figures);
  }

  #figures(): HandlerMetrics {
    return { depth: this.depth, lagMs: this.#lagMs, delivered: this.#processed, errors: this.#errors };
  }

  #checkSynced(): void {
    if (!this.synced.value && this.#syncMark !== undefined && this.#processed >= this.#syncMark && !this.#removed) this.synced.next(true);
  }
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
      let sourceDone = false;
      const queue = new HandlerQueue<T>(name, handler, options, scheduler, {
        onDelivered: (d) => subscriber.next(d),
        onIdle: () => {
          if (sourceDone) subscriber.complete();
        },
      });
      const sub = source.subscribe({
        next: (delta) => queue.enqueue(delta),
        error: (err) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          if (queue.idle) subscriber.complete();
        },
      });
      return () => {
        sub.unsubscribe();
        queue.remove();
      };
    });
}

/** Merges a new delta into a pending one for the same key, or returns undefined to keep both. */
function merge<T extends KubeObject>(pending: Delta<T>, next: Delta<T>): Delta<T> | undefined {
  if (pending.type === 'Deleted' || next.type === 'Added') return undefined; // never drop a delete; delete+add stays two
  if (next.type === 'Deleted') return next;
  if (pending.type === 'Added') return { ...next, type: 'Added', oldObject: undefined, isInInitialList: pending.isInInitialList };
  // Updated/Replaced/Sync followed by an update: newest object, oldest old object.
  const type = next.type === 'Sync' ? pending.type : next.type;
  return { ...next, type, oldObject: pending.oldObject ?? pending.object };
}

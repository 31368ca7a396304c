/**
 * One handler's buffer and delivery loop (client-go's `processorListener`): deltas in, one callback
 * at a time out, a returned promise awaited before the next; `fifo` or `coalesce`. `deliverBatches`
 * (at the end) is the operator that feeds a queue from a stream of batches.
 * @internal used by `deliverTo` and the shared informer's handlers.
 */
import { BehaviorSubject, Observable, Subject, asapScheduler, asyncScheduler, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { BufferPolicy, Delivery, EventHandler, EventHandlerOptions, HandlerError, HandlerMetrics } from './handlerTypes.ts';
import type { Delta, KubeObject } from '../types.ts';

type Entry<T extends KubeObject> = { delta: Delta<T>; at: number };

/**
 * The most callbacks that return no promise one queue delivers in a row before it lets the event
 * loop run (a macrotask): a resync pass or a late handler's replay of 100k objects to a handler
 * that returns at once used to run as one synchronous block of hundreds of ms, in which no watch
 * event was read and no other handler or timer ran. 1000 calls of a quick handler take ~2 ms.
 */
export const MAX_CALLS_IN_A_ROW = 1000;

/** A macrotask: what the event loop had waiting (I/O, timers, other queues) runs first. */
const yieldToEventLoop = () => new Promise<void>((resolve) => asyncScheduler.schedule(() => resolve()));

/**
 * Deltas for one handler's buffer, in order: a live batch (the deltas of one change of the cache),
 * a late handler's replay of the cache, or a resync pass.
 */
export interface HandlerBatch<T extends KubeObject> {
  readonly deltas: readonly Delta<T>[];
  /** These deltas end the handler's initial list: it has synced once it has finished them. */
  readonly initialListEnd?: boolean;
  /** A resync pass: a key with a change still waiting in the buffer is skipped, so the handler never hears a stale object ahead of its change. */
  readonly resync?: boolean;
}

/** What a `HandlerQueue` reports to its owner. */
interface QueueHooks<T extends KubeObject> {
  onError?(e: HandlerError<T>): void;
  onDelivered?(d: Delivery<T>): void;
  /** `end()` was called and everything buffered before has been delivered. */
  onEnd?(): void;
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
  #ended = false;
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

  /** Adds a batch's deltas in order (a resync pass skips the keys with a change waiting), then marks the initial list's end when it says so. */
  enqueueBatch(batch: HandlerBatch<T>): void {
    for (const delta of batch.deltas) if (!batch.resync || !this.hasPending(delta.key)) this.enqueue(delta);
    if (batch.initialListEnd) this.markInitialListEnd();
  }

  /** No more input: `onEnd` once everything buffered has been delivered (at once when nothing is). */
  end(): void {
    if (this.#ended || this.#removed) return;
    this.#ended = true;
    if (this.idle) this.#hooks.onEnd?.();
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
    let inARow = 0;
    while (!this.#removed && this.#head < this.#entries.length) {
      if (inARow >= MAX_CALLS_IN_A_ROW) {
        inARow = 0;
        await yieldToEventLoop();
        continue; // removed meanwhile, or emptied: checked again
      }
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
        if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
          inARow = 0;
          await result;
        } else inARow++;
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
    if (!this.#removed && this.#ended) this.#hooks.onEnd?.();
  }

  #call(delta: Delta<T>): void | Promise<void> {
    const h = this.#handler;
    switch (delta.type) {
      case 'Added':
        return h.onAdd?.(delta.object, delta.isInInitialList, delta.key, delta.fromSnapshot === true);
      case 'Deleted':
        return h.onDelete?.(delta.deleted);
      case 'Sync':
        return h.onUpdate?.(delta.object, delta.object, delta.key);
      default:
        return h.onUpdate?.(delta.oldObject, delta.object, delta.key);
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

/** Merges a new delta into a pending one for the same key, or returns undefined to keep both. */
function merge<T extends KubeObject>(pending: Delta<T>, next: Delta<T>): Delta<T> | undefined {
  if (pending.type === 'Deleted' || next.type === 'Added') return undefined; // never drop a delete; delete+add stays two
  if (next.type === 'Deleted') return next;
  const { key, object, store } = next;
  if (pending.type === 'Added') return { type: 'Added', key, object, isInInitialList: pending.isInInitialList, store };
  // Updated/Replaced/Sync followed by an update: newest object, oldest old object.
  const type = next.type === 'Sync' ? pending.type : next.type;
  if (type === 'Sync') return { type, key, object, store };
  return { type, key, object, oldObject: pending.type === 'Sync' ? pending.object : pending.oldObject, store };
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

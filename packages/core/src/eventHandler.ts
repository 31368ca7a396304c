/**
 * Event handlers of a shared informer: each registration owns a buffer and delivers its deltas one
 * at a time, awaiting async callbacks, so a slow or failing handler never delays the store or the
 * other handlers (client-go's `processorListener`).
 */
import { BehaviorSubject, type Observable, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';
import type { Delta, KubeObject } from './types.ts';

/** The callbacks of a handler; at least one is required. A returned promise is awaited. */
export interface EventHandler<T extends KubeObject> {
  /** A new object; `isInInitialList` is true for the initial list and a late handler's replay. */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** A changed object; on resync (`Sync`) and unchanged relist (`Replaced`) deltas `oldObj === newObj`. */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** A deleted object; `finalStateUnknown` when it vanished while the watch was down (a tombstone). */
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
  if (handler === null || typeof handler !== 'object') throw new InvalidOptionsError('an event handler must be an object with onAdd, onUpdate or onDelete');
  const callbacks = (['onAdd', 'onUpdate', 'onDelete'] as const).filter((k) => handler[k] !== undefined);
  if (callbacks.length === 0) throw new InvalidOptionsError('an event handler needs at least one of onAdd, onUpdate, onDelete');
  for (const k of callbacks) if (typeof handler[k] !== 'function') throw new InvalidOptionsError(`${k} must be a function`);
  const period = options.resyncPeriodMs ?? 0;
  if (typeof period !== 'number' || !Number.isFinite(period) || period < 0) throw new InvalidOptionsError(`resyncPeriodMs must be >= 0, got ${options.resyncPeriodMs}`);
  if (period > 0 && period < 1000) throw new InvalidOptionsError(`resyncPeriodMs must be 0 (off) or at least 1000, got ${period}`);
  if (options.buffer !== undefined && options.buffer !== 'fifo' && options.buffer !== 'coalesce') throw new InvalidOptionsError(`buffer must be 'fifo' or 'coalesce', got ${String(options.buffer)}`);
}

/**
 * One handler's buffer and delivery loop. The informer pushes deltas with `enqueue`; delivery runs
 * on microtasks, one callback at a time.
 * @internal used by the shared informer.
 */
export class HandlerQueue<T extends KubeObject> {
  readonly name: string;
  readonly #handler: EventHandler<T>;
  readonly #policy: BufferPolicy;
  readonly #scheduler: SchedulerLike;
  readonly #onError: (e: HandlerError<T>) => void;
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
  readonly synced = new BehaviorSubject(false);
  readonly metrics = new BehaviorSubject<HandlerMetrics>({ depth: 0, lagMs: 0, delivered: 0, errors: 0 });

  constructor(name: string, handler: EventHandler<T>, options: EventHandlerOptions, scheduler: SchedulerLike, onError: (e: HandlerError<T>) => void) {
    this.name = name;
    this.#handler = handler;
    this.#policy = options.buffer ?? 'fifo';
    this.#scheduler = scheduler;
    this.#onError = onError;
  }

  /** Notifications waiting. */
  get depth(): number {
    return this.#entries.length - this.#head;
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
        this.#publish();
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
      queueMicrotask(() => void this.#drain());
    }
  }

  /** Marks the end of this handler's initial list: it is synced once everything enqueued so far is done. */
  markInitialListEnd(): void {
    if (this.#syncMark !== undefined) return;
    this.#syncMark = this.#enqueued;
    this.#checkSynced();
  }

  /** Stops delivery and drops the buffer. */
  remove(): void {
    this.#removed = true;
    this.#entries = [];
    this.#head = 0;
    this.#lastByKey.clear();
    this.#pendingByKey.clear();
    this.#publish();
    this.synced.complete();
    this.metrics.complete();
  }

  async #drain(): Promise<void> {
    while (!this.#removed && this.#head < this.#entries.length) {
      const index = this.#head++;
      const entry = this.#entries[index];
      if (entry === undefined) continue;
      this.#entries[index] = undefined;
      const left = (this.#pendingByKey.get(entry.delta.key) ?? 1) - 1;
      if (left === 0) this.#pendingByKey.delete(entry.delta.key);
      else this.#pendingByKey.set(entry.delta.key, left);
      this.#publish();
      if (this.#policy === 'coalesce' && this.#lastByKey.get(entry.delta.key) === index) this.#lastByKey.delete(entry.delta.key);
      if (this.#head > 1024 && this.#head * 2 > this.#entries.length) this.#compact();
      const lagMs = this.#scheduler.now() - entry.at;
      let failed = false;
      try {
        const result = this.#call(entry.delta);
        if (result !== undefined && typeof (result as Promise<void>).then === 'function') await result;
      } catch (error) {
        failed = true;
        this.#onError({ handler: this.name, delta: entry.delta, error });
      }
      this.#processed++;
      const m = this.metrics.value;
      if (!this.#removed) this.metrics.next({ depth: this.depth, lagMs, delivered: m.delivered + 1, errors: m.errors + (failed ? 1 : 0) });
      this.#checkSynced();
    }
    this.#running = false;
  }

  #call(delta: Delta<T>): void | Promise<void> {
    const h = this.#handler;
    switch (delta.type) {
      case 'Added': return h.onAdd?.(delta.object, delta.isInInitialList === true);
      case 'Deleted': return h.onDelete?.(delta.object, delta.finalStateUnknown === true);
      default: return h.onUpdate?.(delta.oldObject ?? delta.object, delta.object);
    }
  }

  #compact(): void {
    const kept = this.#entries.slice(this.#head);
    const shift = this.#head;
    this.#entries = kept;
    this.#head = 0;
    for (const [key, i] of this.#lastByKey) this.#lastByKey.set(key, i - shift);
  }

  #publish(): void {
    if (this.#removed) return;
    const m = this.metrics.value;
    if (m.depth !== this.depth) this.metrics.next({ ...m, depth: this.depth });
  }

  #checkSynced(): void {
    if (!this.synced.value && this.#syncMark !== undefined && this.#processed >= this.#syncMark && !this.#removed) this.synced.next(true);
  }
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

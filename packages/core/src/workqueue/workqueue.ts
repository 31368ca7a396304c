/**
 * A rate-limited, de-duplicating work queue with client-go's guarantees: a key waits once however
 * often it is added; a key is never handed to two workers at once; a key added while it is being
 * processed is processed again after `done`. Delays run on an RxJS scheduler. Keys may carry a
 * priority (controller-runtime's priority queue): higher priorities are handed out first, and a
 * worker's requeue of its key (`addRateLimited`, `addAfter`) keeps the priority it was handed out at.
 */
import { BehaviorSubject, Observable, Subject, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { scheduleAfter } from '../time/longTimer.ts';
import { PriorityFifo } from './priorityFifo.ts';
import { checkDelay, checkRateLimiter, defaultControllerRateLimiter, type RateLimiter } from './rateLimiter.ts';

/** Options of `WorkQueue`. */
export interface WorkQueueOptions<K = string> {
  /** Per-key delay after the first failure, in ms: a finite number >= 0 of any length (see `ExponentialFailureOptions`). Default 5. */
  baseDelayMs?: number;
  /** Cap of the per-key delay, in ms: a finite number >= 0 of any length, waited out past a timer's 24.8 days. Default 1 000 000 (client-go: 1000 s). */
  maxDelayMs?: number;
  /** Overall limit of rate-limited adds, per second. Default 10. */
  qps?: number;
  /** Token bucket size of the overall limit. Default 100. */
  burst?: number;
  /** A rate limiter replacing the default built from the four options above (give one or the other). */
  rateLimiter?: RateLimiter<K>;
  /** Where delays run and time is read. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** A snapshot of the queue's counters. */
export interface WorkQueueMetrics {
  /** Keys waiting to be handed out. */
  depth: number;
  /** Keys handed out and not yet `done`. */
  processing: number;
  /** Keys waiting for a delay (`addAfter`, `addRateLimited`). */
  delayed: number;
  /** Adds that queued a key (de-duplicated adds are not counted). */
  adds: number;
  /** Calls of `addRateLimited`. */
  retries: number;
  /**
   * Calls of `add`, `addAfter` and `addRateLimited` ignored because the queue was shutting down
   * (an informer's handler still adding after its controller stopped, say).
   */
  ignoredAfterShutdown: number;
}

/**
 * One step of a key through the queue, as `events$` reports it (client-go's workqueue metrics hook):
 * `added` — the key started waiting (an add of a key already waiting reports nothing; one of a key
 * being processed is reported, and the key waits until `done`); `taken` — handed to a worker;
 * `done` — its worker finished; `retried` — `addRateLimited` was called.
 */
export interface WorkQueueEvent<K = string> {
  /** What happened. */
  type: 'added' | 'taken' | 'done' | 'retried';
  /** The key it happened to. */
  key: K;
}

/** Throws `InvalidOptionsError` unless `priority` is a finite number. */
function checkPriority(priority: number): void {
  if (typeof priority !== 'number' || !Number.isFinite(priority))
    throw new InvalidOptionsError(`a work queue priority must be a finite number, got ${String(priority)}`);
}

interface Waiter<K> {
  take(key: K): void;
  end(): void;
}

/**
 * The queue. Workers take a key with `get()` (or `get$()`), work on it, then call `done(key)`;
 * `runController` does this for you.
 *
 * Keys are compared with `===` (SameValueZero): use strings or other primitives. `undefined` is
 * not a key.
 *
 * After `shutdown()` or `shutDownWithDrain()`, `add`, `addAfter` and `addRateLimited` are ignored
 * (as client-go's queue ignores them), never thrown at: handlers that still add while a controller
 * stops need no guard. Their arguments are still checked (`InvalidOptionsError`), and each ignored
 * call is counted in `metrics().ignoredAfterShutdown`.
 *
 * @example
 * const queue = new WorkQueue<string>();
 * queue.add('default/web');
 * const key = await queue.get(); // 'default/web'
 * try { await reconcile(key); queue.forget(key); } catch { queue.addRateLimited(key); } finally { queue.done(key); }
 */
export class WorkQueue<K = string> {
  readonly #items = new PriorityFifo<K>();
  /** Keys that need processing, with their priority: waiting in `#items`, or to be queued again when `done`. */
  readonly #dirty = new Map<K, number>();
  /** Keys handed out and not yet `done`, with the priority each was handed out at (its requeues' default). */
  readonly #processing = new Map<K, number>();
  readonly #delayed = new Map<K, { at: number; priority: number; timer: Subscription }>();
  readonly #waiters: Waiter<K>[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  readonly #limiter: RateLimiter<K>;
  readonly #scheduler: SchedulerLike;
  readonly #depth = new BehaviorSubject(0);
  readonly #events = new Subject<WorkQueueEvent<K>>();
  #shuttingDown = false;
  #adds = 0;
  #retries = 0;
  #ignored = 0;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#scheduler = options.scheduler ?? asyncScheduler;
    if (options.rateLimiter !== undefined) {
      const own = (['baseDelayMs', 'maxDelayMs', 'qps', 'burst'] as const).filter((k) => options[k] !== undefined);
      if (own.length > 0) throw new InvalidOptionsError(`give either rateLimiter or ${own.join(', ')}, not both`);
      this.#limiter = checkRateLimiter(options.rateLimiter, 'rateLimiter');
    } else {
      this.#limiter = defaultControllerRateLimiter<K>({ ...options, scheduler: this.#scheduler });
    }
  }

  /** Keys waiting to be handed out (not counting those being processed or delayed). */
  get length(): number {
    return this.#items.size;
  }

  /** `length` as a stream: the current value at once, then every change; completes once shut down and empty. */
  get depth$(): Observable<number> {
    return this.#depth.asObservable();
  }

  /**
   * Every step of every key (`WorkQueueEvent`), hot, as it happens: what metrics of durations need
   * (time in queue, time in work, work in progress). Nothing is computed while nobody subscribes.
   * Completes once shut down and drained.
   */
  get events$(): Observable<WorkQueueEvent<K>> {
    return this.#events.asObservable();
  }

  /** True once `shutdown` or `shutDownWithDrain` was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** The queue's counters now. */
  metrics(): WorkQueueMetrics {
    return {
      depth: this.length,
      processing: this.#processing.size,
      delayed: this.#delayed.size,
      adds: this.#adds,
      retries: this.#retries,
      ignoredAfterShutdown: this.#ignored,
    };
  }

  /**
   * Queues `key` unless it is already waiting. A key being processed is queued again after its
   * `done`. Ignored once the queue is shutting down (counted in `metrics().ignoredAfterShutdown`).
   *
   * `priority` (default 0, any finite number): keys of a higher priority are handed out first, in
   * the order they came within one priority. Adding a waiting key again with a higher priority
   * raises it (controller-runtime's priority queue: the highest priority asked for wins); e.g.
   * add the initial list and resyncs at -100 so that real changes overtake them.
   */
  add(key: K, priority = 0): void {
    if (key === undefined) throw new InvalidOptionsError('a work queue key cannot be undefined');
    checkPriority(priority);
    if (this.#ignoredWhenShuttingDown()) return;
    const dirty = this.#dirty.get(key);
    if (dirty !== undefined) {
      if (priority <= dirty) return;
      this.#dirty.set(key, priority); // raised: moves up if waiting, else queued at it after `done`
      if (this.#items.has(key)) this.#items.push(key, priority);
      return;
    }
    this.#adds++;
    this.#dirty.set(key, priority);
    if (this.#events.observed) this.#events.next({ type: 'added', key });
    if (!this.#processing.has(key)) this.#enqueue(key);
  }

  /**
   * Queues `key` once `ms` have passed: any finite delay, also past a JavaScript timer's 24.8 days
   * (30 days wait 30 days); 0 or less adds at once (as client-go's `AddAfter`); NaN and Infinity
   * throw `InvalidOptionsError`. Several delayed adds of one key keep only the earliest.
   * Pending delays are cancelled by shutdown; later calls are ignored. `priority`: that of the `add` when the delay ends
   * (the higher one wins when delayed adds of one key are merged). Default: the priority `key` was
   * handed out at while it is being processed (a worker's requeue keeps its key's class), else 0.
   */
  addAfter(key: K, ms: number, priority = this.#processing.get(key) ?? 0): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms))
      throw new InvalidOptionsError(`addAfter needs a finite delay in ms, got ${String(ms)}`);
    if (key === undefined) throw new InvalidOptionsError('a work queue key cannot be undefined');
    checkPriority(priority); // now, not when the delay ends
    if (this.#ignoredWhenShuttingDown()) return;
    if (ms <= 0) {
      this.add(key, priority);
      return;
    }
    const at = this.#scheduler.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined && pending.at <= at) {
      pending.priority = Math.max(pending.priority, priority);
      return;
    }
    pending?.timer.unsubscribe();
    const merged = Math.max(pending?.priority ?? priority, priority);
    // Any length: a delay past a JavaScript timer's 24.8 days is split, never fired at once.
    const timer = scheduleAfter(this.#scheduler, ms, () => {
      const raised = this.#delayed.get(key)?.priority ?? merged; // later merges may have raised it
      this.#delayed.delete(key);
      this.add(key, raised);
    });
    this.#delayed.set(key, { at, priority: merged, timer });
  }

  /**
   * Queues `key` after its rate limiter's delay — by default the longer of the per-key backoff
   * (5 ms doubling per failure up to `maxDelayMs`) and the overall token bucket's wait. A
   * `rateLimiter` of your own that answers anything but a finite delay >= 0 (NaN, Infinity, a
   * negative number) makes it throw `InvalidOptionsError` naming the key; the key is not queued.
   *
   * `priority`: that of the `add` when the delay ends. Default: the priority `key` was handed out
   * at while it is being processed, else 0 — so a failing key from the initial list is retried
   * behind real changes, and an urgent one stays ahead (controller-runtime's priority queue).
   */
  addRateLimited(key: K, priority = this.#processing.get(key) ?? 0): void {
    if (key === undefined) throw new InvalidOptionsError('a work queue key cannot be undefined');
    checkPriority(priority); // before the rate limiter counts a requeue
    if (this.#ignoredWhenShuttingDown()) return;
    const ms = checkDelay(this.#limiter.when(key), key);
    this.#retries++;
    if (this.#events.observed) this.#events.next({ type: 'retried', key });
    this.addAfter(key, ms, priority);
  }

  /** Clears the failure history of `key` (call it when the key was processed successfully). */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  /** How many times `key` was rate-limited since its last `forget`. */
  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * Takes the next key: emits it (at once if one is waiting) and completes; completes without a
   * key once the queue is shut down and empty. Unsubscribing before a key arrives withdraws the
   * request. The key is being processed from then on: call `done(key)`.
   */
  get$(): Observable<K> {
    return new Observable<K>((subscriber) => {
      if (this.length > 0) {
        subscriber.next(this.#take());
        subscriber.complete();
        return undefined;
      }
      if (this.#shuttingDown) {
        subscriber.complete();
        return undefined;
      }
      const waiter: Waiter<K> = {
        take: (key) => {
          subscriber.next(key);
          subscriber.complete();
        },
        end: () => subscriber.complete(),
      };
      this.#waiters.push(waiter);
      return () => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
      };
    });
  }

  /** `get$()` as a promise: the next key, or `undefined` once the queue is shut down and empty. */
  get(): Promise<K | undefined> {
    return new Promise((resolve) => {
      let key: K | undefined;
      this.get$().subscribe({
        next: (k) => {
          key = k;
        },
        complete: () => resolve(key),
      });
    });
  }

  /** Marks `key` as processed; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    if (!this.#processing.delete(key)) return;
    if (this.#events.observed) this.#events.next({ type: 'done', key });
    if (this.#dirty.has(key)) this.#enqueue(key);
    this.#settle();
  }

  /**
   * Stops at once: new adds are ignored, delays are cancelled and waiting keys are dropped; workers
   * waiting for a key get none. Resolves once the keys being processed are `done`.
   */
  shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#items.clear();
    this.#dirty.clear(); // keys in progress are not queued again either
    return this.#stop();
  }

  /**
   * Stops taking new keys (adds are ignored, delays cancelled) but lets workers finish every key
   * already queued — and those re-queued by `done` — then resolves.
   */
  shutDownWithDrain(): Promise<void> {
    this.#shuttingDown = true;
    return this.#stop();
  }

  #stop(): Promise<void> {
    for (const { timer } of this.#delayed.values()) timer.unsubscribe();
    this.#delayed.clear();
    const drained = new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    this.#publishDepth();
    this.#settle();
    return drained;
  }

  /** True (and counted) when the queue is shutting down: the add is ignored. */
  #ignoredWhenShuttingDown(): boolean {
    if (this.#shuttingDown) this.#ignored++;
    return this.#shuttingDown;
  }

  /** Hands `key` to a waiting worker, or appends it at its priority. The key is in `#dirty`. */
  #enqueue(key: K): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#processing.set(key, this.#dirty.get(key) ?? 0);
      this.#dirty.delete(key);
      if (this.#events.observed) this.#events.next({ type: 'taken', key });
      waiter.take(key); // last: the waiter may call back into the queue
      return;
    }
    this.#items.push(key, this.#dirty.get(key) ?? 0);
    this.#publishDepth();
  }

  #take(): K {
    const key = this.#items.shift() as K;
    this.#processing.set(key, this.#dirty.get(key) ?? 0);
    this.#dirty.delete(key);
    this.#publishDepth();
    if (this.#events.observed) this.#events.next({ type: 'taken', key });
    return key;
  }

  #publishDepth(): void {
    if (this.#depth.value !== this.length && !this.#depth.closed) this.#depth.next(this.length);
  }

  /** Once shutting down with nothing waiting: release idle workers; with nothing in progress either, resolve the drains. */
  #settle(): void {
    if (!this.#shuttingDown || this.length > 0) return;
    for (const w of this.#waiters.splice(0)) w.end();
    if (this.#processing.size > 0) return;
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
    this.#depth.complete();
    this.#events.complete();
  }
}

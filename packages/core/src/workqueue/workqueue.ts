/**
 * A rate-limited, de-duplicating work queue with client-go's guarantees: a key waits once however
 * often it is added; a key is never handed to two workers at once; a key added while it is being
 * processed is processed again after `done`. Delays run on an RxJS scheduler. Keys may carry a
 * priority (controller-runtime's priority queue): higher priorities are handed out first, and a
 * worker's requeue of its key (`addRateLimited`, `addAfter`) keeps the priority it was handed out at.
 * A key's timers are the queue's alone: requeue-after, rate-limited retry, debounce and hold
 * (`waitOf(key)` says when it may next be handed out, and why not before).
 */
import { BehaviorSubject, Observable, Subject, asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { KeyWaits, type HoldHandlers, type KeyWait } from './keyWaits.ts';
import { PriorityFifo } from './priorityFifo.ts';
import type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueueTypes.ts';
import { checkDelay, checkRateLimiter, defaultControllerRateLimiter, type RateLimiter } from './rateLimiter.ts';

export type { WorkQueueEvent, WorkQueueMetrics, WorkQueueOptions } from './workqueueTypes.ts';

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
 * `@rxinformer/controller`'s controllers do this for you.
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
  readonly #waits: KeyWaits<K>;
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
    this.#waits = new KeyWaits<K>(this.#scheduler, (key, priority) => this.add(key, priority));
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
      delayed: this.#waits.delayed,
      held: this.#waits.held,
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
    if (this.#waits.isHeld(key)) return this.#waits.putOff(key, priority); // made when the hold ends
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
    this.#waits.delay(key, ms, priority, 'requeueAfter');
  }

  /**
   * Queues `key` once it has been quiet for `ms` (kube-rs's debounce): each debounced add starts
   * its quiet time again, so changes within it queue the key once, at the highest priority asked.
   * A key waiting already only has its priority raised; a sooner delay of it (`addAfter`, a retry)
   * is kept. A draining shutdown queues keys in their quiet time at once. Checks as `addAfter`.
   */
  addDebounced(key: K, ms: number, priority = 0): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms))
      throw new InvalidOptionsError(`addDebounced needs a finite delay in ms, got ${String(ms)}`);
    if (key === undefined) throw new InvalidOptionsError('a work queue key cannot be undefined');
    checkPriority(priority);
    if (this.#ignoredWhenShuttingDown()) return;
    if (ms <= 0 || this.#dirty.has(key) || this.#waits.isHeld(key)) this.add(key, priority);
    else this.#waits.delay(key, ms, priority, 'debounce');
  }

  /**
   * Holds `key` until `release(key)` or `timeoutMs`: it is not handed out, and adds meanwhile are
   * put off, made once when the hold ends (at the highest priority asked); `handlers` hear of the
   * first put-off add and of the end. Shutdown drops holds silently. A controller holds a key
   * whose writes its caches do not show yet (read-your-writes, KEP-5647's staleness check).
   *
   * @example
   * queue.hold('default/web', 10_000, { ended: ({ how }) => how === 'expired' && log.warn('caches behind') });
   */
  hold(key: K, timeoutMs: number, handlers?: HoldHandlers): void {
    if (key === undefined) throw new InvalidOptionsError('a work queue key cannot be undefined');
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))
      throw new InvalidOptionsError(`hold needs a finite timeout in ms > 0, got ${String(timeoutMs)}`);
    if (this.#shuttingDown) return;
    const waiting = this.#items.priorityOf(key);
    this.#waits.hold(key, timeoutMs, handlers);
    if (waiting === undefined || !this.#items.delete(key)) return; // waiting already: it waits for the hold instead
    this.#dirty.delete(key);
    this.#waits.putOff(key, waiting);
    this.#publishDepth();
  }

  /** Ends the hold of `key` (nothing when it is not held); an add it put off is made now. */
  release(key: K): void {
    this.#waits.release(key);
  }

  /** When `key` may next be handed out, and why not before; undefined when nothing holds or delays it. */
  waitOf(key: K): KeyWait | undefined {
    return this.#waits.waitOf(key);
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
    if (ms <= 0) this.add(key, priority);
    else this.#waits.delay(key, ms, priority, 'backoff');
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
    if (!this.#shuttingDown) this.#waits.flushDebounced(); // what was heard is reconciled
    this.#shuttingDown = true;
    return this.#stop();
  }

  #stop(): Promise<void> {
    this.#waits.clear();
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

  /** Hands `key` to a waiting worker, or appends it at its priority (a held key waits for its hold). The key is in `#dirty`. */
  #enqueue(key: K): void {
    if (this.#waits.isHeld(key)) {
      this.#waits.putOff(key, this.#dirty.get(key) ?? 0);
      this.#dirty.delete(key);
      return;
    }
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

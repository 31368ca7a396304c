/**
 * A rate-limited, de-duplicating work queue with client-go's guarantees: a key is queued once
 * however often it is added; a key is never handed to two workers at once; a key added while it
 * is being processed is processed again afterwards. Time runs on an RxJS scheduler.
 */
import { BehaviorSubject, asyncScheduler, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';

/** Options of `WorkQueue`. */
export interface WorkQueueOptions {
  /** First per-key retry delay, in ms. Default 5. */
  baseDelayMs?: number;
  /** Cap of the per-key delay, in ms. Default 1 000 000 (client-go: 1000 s). */
  maxDelayMs?: number;
  /** Overall rate limit of rate-limited adds, per second. Default 10. */
  qps?: number;
  /** Token bucket size of the overall limit. Default 100. */
  burst?: number;
  /** Where time runs. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * The queue. Workers call `get()` for the next key and `done(key)` when finished.
 *
 * @example
 * const queue = new WorkQueue<string>();
 * queue.add('default/web');
 * const key = await queue.get(); // 'default/web'
 * try { await reconcile(key); queue.forget(key); } catch { queue.addRateLimited(key); } finally { queue.done(key); }
 */
export class WorkQueue<K = string> {
  readonly #queue: K[] = [];
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #failures = new Map<K, number>();
  readonly #timers = new Set<Subscription>();
  readonly #waiters: ((key: K | undefined) => void)[] = [];
  readonly #scheduler: SchedulerLike;
  readonly #base: number;
  readonly #max: number;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #tokensAt: number;
  #shuttingDown = false;
  #drained?: () => void;
  readonly #depth = new BehaviorSubject(0);

  constructor(options: WorkQueueOptions = {}) {
    const num = (name: string, v: number | undefined, d: number, min: number): number => {
      const x = v ?? d;
      if (typeof x !== 'number' || !Number.isFinite(x) || x < min) throw new InvalidOptionsError(`${name} must be a number >= ${min}, got ${v}`);
      return x;
    };
    this.#base = num('baseDelayMs', options.baseDelayMs, 5, 0);
    this.#max = num('maxDelayMs', options.maxDelayMs, 1_000_000, this.#base);
    this.#qps = num('qps', options.qps, 10, Number.MIN_VALUE);
    this.#burst = num('burst', options.burst, 100, 1);
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#tokens = this.#burst;
    this.#tokensAt = this.#scheduler.now();
  }

  /** Keys waiting (not counting those being processed). */
  get length(): number {
    return this.#queue.length;
  }

  /** `length` as a stream. */
  get depth$(): Observable<number> {
    return this.#depth.asObservable();
  }

  /** True once `shutdown` was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Queues `key` unless it is already waiting; a key being processed is queued again after `done`. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      waiter(key);
      return;
    }
    this.#queue.push(key);
    this.#depth.next(this.#queue.length);
  }

  /** Queues `key` after `ms` milliseconds. */
  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) { this.add(key); return; }
    const timer = this.#scheduler.schedule(() => { this.#timers.delete(timer); this.add(key); }, ms);
    this.#timers.add(timer);
  }

  /**
   * Queues `key` after its backoff: the per-key delay (base doubling per failure, capped) or the
   * overall token bucket's wait, whichever is longer.
   */
  addRateLimited(key: K): void {
    this.addAfter(key, this.when(key));
  }

  /** The delay `addRateLimited(key)` would use now, counting this as one more failure. */
  when(key: K): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const perKey = Math.min(this.#max, this.#base * 2 ** failures);
    return Math.max(perKey, this.#takeToken());
  }

  /** Stops tracking the failures of `key` (call on success). */
  forget(key: K): void {
    this.#failures.delete(key);
  }

  /** How many times `key` was rate-limited since its last `forget`. */
  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }

  /** The next key, once there is one; `undefined` once the queue is shut down and empty. */
  get(): Promise<K | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#depth.next(this.#queue.length);
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Marks `key` as processed; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
    if (this.#shuttingDown && this.#processing.size === 0 && this.#queue.length === 0) this.#drained?.();
  }

  /**
   * Stops accepting keys and cancels delayed adds. With `drain`, the promise resolves once the
   * keys waiting and in progress are done; otherwise waiting keys are dropped.
   */
  shutdown(drain = false): Promise<void> {
    this.#shuttingDown = true;
    for (const t of this.#timers) t.unsubscribe();
    this.#timers.clear();
    if (!drain) {
      this.#queue.length = 0;
      this.#dirty.clear();
      this.#depth.next(0);
    }
    for (const w of this.#waiters.splice(0)) w(undefined);
    if (this.#processing.size === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => { this.#drained = resolve; });
  }

  #takeToken(): number {
    const now = this.#scheduler.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#tokensAt) * this.#qps) / 1000);
    this.#tokensAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#qps);
  }
}

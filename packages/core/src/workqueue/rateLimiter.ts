/**
 * Rate limiters for the work queue: how long a key must wait before it is retried. client-go's
 * default controller rate limiter is the longer of a per-key exponential backoff (5 ms doubling,
 * capped at 1000 s) and an overall token bucket (10 per second, bursts of 100). Every limiter here
 * answers a finite delay >= 0 whatever its options and however many failures it has counted.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError, checkNumber, describeValue } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';

/**
 * Decides retry delays. `when` counts one more failure of `key` and answers the delay in ms;
 * `forget` clears the key's history (call it on success); `numRequeues` is the count of failures
 * since the last `forget`.
 */
export interface RateLimiter<K = string> {
  /**
   * The delay before `key` may be retried, in ms; counts a retry. Must be a finite number >= 0:
   * `WorkQueue.addRateLimited` and `maxOfRateLimiters` refuse any other answer with `InvalidOptionsError`.
   */
  when(key: K): number;
  /** Resets `key`'s failure count (after a success). */
  forget(key: K): void;
  /** Retries of `key` since the last `forget`. */
  numRequeues(key: K): number;
}

/**
 * Options of `exponentialFailureRateLimiter`. Each a finite number of ms >= 0 of any length: the
 * queue waits a delay past a JavaScript timer's 24.8 days out too (`WorkQueue.addAfter`); NaN,
 * Infinity and negative values throw `InvalidOptionsError`.
 */
export interface ExponentialFailureOptions {
  /** Delay after the first failure, in ms. Default 5. */
  baseDelayMs?: number;
  /** Cap of the delay, in ms. Default 1 000 000 (1000 s). */
  maxDelayMs?: number;
}

/** Options of `tokenBucketRateLimiter`. */
export interface TokenBucketOptions {
  /** Tokens added per second. Default 10. */
  qps?: number;
  /** Bucket size: how many retries may go at once. Default 100. */
  burst?: number;
  /** The clock. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** True for a delay a queue can wait: a finite number of ms >= 0 (not NaN, not Infinity, not negative). */
export const isDelay = (ms: unknown): ms is number => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0;

/** Throws `InvalidOptionsError` unless `ms`, the answer of a rate limiter's `when(key)`, is a delay (`isDelay`). */
export function checkDelay(ms: unknown, key: unknown, who = 'the rate limiter'): number {
  if (!isDelay(ms))
    throw new InvalidOptionsError(
      `${who} answered ${describeValue(ms)} for key ${describeValue(key)}: a delay must be a finite number of ms >= 0`,
    );
  return ms;
}

/** Throws `InvalidOptionsError` unless `limiter` has `when`, `forget` and `numRequeues`; `name` says which option it was. */
export function checkRateLimiter<K>(limiter: RateLimiter<K>, name: string): RateLimiter<K> {
  if (typeof limiter?.when !== 'function' || typeof limiter.forget !== 'function' || typeof limiter.numRequeues !== 'function')
    throw new InvalidOptionsError(`${name} must have when, forget and numRequeues`);
  return limiter;
}

/**
 * Per-key exponential backoff: `baseDelayMs × 2^failures`, capped at `maxDelayMs` — also past
 * 1,024 failures, where `2^failures` is Infinity (a `baseDelayMs` of 0 stays 0).
 *
 * @example
 * const rl = exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 40 });
 * [rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]; // [5, 10, 20, 40, 40]
 */
export function exponentialFailureRateLimiter<K = string>(options: ExponentialFailureOptions = {}): RateLimiter<K> {
  const base = checkDuration('baseDelayMs', options?.baseDelayMs, 5);
  const max = checkDuration('maxDelayMs', options?.maxDelayMs, 1_000_000);
  if (max < base) throw new InvalidOptionsError(`maxDelayMs (${max}) must be >= baseDelayMs (${base})`);
  // Doublings past which the delay is at the cap: the exponent stops there before it multiplies,
  // so 2^n does not overflow to Infinity (with a base of 0, 0 × Infinity would be NaN).
  const capAt = base === 0 ? 0 : Math.ceil(Math.log2(max / base)) + 1;
  const failures = new Map<K, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(max, base * 2 ** Math.min(n, capAt));
    },
    forget: (key) => {
      failures.delete(key);
    },
    numRequeues: (key) => failures.get(key) ?? 0,
  };
}

/**
 * An overall token bucket shared by every key: each `when` takes a token; when none is left it
 * reserves the next one and answers how long until it is due. Keys are not tracked
 * (`numRequeues` is always 0).
 *
 * @example
 * const queue = new WorkQueue({ rateLimiter: tokenBucketRateLimiter({ qps: 5, burst: 20 }) });
 */
export function tokenBucketRateLimiter<K = string>(options: TokenBucketOptions = {}): RateLimiter<K> {
  const qps = checkNumber('qps', options?.qps, 10, 0, { exclusive: true });
  const burst = checkNumber('burst', options?.burst, 100, 1);
  if (!Number.isFinite(1000 / qps)) throw new InvalidOptionsError(`qps is too small for a delay in ms to be finite, got ${qps}`);
  const scheduler = options?.scheduler ?? asyncScheduler;
  let tokens = burst;
  let at = scheduler.now();
  return {
    when() {
      const now = scheduler.now();
      if (Number.isFinite(now)) {
        // A clock that reads NaN refills nothing (rather than making every later delay NaN).
        if (Number.isFinite(at)) tokens = Math.min(burst, tokens + ((now - at) * qps) / 1000);
        at = now;
      }
      tokens -= 1; // may go negative: a reservation of a future token
      // Capped so that no pile of reservations (or a clock going backwards) makes it Infinity.
      return tokens >= 0 ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.ceil((-tokens * 1000) / qps));
    },
    forget: () => {},
    numRequeues: () => 0,
  };
}

/**
 * The longest delay of several limiters; `numRequeues` is the largest of theirs. A limiter that
 * answers anything but a finite delay >= 0 makes `when` throw `InvalidOptionsError`, never a NaN.
 *
 * @example
 * const limiter = maxOfRateLimiters(exponentialFailureRateLimiter({ baseDelayMs: 100 }), tokenBucketRateLimiter({ qps: 50 }));
 * const queue = new WorkQueue({ rateLimiter: limiter });
 */
export function maxOfRateLimiters<K = string>(...limiters: RateLimiter<K>[]): RateLimiter<K> {
  if (limiters.length === 0) throw new InvalidOptionsError('maxOfRateLimiters needs at least one rate limiter');
  limiters.forEach((l, i) => checkRateLimiter(l, `maxOfRateLimiters: limiter ${i}`));
  return {
    // Every limiter counts the failure, even after one answered a bad delay.
    when: (key) => limiters.map((l) => l.when(key)).reduce((longest, ms, i) => Math.max(longest, checkDelay(ms, key, `limiter ${i}`)), 0),
    forget: (key) => {
      for (const l of limiters) l.forget(key);
    },
    numRequeues: (key) => limiters.reduce((most, l) => Math.max(most, l.numRequeues(key)), 0),
  };
}

/**
 * client-go's `DefaultControllerRateLimiter`: the longer of the per-key exponential backoff and the
 * overall token bucket.
 *
 * @example
 * const queue = new WorkQueue({ rateLimiter: defaultControllerRateLimiter({ baseDelayMs: 50, maxDelayMs: 60_000 }) });
 * // the same as new WorkQueue({ baseDelayMs: 50, maxDelayMs: 60_000 })
 */
export function defaultControllerRateLimiter<K = string>(options: ExponentialFailureOptions & TokenBucketOptions = {}): RateLimiter<K> {
  return maxOfRateLimiters<K>(exponentialFailureRateLimiter<K>(options), tokenBucketRateLimiter<K>(options));
}

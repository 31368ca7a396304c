/**
 * Rate limiters for the work queue: how long a key must wait before it is retried. client-go's
 * default controller rate limiter is the longer of a per-key exponential backoff (5 ms doubling,
 * capped at 1000 s) and an overall token bucket (10 per second, bursts of 100).
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';

/**
 * Decides retry delays. `when` counts one more failure of `key` and answers the delay in ms;
 * `forget` clears the key's history (call it on success); `numRequeues` is the count of failures
 * since the last `forget`.
 */
export interface RateLimiter<K = string> {
  /** The delay before `key` may be retried, in ms; counts a retry. */
  when(key: K): number;
  /** Resets `key`'s failure count (after a success). */
  forget(key: K): void;
  /** Retries of `key` since the last `forget`. */
  numRequeues(key: K): number;
}

/** Options of `exponentialFailureRateLimiter`. */
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

/** Throws `InvalidOptionsError` unless `value` (or its default) is a finite number ≥ `min`. */
export function checkNumber(name: string, value: number | undefined, fallback: number, min: number, exclusive = false): number {
  const x = value ?? fallback;
  if (typeof x !== 'number' || !Number.isFinite(x) || x < min || (exclusive && x === min)) {
    throw new InvalidOptionsError(`${name} must be a finite number ${exclusive ? '>' : '>='} ${min}, got ${String(value)}`);
  }
  return x;
}

/**
 * Per-key exponential backoff: `baseDelayMs × 2^failures`, capped at `maxDelayMs`.
 *
 * @example
 * const rl = exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 40 });
 * [rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]; // [5, 10, 20, 40, 40]
 */
export function exponentialFailureRateLimiter<K = string>(options: ExponentialFailureOptions = {}): RateLimiter<K> {
  const base = checkNumber('baseDelayMs', options.baseDelayMs, 5, 0);
  const max = checkNumber('maxDelayMs', options.maxDelayMs, 1_000_000, 0);
  if (max < base) throw new InvalidOptionsError(`maxDelayMs (${max}) must be >= baseDelayMs (${base})`);
  const failures = new Map<K, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(max, base * 2 ** n); // 2 ** n is Infinity for large n; min() caps it
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
  const qps = checkNumber('qps', options.qps, 10, 0, true);
  const burst = checkNumber('burst', options.burst, 100, 1);
  const scheduler = options.scheduler ?? asyncScheduler;
  let tokens = burst;
  let at = scheduler.now();
  return {
    when() {
      const now = scheduler.now();
      tokens = Math.min(burst, tokens + ((now - at) * qps) / 1000);
      at = now;
      tokens -= 1; // may go negative: a reservation of a future token
      return tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / qps);
    },
    forget: () => {},
    numRequeues: () => 0,
  };
}

/**
 * The longest delay of several limiters; `numRequeues` is the largest of theirs.
 *
 * @example
 * const limiter = maxOfRateLimiters(exponentialFailureRateLimiter({ baseDelayMs: 100 }), tokenBucketRateLimiter({ qps: 50 }));
 * const queue = new WorkQueue({ rateLimiter: limiter });
 */
export function maxOfRateLimiters<K = string>(...limiters: RateLimiter<K>[]): RateLimiter<K> {
  if (limiters.length === 0) throw new InvalidOptionsError('maxOfRateLimiters needs at least one rate limiter');
  return {
    when: (key) => limiters.reduce((longest, l) => Math.max(longest, l.when(key)), 0),
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

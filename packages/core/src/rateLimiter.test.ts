import { describe, expect, it } from '@jest/globals';
import type { SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from './errors.ts';
import { defaultControllerRateLimiter, exponentialFailureRateLimiter, maxOfRateLimiters, tokenBucketRateLimiter } from './rateLimiter.ts';

/** A clock the test moves by hand. */
const clock = () => {
  const c: { t: number; scheduler: SchedulerLike } = { t: 0, scheduler: { now: () => c.t } as SchedulerLike };
  return c;
};

describe('exponentialFailureRateLimiter', () => {
  it('should double from 5 ms per failure of a key, up to the cap', () => {
    const rl = exponentialFailureRateLimiter({ maxDelayMs: 40 });
    expect([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([5, 10, 20, 40, 40]);
    expect(rl.when('b')).toBe(5);
    expect(rl.numRequeues('a')).toBe(5);
  });

  it('should start again from the base delay after forget', () => {
    const rl = exponentialFailureRateLimiter();
    rl.when('a');
    rl.when('a');
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(5);
  });

  it('should stay at the cap however many failures there are', () => {
    const rl = exponentialFailureRateLimiter();
    for (let i = 0; i < 2000; i++) rl.when('a');
    expect(rl.when('a')).toBe(1_000_000);
  });

  it('should refuse negative, non-finite or inverted delays', () => {
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: Number.NaN })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ maxDelayMs: Infinity })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(InvalidOptionsError);
  });
});

describe('tokenBucketRateLimiter', () => {
  it('should let a burst through at once, then space the rest by 1/qps, refilling with time', () => {
    const c = clock();
    const rl = tokenBucketRateLimiter({ qps: 10, burst: 2, scheduler: c.scheduler });
    expect([rl.when('a'), rl.when('b'), rl.when('c'), rl.when('d')]).toEqual([0, 0, 100, 200]);
    c.t = 1000; // 10 tokens' worth of time: the two reserved are paid, the bucket is full again
    expect([rl.when('e'), rl.when('f'), rl.when('g')]).toEqual([0, 0, 100]);
    expect(rl.numRequeues('a')).toBe(0);
  });

  it('should refuse a zero rate or an empty bucket', () => {
    expect(() => tokenBucketRateLimiter({ qps: 0 })).toThrow(InvalidOptionsError);
    expect(() => tokenBucketRateLimiter({ burst: 0 })).toThrow(InvalidOptionsError);
  });
});

describe('maxOfRateLimiters', () => {
  it('should answer the longest delay and forget in every limiter', () => {
    const c = clock();
    const rl = defaultControllerRateLimiter({ qps: 1, burst: 1, scheduler: c.scheduler });
    expect(rl.when('a')).toBe(5); // per-key backoff is longer than the free first token
    expect(rl.when('a')).toBe(1000); // the bucket is empty: a second's wait is longer than 10 ms
    expect(rl.numRequeues('a')).toBe(2);
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(() => maxOfRateLimiters()).toThrow(InvalidOptionsError);
  });
});

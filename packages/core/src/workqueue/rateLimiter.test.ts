import { describe, expect, it } from '@jest/globals';
import type { SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
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

  it('should never answer NaN or Infinity however many failures: 0 stays 0, the rest reach the cap', () => {
    const zero = exponentialFailureRateLimiter({ baseDelayMs: 0 }); // 0 × 2^1024 was 0 × Infinity = NaN
    const tiny = exponentialFailureRateLimiter({ baseDelayMs: Number.MIN_VALUE, maxDelayMs: 1 }); // needs > 1,074 doublings
    const huge = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: Number.MAX_VALUE });
    const byDefault = defaultControllerRateLimiter({ baseDelayMs: 0, burst: 5000 });
    const seen = { zero: new Set<number>(), byDefault: new Set<number>(), tiny: 0, huge: 0 };
    for (let i = 0; i < 3000; i++) {
      seen.zero.add(zero.when('a'));
      seen.byDefault.add(byDefault.when('a'));
      seen.tiny = tiny.when('a');
      seen.huge = huge.when('a');
    }
    expect(seen).toEqual({ zero: new Set([0]), byDefault: new Set([0]), tiny: 1, huge: Number.MAX_VALUE });
  });

  it('should refuse negative, non-finite or inverted delays', () => {
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: Number.NaN })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ maxDelayMs: Infinity })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: Infinity })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ maxDelayMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: '5' as never })).toThrow(InvalidOptionsError);
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

  it('should refuse a rate that is not a finite number > 0, or so small that one token takes Infinity ms', () => {
    for (const bad of [
      { qps: Number.NaN },
      { qps: -1 },
      { qps: Infinity },
      { qps: Number.MIN_VALUE },
      { burst: Infinity },
      { burst: Number.NaN },
    ]) {
      expect(() => tokenBucketRateLimiter(bad)).toThrow(InvalidOptionsError);
    }
  });

  it('should answer a finite delay when reservations pile up, the clock jumps back or reads NaN', () => {
    const c = clock();
    const rl = tokenBucketRateLimiter({ qps: 1e299, burst: 1, scheduler: c.scheduler });
    c.t = -1e10; // ten billion ms back at 1e299 per second: -1e306 tokens, whose wait overflowed to Infinity
    expect(rl.when('a')).toBe(Number.MAX_SAFE_INTEGER);
    const d = clock();
    const nan = tokenBucketRateLimiter({ qps: 10, burst: 1, scheduler: d.scheduler });
    d.t = Number.NaN; // a broken clock: no refill, but no NaN either
    expect([nan.when('a'), nan.when('a'), nan.when('a')]).toEqual([0, 100, 200]);
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

  it('should refuse what is not a rate limiter, and a limiter answering NaN, Infinity or a negative delay', () => {
    expect(() => maxOfRateLimiters({} as never)).toThrow(InvalidOptionsError);
    for (const bad of [Number.NaN, Infinity, -1]) {
      let counted = 0;
      const good = { when: () => ++counted, forget: () => {}, numRequeues: () => counted };
      const rl = maxOfRateLimiters(good, { when: () => bad, forget: () => {}, numRequeues: () => 0 });
      expect(() => rl.when('a')).toThrow(/limiter 1 answered (NaN|Infinity|-1) for key "a"/);
      expect(counted).toBe(1); // every limiter still counted the failure
    }
  });
});

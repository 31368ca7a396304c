/**
 * client-go's `retry.RetryOnConflict`: run a read-modify-write again, after a backoff, when it lost
 * an optimistic-concurrency race (409 Conflict), and only then.
 */
import { InvalidOptionsError } from '@rxinformer/core';
import { checkNumber, checkScheduler } from '@rxinformer/core/http';
import { checkDuration, timerAfter } from '@rxinformer/core/time';
import { asyncScheduler, firstValueFrom, type SchedulerLike } from 'rxjs';
import { isConflict } from './apiError.ts';

/**
 * The backoff between attempts, as client-go's `wait.Backoff`. The delays may be of any length: one
 * past a JavaScript timer's 24.8 days is waited out, not fired at once. NaN and negative values throw
 * `InvalidOptionsError`, and so does `Infinity` except for `capMs`.
 */
export interface RetryBackoff {
  /** The first delay, in ms: a finite number >= 0. Default 10 (client-go's `DefaultRetry`). */
  durationMs?: number;
  /** Each delay is the previous one times this. Default 1. */
  factor?: number;
  /** Up to this fraction of each delay is added at random. Default 0.1. */
  jitter?: number;
  /** No delay is longer than this, in ms: a number >= 0, or `Infinity` for no cap. Default: no cap. */
  capMs?: number;
}

/** Options of `retryOnConflict`. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 5 (client-go's `DefaultRetry`). */
  steps?: number;
  /** The delays between attempts. */
  backoff?: RetryBackoff;
  /** Where the delays run (a `TestScheduler` in tests). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
}

/**
 * Runs `fn` (which must read the object afresh each time), again after a backoff while it fails
 * with a 409 Conflict, up to `steps` attempts; any other error, and the last conflict, is thrown.
 *
 * @example
 * await retryOnConflict(async () => {
 *   const cm = await cms.get({ namespace: 'default', name: 'settings' });
 *   return cms.update(cm, (d) => { d.data = { ...d.data, hits: String(Number(d.data?.hits ?? 0) + 1) }; });
 * });
 */
export async function retryOnConflict<R>(fn: (attempt: number) => Promise<R>, options: RetryOptions = {}): Promise<R> {
  const steps = options.steps ?? 5;
  if (!Number.isInteger(steps) || steps < 1) throw new InvalidOptionsError(`steps must be an integer >= 1, got ${String(options.steps)}`);
  checkScheduler(options.scheduler);
  const delays = backoffDelays(checkBackoff(options.backoff ?? {}), options.random ?? Math.random);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!isConflict(e) || attempt >= steps) throw e;
    }
    await firstValueFrom(timerAfter(delays.next().value as number, options.scheduler ?? asyncScheduler));
  }
}

/** `backoff` with its defaults, checked: every field a number >= 0. */
function checkBackoff(backoff: RetryBackoff): Required<RetryBackoff> {
  return {
    durationMs: checkDuration('backoff.durationMs', backoff.durationMs, 10),
    factor: checkNumber('backoff.factor', backoff.factor, 1, 0),
    jitter: checkDuration('backoff.jitter', backoff.jitter, 0.1),
    capMs: checkDuration('backoff.capMs', backoff.capMs, Infinity, { infinite: true }),
  };
}

/** The delays of `backoff`, one per retry. */
function* backoffDelays(backoff: Required<RetryBackoff>, random: () => number): Generator<number> {
  const { durationMs, factor, jitter, capMs } = backoff;
  let base = durationMs;
  for (;;) {
    yield Math.min(capMs, base + (jitter > 0 ? base * jitter * random() : 0));
    base *= factor;
  }
}

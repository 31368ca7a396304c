/**
 * What a `WorkQueue` is given and tells: its options, its counters, and each step of a key.
 */
import type { SchedulerLike } from 'rxjs';
import type { RateLimiter } from './rateLimiter.ts';

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
  /** Keys waiting for a delay (`addAfter`, `addRateLimited`, `addDebounced`). */
  delayed: number;
  /** Keys held (`hold`): not handed out until released or timed out. */
  held: number;
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

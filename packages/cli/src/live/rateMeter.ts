/**
 * A sliding-window rate meter (events per second) on an RxJS scheduler's clock, so the live view's
 * events/s is exact under `TestScheduler` virtual time.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** Options of `createRateMeter`. */
export interface RateMeterOptions {
  /** The window the rate is averaged over, in ms. Default 5000. */
  windowMs?: number;
  /** Width of one bucket, in ms; the window moves in these steps. Default 250. */
  bucketMs?: number;
  /** Whose clock counts. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** Counts marks and reports their rate over the last window. */
export interface RateMeter {
  /** Records `n` events now (default 1). */
  mark(n?: number): void;
  /** Events per second over the window (or over the time since creation, while shorter). */
  perSecond(): number;
  /** Every mark since creation. */
  readonly total: number;
}

/**
 * Creates a rate meter whose window starts now.
 *
 * @example
 * const meter = createRateMeter({ windowMs: 5000 });
 * events$.subscribe(() => meter.mark());
 * setInterval(() => console.log(meter.perSecond().toFixed(1), 'events/s'), 1000);
 *
 * Caveat: the newest bucket is partial, so the figure moves in `bucketMs` steps.
 */
export function createRateMeter(options: RateMeterOptions = {}): RateMeter {
  const scheduler = options.scheduler ?? asyncScheduler;
  const windowMs = options.windowMs ?? 5000;
  const bucketMs = options.bucketMs ?? 250;
  const started = scheduler.now();
  const buckets = new Map<number, number>();
  let total = 0;
  const prune = (now: number) => {
    const oldest = Math.floor((now - windowMs) / bucketMs);
    for (const b of buckets.keys()) if (b <= oldest) buckets.delete(b);
  };
  return {
    mark(n = 1) {
      const now = scheduler.now();
      const b = Math.floor(now / bucketMs);
      buckets.set(b, (buckets.get(b) ?? 0) + n);
      total += n;
      if (buckets.size > (2 * windowMs) / bucketMs) prune(now);
    },
    perSecond() {
      const now = scheduler.now();
      prune(now);
      let sum = 0;
      for (const n of buckets.values()) sum += n;
      // The buckets kept start at (oldest + 1) × bucketMs: the rate is over exactly that span.
      const span = now - Math.max(started, (Math.floor((now - windowMs) / bucketMs) + 1) * bucketMs);
      return span > 0 ? (sum * 1000) / span : 0;
    },
    get total() {
      return total;
    },
  };
}

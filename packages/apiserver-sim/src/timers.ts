/**
 * The simulator's own timers (grace periods, the namespace controller, watch bookmarks and
 * timeouts, the latency fault): on a scheduler when one is given, so tests advance them in virtual
 * time; otherwise on Node timers that do not hold the process open. Any length: a delay past a
 * JavaScript timer's 24.8 days (a watch's `timeoutSeconds=3000000`, a 30-day grace period) is
 * split by core's `afterLong`, never fired at once; `Infinity` never fires.
 */
import { checkDuration, scheduleAfter, unreferencedScheduler } from '@rxinformer/core/time';
import type { SchedulerLike } from 'rxjs';

/** Cancels a timer; calling it again does nothing. */
export type CancelTimer = () => void;

/** Runs `fn` once after `ms`, on `scheduler` or unreferenced Node timers. */
export function after(scheduler: SchedulerLike | undefined, ms: number, fn: () => void): CancelTimer {
  const action = scheduleAfter(scheduler ?? unreferencedScheduler, ms, fn);
  return () => action.unsubscribe();
}

/** Runs `fn` every `ms` (> 0) until cancelled, on `scheduler` or unreferenced Node timers. */
export function every(scheduler: SchedulerLike | undefined, ms: number, fn: () => void): CancelTimer {
  let cancel: CancelTimer;
  const arm = (): void => {
    cancel = after(scheduler, ms, () => {
      arm();
      fn();
    });
  };
  arm();
  return () => cancel();
}

/** The duration options of the server itself (the object store checks its own). */
export interface ServerDurations {
  bookmarkIntervalMs?: number;
  defaultWatchTimeoutSeconds?: number;
  tooLargeWaitMs?: number;
}

/**
 * Throws `InvalidOptionsError` naming the first duration option out of range: each a finite number
 * >= 0 of any length (`defaultWatchTimeoutSeconds` > 0); `bookmarkIntervalMs` may also be
 * `Infinity` (no bookmarks).
 */
export function checkServerDurations(o: ServerDurations): void {
  checkDuration('bookmarkIntervalMs', o.bookmarkIntervalMs, 60_000, { infinite: true });
  checkDuration('defaultWatchTimeoutSeconds', o.defaultWatchTimeoutSeconds, 1800, { exclusive: true, unit: 's' });
  checkDuration('tooLargeWaitMs', o.tooLargeWaitMs, 3000);
}

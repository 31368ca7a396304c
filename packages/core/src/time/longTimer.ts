/**
 * Timers of any length on an RxJS scheduler. JavaScript timers hold at most 2³¹−1 ms (~24.8 days):
 * a longer delay fires after about 1 ms instead, which would turn a 30-day requeue or a long
 * Retry-After into a hot loop. These split such a delay into timers that fit, checking the
 * scheduler's clock at each one.
 */
import { Observable, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';

/** The longest delay one JavaScript timer holds (2³¹−1 ms, ~24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `work` on `scheduler` after `ms` (any finite length); unsubscribe to cancel. A delay that
 * fits one timer is scheduled as is.
 *
 * @example
 * const sub = scheduleAfter(asyncScheduler, 30 * 86_400_000, () => queue.add(key));
 */
export function scheduleAfter(scheduler: SchedulerLike, ms: number, work: () => void): Subscription {
  if (ms <= MAX_TIMER_MS) return scheduler.schedule(work, ms);
  const due = scheduler.now() + ms;
  return scheduler.schedule(function (this: SchedulerAction<undefined>) {
    const left = due - scheduler.now();
    if (left > 0) this.schedule(undefined, Math.min(left, MAX_TIMER_MS));
    else work();
  }, MAX_TIMER_MS);
}

/** Emits `0` once after `ms` (any finite length) and completes: RxJS's `timer(ms, scheduler)` without its limit. */
export function timerAfter(ms: number, scheduler: SchedulerLike): Observable<0> {
  return new Observable<0>((subscriber) =>
    scheduleAfter(scheduler, ms, () => {
      subscriber.next(0);
      subscriber.complete();
    }),
  );
}

/**
 * The simulator's own timers (grace periods, the namespace controller, watch bookmarks and
 * timeouts): on a scheduler when one is given, so tests advance them in virtual time; otherwise on
 * Node timers that do not hold the process open.
 */
import type { SchedulerAction, SchedulerLike } from 'rxjs';

/** Cancels a timer; calling it again does nothing. */
export type CancelTimer = () => void;

/** Runs `fn` once after `ms`, on `scheduler` or an unreferenced Node timer. */
export function after(scheduler: SchedulerLike | undefined, ms: number, fn: () => void): CancelTimer {
  if (scheduler) {
    const action = scheduler.schedule(fn, ms);
    return () => action.unsubscribe();
  }
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
}

/** Runs `fn` every `ms` until cancelled, on `scheduler` or an unreferenced Node timer. */
export function every(scheduler: SchedulerLike | undefined, ms: number, fn: () => void): CancelTimer {
  if (scheduler) {
    const action = scheduler.schedule(function (this: SchedulerAction<undefined>) {
      fn();
      this.schedule(undefined, ms);
    }, ms);
    return () => action.unsubscribe();
  }
  const timer = setInterval(fn, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

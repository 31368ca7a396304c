/**
 * The reflector's idle check of a watch stream: an error once no value has arrived for a given
 * time. RxJS's `timeout({ each })` says the same, but re-arms a timer on every value, on the hot
 * path of a busy watch (docs/benchmarks.md compares the two). This one keeps a single timer: each
 * value only records its time, and the timer, when it fires early, waits out the rest.
 */
import { Observable, type MonoTypeOperatorFunction, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { MAX_TIMER_MS } from './longTimer.ts';

/**
 * Errors with `error()` when the source has emitted nothing for `ms` (counted from the subscription,
 * then from each value), at the same moment `timeout({ each: ms, with })` would.
 *
 * @example
 * lw.watch(options).pipe(idleTimeout(330_000, asyncScheduler, () => new WatchIdleError(330_000)));
 *
 * Caveat: the timer runs on `scheduler`: with a `TestScheduler` it fires in virtual time, and a
 * scheduler whose clock does not advance (`now()` fixed) never reports idleness after a value.
 * @internal used by the reflector.
 */
export function idleTimeout<T>(ms: number, scheduler: SchedulerLike, error: () => unknown): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let last = scheduler.now();
      // One action for the whole stream: when it fires before the deadline it reschedules itself.
      const check = function (this: SchedulerAction<undefined>): void {
        const idle = scheduler.now() - last;
        if (idle >= ms) subscriber.error(error());
        else this.schedule(undefined, Math.min(ms - idle, MAX_TIMER_MS)); // a longer timer would fire at once
      };
      subscriber.add(scheduler.schedule(check, Math.min(ms, MAX_TIMER_MS)));
      subscriber.add(
        source.subscribe({
          next: (value) => {
            last = scheduler.now();
            subscriber.next(value);
          },
          error: (e: unknown) => subscriber.error(e),
          complete: () => subscriber.complete(),
        }),
      );
    });
}

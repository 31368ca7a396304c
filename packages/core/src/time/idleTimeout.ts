/**
 * The reflector's silence checks of a watch stream: an error once no value has arrived for a given
 * time (`idleTimeout`, the stream is dead), and a mark each time the stream has been silent that
 * long (`idleMarks`, time to check for a stall). RxJS's `timeout({ each })` says the first, but
 * re-arms a timer on every value, on the hot path of a busy watch (docs/benchmarks.md compares the
 * two). These keep a single timer: each value only records its time, and the timer, when it fires
 * early, waits out the rest.
 */
import {
  Observable,
  type MonoTypeOperatorFunction,
  type OperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
  type Subscriber,
} from 'rxjs';
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
    new Observable<T>((subscriber) =>
      onSilence(source, subscriber, ms, scheduler, () => {
        subscriber.error(error());
        return false;
      }),
    );
}

/**
 * Passes the source through and emits `mark()` each time it has emitted nothing for `ms`: counted
 * from the subscription, then from each value and each mark (so a silent source gets one mark every
 * `ms`). Same caveat as `idleTimeout`.
 *
 * @example
 * lw.watch(options).pipe(idleMarks(120_000, asyncScheduler, () => 'silent' as const));
 * @internal used by the reflector's stall check.
 */
export function idleMarks<T, M>(ms: number, scheduler: SchedulerLike, mark: () => M): OperatorFunction<T, T | M> {
  return (source) =>
    new Observable<T | M>((subscriber) =>
      onSilence(source, subscriber, ms, scheduler, () => {
        subscriber.next(mark());
        return true;
      }),
    );
}

/**
 * Subscribes `subscriber` to `source` and calls `silent` once nothing came for `ms`; when it
 * returns true the count starts again from then, else the timer stops.
 */
function onSilence<T>(source: Observable<T>, subscriber: Subscriber<T>, ms: number, scheduler: SchedulerLike, silent: () => boolean): void {
  let last = scheduler.now();
  // One action for the whole stream: when it fires before the deadline it reschedules itself.
  const check = function (this: SchedulerAction<undefined>): void {
    const idle = scheduler.now() - last;
    if (idle < ms)
      this.schedule(undefined, Math.min(ms - idle, MAX_TIMER_MS)); // a longer timer would fire at once
    else if (silent()) {
      last = scheduler.now();
      this.schedule(undefined, Math.min(ms, MAX_TIMER_MS));
    }
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
}

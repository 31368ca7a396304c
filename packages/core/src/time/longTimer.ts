/**
 * Timers of any length. JavaScript timers hold at most 2³¹−1 ms (~24.8 days): a longer delay fires
 * after about 1 ms instead (Node warns with a `TimeoutOverflowWarning`), which would turn a 30-day
 * requeue, a long time limit or a long period into a hot loop. These split such a delay into timers
 * that fit, checking the clock at each one; `Infinity` arms nothing (it never fires).
 */
import { interval, NEVER, Observable, Subscription, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';

/** The longest delay one JavaScript timer holds (2³¹−1 ms, ~24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Arms one timer of at most `MAX_TIMER_MS` that calls `fire`, and returns what cancels it: a
 * scheduler's `schedule`, or Node's `setTimeout` (say, unreferenced).
 */
export type ArmTimer = (ms: number, fire: () => void) => () => void;

/**
 * Calls `work` once `ms` have passed on the clock `now` (any length; `Infinity`: never), with timers
 * armed by `arm`, each at most `MAX_TIMER_MS`; returns what cancels it. The one place a long delay is
 * split: `scheduleAfter` runs it on an RxJS scheduler, the simulator on unreferenced Node timers.
 *
 * @example
 * const cancel = afterLong(40 * 86_400_000, Date.now, (ms, fire) => {
 *   const t = setTimeout(fire, ms).unref();
 *   return () => clearTimeout(t);
 * }, () => console.log('40 days later'));
 *
 * Caveat: `ms` must be a number >= 0 (NaN or a negative one throws `InvalidOptionsError`; check
 * options with `checkDuration` first, to name them); a timer that fires early waits out the rest.
 */
export function afterLong(ms: number, now: () => number, arm: ArmTimer, work: () => void): () => void {
  checkDelay(ms);
  if (ms === Infinity) return () => {};
  if (ms <= MAX_TIMER_MS) return arm(ms, work);
  const due = now() + ms;
  const check = (): void => {
    const left = due - now();
    if (left > 0) cancel = arm(Math.min(left, MAX_TIMER_MS), check);
    else work();
  };
  let cancel = arm(MAX_TIMER_MS, check);
  return () => cancel();
}

/**
 * Runs `work` on `scheduler` after `ms` (any length; `Infinity`: never); unsubscribe to cancel. A
 * delay that fits one timer is scheduled as is; NaN or a negative one throws `InvalidOptionsError`.
 *
 * @example
 * const sub = scheduleAfter(asyncScheduler, 30 * 86_400_000, () => queue.add(key));
 */
export function scheduleAfter(scheduler: SchedulerLike, ms: number, work: () => void): Subscription {
  if (ms >= 0 && ms <= MAX_TIMER_MS) return scheduler.schedule(work, ms);
  return new Subscription(afterLong(ms, () => scheduler.now(), onScheduler(scheduler), work));
}

/** Throws `InvalidOptionsError` for a delay that is not a number >= 0 (NaN, negative): no timer could mean it. */
function checkDelay(ms: number): void {
  if (!(ms >= 0)) throw new InvalidOptionsError(`a delay must be a number of ms >= 0, got ${ms}`);
}

/** `arm` on an RxJS scheduler. */
const onScheduler =
  (scheduler: SchedulerLike): ArmTimer =>
  (ms, fire) => {
    const action = scheduler.schedule(fire, ms);
    return () => action.unsubscribe();
  };

/**
 * Emits `0` once after `ms` (any length; `Infinity`: never) and completes: RxJS's
 * `timer(ms, scheduler)` without its limit.
 *
 * @example
 * await firstValueFrom(timerAfter(delayMs, scheduler));
 */
export function timerAfter(ms: number, scheduler: SchedulerLike): Observable<0> {
  return new Observable<0>((subscriber) =>
    scheduleAfter(scheduler, ms, () => {
      subscriber.next(0);
      subscriber.complete();
    }),
  );
}

/**
 * Emits 0, 1, 2… every `ms` (any length > 0; `Infinity`: never): RxJS's `interval(ms, scheduler)`
 * without its limit. A period that fits one timer is RxJS's `interval` itself.
 *
 * @example
 * intervalEvery(refreshMs, scheduler).subscribe(() => refresh());
 *
 * Caveat: `ms` must be > 0 (a period of 0 is a busy loop): 0, NaN or a negative one throws `InvalidOptionsError`.
 */
export function intervalEvery(ms: number, scheduler: SchedulerLike): Observable<number> {
  if (!(ms > 0)) throw new InvalidOptionsError(`a period must be a number of ms > 0 (0 is a busy loop), got ${ms}`);
  if (ms === Infinity) return NEVER;
  if (ms <= MAX_TIMER_MS) return interval(ms, scheduler);
  return new Observable<number>((subscriber) => {
    let n = 0;
    let next: Subscription;
    const arm = (): void => {
      next = scheduleAfter(scheduler, ms, () => {
        subscriber.next(n++);
        arm();
      });
    };
    arm();
    return () => next.unsubscribe();
  });
}

/**
 * Time: timers of any length on RxJS schedulers (JavaScript's own hold at most 2³¹−1 ms, ~24.8 days,
 * and fire at once past it), the one check of every duration option, and the backoff policy shared
 * by the reflector, the workqueue and leader election. The other packages check and run their own
 * durations with these.
 *
 * @example
 * // checkDuration and timerAfter come from @rxinformer/core/time
 * const delayMs = checkDuration('delayMs', options.delayMs, 1000);
 * await firstValueFrom(timerAfter(delayMs, scheduler)); // 30 days wait 30 days
 *
 * @module @rxinformer/core/time
 */
export { afterLong, intervalEvery, MAX_TIMER_MS, scheduleAfter, timerAfter } from './longTimer.ts';
export type { ArmTimer } from './longTimer.ts';
export { checkDuration } from './duration.ts';
export type { DurationRule } from './duration.ts';
export { nextBackoff, resolveBackoff, backoffSuccess } from './backoff.ts';
export type { BackoffOptions, BackoffState, NextBackoffOptions } from './backoff.ts';
export { unreferencedScheduler } from './unreferencedScheduler.ts';

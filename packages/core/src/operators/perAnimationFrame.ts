import { animationFrameScheduler, asyncScheduler, auditTime, defer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { checkScheduler } from '../errors.ts';

/**
 * Where `perAnimationFrame` waits by default: the next animation frame where the global
 * `requestAnimationFrame` exists (a browser window), else the next macrotask (Node, a server
 * render, a worker without it). Decided when a subscription is made.
 */
export function frameScheduler(): SchedulerLike {
  return typeof globalThis.requestAnimationFrame === 'function' ? animationFrameScheduler : asyncScheduler;
}

/**
 * Coalesces a stream to at most one value per animation frame: the first value after a frame
 * waits for the next one, which gets the latest value of the wait (rxjs's `auditTime(0)` on
 * `scheduler`). For views: a burst of watch events becomes one render per frame, with the newest
 * store. Where there is no `requestAnimationFrame` (Node, a server render, some workers) it waits
 * for the next macrotask instead. The last value is delivered before completion.
 *
 * @example
 * pods.store$.pipe(perAnimationFrame()).subscribe((store) => render(store.list())); // ≤ 1 render per frame
 *
 * Caveat: it drops the values between frames: use it on snapshots (`store$`, `status$`), never on
 * `events$`, whose every delta matters. A hidden tab runs no frames: the latest value waits for the
 * tab to be shown. `scheduler` overrides the default (`animationFrameScheduler` in a test with
 * TestScheduler's `animate`); a bad one throws `InvalidOptionsError`.
 */
export function perAnimationFrame<T>(scheduler?: SchedulerLike): MonoTypeOperatorFunction<T> {
  checkScheduler(scheduler);
  return (source) => defer(() => source.pipe(auditTime(0, scheduler ?? frameScheduler())));
}

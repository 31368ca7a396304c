/**
 * The two clocks of leader election and shard rings: a monotonic one that every decision reads
 * (deadlines, expiry, a member's liveness), and the wall clock, read only for the times written into
 * a Lease for others to see. A wall clock can be stepped (NTP, a VM resumed, an operator): read for a
 * decision, a step back keeps a leader leading past its deadline, a step forward makes a live holder
 * look expired. Go's `time.Now()` carries a monotonic reading for this reason.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError, checkScheduler } from '../errors.ts';

/** `performance.now()` (browsers and Node), or `Date.now()` where a runtime has no `performance`. */
function monotonicNow(): number {
  return typeof performance !== 'undefined' && typeof performance.now === 'function' ? performance.now() : Date.now();
}

/**
 * An RxJS scheduler whose `now()` is monotonic (`performance.now()`: never stepped with the wall
 * clock) and whose timers are `asyncScheduler`'s (`setTimeout`/`setInterval`, which wait monotonic
 * durations). The default scheduler of `leaderElection` and `startShardRing`.
 *
 * Caveat: its `now()` counts from the start of the process (or page), not from 1970: never write it
 * anywhere as a date.
 *
 * @example
 * const election = leaderElection({ client, namespace: 'default', name: 'ctl', identity: podName, scheduler: monotonicScheduler });
 */
export const monotonicScheduler: SchedulerLike = Object.freeze({
  now: monotonicNow,
  schedule: ((work: never, delay?: number, state?: unknown) => asyncScheduler.schedule(work, delay, state)) as SchedulerLike['schedule'],
});

/** The clocks of an election or a ring: what decides, and what is written. */
export interface LeaseClocks {
  /**
   * Where time runs: the timers, and `now()` for every decision (the renew deadline, a Lease's
   * expiry, a ring member's liveness). Its `now()` must not jump with the wall clock. Tests pass
   * rxjs's `TestScheduler`. Default `monotonicScheduler`.
   */
  scheduler?: SchedulerLike;
  /**
   * The wall clock, in ms since 1970: read only for the times written into the Lease (`acquireTime`,
   * `renewTime`), which the API server and other tools show; never for a decision. Default `Date.now`.
   */
  wallClock?: () => number;
}

/** The clocks with their defaults; `InvalidOptionsError` (prefixed with `who`) for a bad one. */
export function resolveLeaseClocks(options: LeaseClocks, who: string): Required<LeaseClocks> {
  checkScheduler(options.scheduler, `${who}: `);
  if (options.wallClock !== undefined && typeof options.wallClock !== 'function')
    throw new InvalidOptionsError(`${who}: wallClock must be a function returning ms since 1970`);
  return { scheduler: options.scheduler ?? monotonicScheduler, wallClock: options.wallClock ?? (() => Date.now()) };
}

/** A clock for the recorder's tests, apart from the kit: the event-writing child processes use it without jest. */
import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** A scheduler whose clock stands still at `ms` (its timers run as `asyncScheduler`'s): every event "in the same millisecond". */
export function stoppedClock(ms: number): SchedulerLike {
  return { now: () => ms, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
}

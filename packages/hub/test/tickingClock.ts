/**
 * The auth unit tests' clock: `@rxinformer/testing`'s virtual clock with a ticker at every step, so
 * that `now()` is each step's time while the caches under test are read between steps.
 */
import { virtualClock } from '@rxinformer/testing';
import { interval } from 'rxjs';

/** A virtual clock whose `now()` is each step's time (a ticker runs at every step). */
export function tickingClock(stepMs: number): ReturnType<typeof virtualClock> {
  const c = virtualClock(stepMs);
  interval(stepMs, c.ts).subscribe();
  return c;
}

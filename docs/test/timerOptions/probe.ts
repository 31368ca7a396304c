/**
 * What the table of timer options runs: a probe starts what one option drives with a value, on the
 * library's default timers (jest's fake timers stand in for Node's, keeping their 2³¹−1 ms limit:
 * a longer delay fires after 1 ms, as Node's does), and tells whether its effect has happened.
 */
import { jest } from '@jest/globals';

/** 2³¹ ms: one more than a JavaScript timer holds (~24.8 days). */
export const LONG_MS = 2 ** 31;

/** What a probe started. */
export interface Started {
  /** Whether the timer's effect has happened (may wait a moment of real time for real I/O). */
  fired(): boolean | Promise<boolean>;
  /** Releases everything the probe made. */
  stop(): unknown;
  /** When the effect is due, in ms from the start. Default: the value given (× 1000 for seconds). */
  dueMs?: number;
}

/**
 * Starts what the option drives with the option set to `value`. A refused value throws (or
 * rejects) the option's typed error.
 */
export type Probe = (value: number) => Started | Promise<Started>;

// Captured before any test fakes them: a probe over real I/O (HTTP, a child process) waits for it in real time.
const realSetTimeout = globalThis.setTimeout;

/** Waits `ms` of real time, whatever the fake timers. */
export const realDelay = (ms: number): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, ms));

/** True once `check` is, polling in real time up to `withinMs` (for effects carried by real I/O). */
export async function eventually(check: () => boolean, withinMs = 3000): Promise<boolean> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= withinMs) return false;
    await realDelay(10);
  }
  return true;
}

/**
 * Fakes the timers a probe's code reads (`setTimeout`, `setInterval`, `Date`, `performance`) and
 * leaves the ones Node's I/O needs (`nextTick`, `setImmediate`, microtasks) real.
 */
export function fakeTimers(): void {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask'] });
}

/** Advances the fake clock by `ms`, running each timer due and the promises it settles. */
export const advance = (ms: number): Promise<void> => jest.advanceTimersByTimeAsync(ms);

/** Whether `promise` has settled, read without waiting. */
export function settledFlag(promise: Promise<unknown>): () => boolean {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

/**
 * Waiting in tests: for real time (`until`, `settle`, `deferred`) without a fixed sleep, and virtual
 * time (`testScheduler`, `flushTo`, `virtualClock`) where the code under test takes an RxJS scheduler.
 */
import { expect } from '@jest/globals';
import type { VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

/** Options of `until`. */
export interface UntilOptions {
  /** Give up after this long, in ms. Default 10,000. */
  timeoutMs?: number;
  /** Time between checks, in ms. Default 0: after each macrotask (timers, I/O and promises queued before it have run). */
  intervalMs?: number;
  /** What was awaited, for the error. Default: the check's source. */
  what?: string;
}

/**
 * Resolves once `check()` holds, checking every `intervalMs`; rejects with what was awaited after
 * `timeoutMs`, so a test fails at the wait, not at a later assertion.
 */
export async function until(check: () => boolean, options: UntilOptions = {}): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 0 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`until: ${options.what ?? check.toString()} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Resolves after one macrotask: whatever was queued (promises, zero timers) has run. */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

/** A promise and its resolve function. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A `TestScheduler` whose assertions are jest's `toEqual`. */
export const testScheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/**
 * Runs at once what `ts` has scheduled up to virtual time `to` (no promise runs in between: for
 * timers alone; `virtualClock` when promises must settle between them). Its clock is then at the
 * last action run, not at `to`.
 */
export function flushTo(ts: VirtualTimeScheduler, to: number): void {
  ts.maxFrames = to;
  ts.flush();
}

/**
 * A virtual clock advanced by hand, letting promise deliveries run between steps of `stepMs`: for
 * code that mixes a scheduler with microtasks (handlers, async reconciles).
 */
export function virtualClock(stepMs = 500): { ts: TestScheduler; advance(to: number): Promise<void> } {
  const ts = testScheduler();
  return {
    ts,
    advance: async (to: number) => {
      for (let t = ts.frame + stepMs; t <= to; t += stepMs) {
        ts.maxFrames = t;
        ts.flush();
        await settle();
      }
    },
  };
}

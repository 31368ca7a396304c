/**
 * eventually and consistently on real timers with short intervals. Outcomes only, never how long
 * anything took: passes once the check does, fails with the last error, catches a flip, stops on
 * an abort, and leaves no timer behind.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { consistently, ConsistentlyFailedError, eventually, EventuallyTimeoutError, InvalidOptionsError } from '../src/index.ts';

/** The timers the process holds now. */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('eventually', () => {
  afterEach(() => void jest.useRealTimers());

  it('should resolve with what the check returned once it passes, after the attempts that failed', async () => {
    let calls = 0;
    const value = await eventually(() => (++calls < 4 ? false : { calls }), { intervalMs: 1 });
    expect(value).toEqual({ calls: 4 });
    let flag = false;
    setTimeout(() => (flag = true), 20);
    let checks = 0;
    await eventually(
      () => {
        checks++;
        expect(flag).toBe(true);
      },
      { intervalMs: 5 },
    );
    expect(checks).toBeGreaterThan(1); // the first check ran before the timer flipped the flag
  });

  it('should reject with the last failure as the cause and how many attempts failed', async () => {
    let calls = 0;
    let last: Error | undefined;
    const failing = eventually(
      () => {
        last = new Error(`attempt ${++calls}`);
        throw last;
      },
      { timeoutMs: 100, intervalMs: 5, description: 'the widget' },
    );
    const error = (await failing.catch((e: unknown) => e)) as EventuallyTimeoutError;
    expect(error).toBeInstanceOf(EventuallyTimeoutError);
    expect(error.reason).toBe('EventuallyTimedOut');
    expect(error.cause).toBe(last);
    expect(error.attempts).toBe(calls);
    expect(calls).toBeGreaterThan(1);
    expect(error.message).toBe(
      `eventually: the widget did not pass within 100 ms (${calls} attempts failed); the last failed with: attempt ${calls}`,
    );
  });

  it("should carry an assertion's own error, and say a predicate returned false", async () => {
    const assertion = await eventually(() => expect(1 + 1).toBe(3), { timeoutMs: 30, intervalMs: 5 }).catch((e: unknown) => e);
    expect((assertion as Error).cause).toBeInstanceOf(Error);
    expect((assertion as Error).message).toMatch(/the last failed with: .*toBe/s);
    const predicate = await eventually(async () => false, { timeoutMs: 30, intervalMs: 5 }).catch((e: unknown) => e);
    expect((predicate as Error).message).toMatch(/the last failed with: the check returned false$/);
  });

  it('should reject at the deadline while an attempt still runs', async () => {
    const error = (await eventually(() => new Promise(() => {}), { timeoutMs: 30 }).catch((e: unknown) => e)) as EventuallyTimeoutError;
    expect(error).toBeInstanceOf(EventuallyTimeoutError);
    expect(error.attempts).toBe(0);
    expect(error.cause).toBeUndefined();
    expect(error.message).toBe('eventually: the check did not pass within 30 ms (0 attempts failed, one was still running)');
  });

  it("should reject with the signal's reason when it aborts, and not start when it already did", async () => {
    const controller = new AbortController();
    const reason = new Error('test over');
    let calls = 0;
    const waiting = eventually(
      () => {
        if (++calls === 2) controller.abort(reason);
        return false;
      },
      { intervalMs: 1, signal: controller.signal },
    );
    await expect(waiting).rejects.toBe(reason);
    expect(calls).toBe(2);
    await expect(eventually(() => ++calls, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(calls).toBe(2);
    // Aborted while an attempt runs.
    const during = new AbortController();
    const pending = eventually(() => new Promise(() => during.abort(reason)), { signal: during.signal });
    await expect(pending).rejects.toBe(reason);
  });

  it('should wait in real time under jest fake timers', async () => {
    jest.useFakeTimers();
    let calls = 0;
    await expect(eventually(() => ++calls >= 3, { intervalMs: 1 })).resolves.toBe(true);
    expect(calls).toBe(3);
  });

  it('should leave no timer behind when it resolves, rejects or is aborted', async () => {
    const before = timers();
    await eventually(() => true, { timeoutMs: 600_000 });
    await eventually(() => false, { timeoutMs: 5, intervalMs: 600_000 }).catch(() => {});
    const controller = new AbortController();
    const aborted = eventually(() => false, { timeoutMs: 600_000, intervalMs: 600_000, signal: controller.signal });
    await sleep(1);
    controller.abort();
    await aborted.catch(() => {});
    expect(timers()).toBe(before);
  });

  it('should refuse options that are not durations, and a check that is not a function', async () => {
    await expect(eventually(() => true, { timeoutMs: -1 })).rejects.toThrow(InvalidOptionsError);
    await expect(eventually(() => true, { intervalMs: Number.NaN })).rejects.toThrow(/intervalMs must be a number of ms/);
    await expect(eventually(42 as never)).rejects.toThrow(/eventually needs a check function, not number/);
  });
});

describe('consistently', () => {
  it('should resolve with the number of checks when the check holds through the window, the last at its end', async () => {
    let calls = 0;
    const checks = await consistently(() => void calls++, { durationMs: 50, intervalMs: 5 });
    expect(checks).toBe(calls);
    expect(checks).toBeGreaterThanOrEqual(2);
  });

  it('should catch a flip within the window, with the failure as the cause', async () => {
    let flag = false;
    setTimeout(() => (flag = true), 20);
    const error = (await consistently(() => expect(flag).toBe(false), { durationMs: 60_000, intervalMs: 5, description: 'the flag' }).catch(
      (e: unknown) => e,
    )) as ConsistentlyFailedError;
    expect(error).toBeInstanceOf(ConsistentlyFailedError);
    expect(error.reason).toBe('ConsistentlyFailed');
    expect(error.attempt).toBeGreaterThan(1);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toMatch(new RegExp(`^consistently: the flag failed at check ${error.attempt} of a 60000 ms window: .*toBe`, 's'));
  });

  it('should fail at the first failing check, long before the window ends, and a predicate returning false fails', async () => {
    const error = (await consistently(() => false, { durationMs: 600_000 }).catch((e: unknown) => e)) as ConsistentlyFailedError;
    expect(error.attempt).toBe(1);
    expect(error.message).toMatch(/failed at check 1 of a 600000 ms window: the check returned false$/);
  });

  it("should reject with the signal's reason, and leave no timer behind", async () => {
    const before = timers();
    const controller = new AbortController();
    const reason = new Error('suite over');
    const checking = consistently(() => true, { durationMs: 600_000, intervalMs: 1, signal: controller.signal });
    await sleep(5);
    controller.abort(reason);
    await expect(checking).rejects.toBe(reason);
    await consistently(() => true, { durationMs: 5, intervalMs: 600_000 });
    await consistently(() => false, { durationMs: 600_000 }).catch(() => {});
    expect(timers()).toBe(before);
  });
});

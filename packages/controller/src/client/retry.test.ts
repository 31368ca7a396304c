import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError, type Status } from '@rxinformer/core';
import { queueScheduler, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { ApiError } from './apiError.ts';
import { retryOnConflict } from './retry.ts';

const answer = (code: number, reason: string) =>
  new ApiError(code, { status: { kind: 'Status', code, reason, message: reason } as Status });

/** A scheduler that records each delay asked for and runs the work at once. */
function recordingScheduler(): SchedulerLike & { delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    now: () => 0,
    schedule<S>(work: (this: SchedulerAction<S>, state?: S) => void, delay = 0, state?: S) {
      delays.push(delay);
      return queueScheduler.schedule(work, 0, state);
    },
  };
}

describe('retryOnConflict', () => {
  it('should retry on Conflict only, after the backoff, and give the first success', async () => {
    const scheduler = recordingScheduler();
    const attempts: number[] = [];
    const result = await retryOnConflict(
      async (n) => {
        attempts.push(n);
        if (n < 3) throw answer(409, 'Conflict');
        return 'done';
      },
      { backoff: { durationMs: 10, factor: 2, jitter: 0 }, scheduler },
    );
    expect(result).toBe('done');
    expect(attempts).toEqual([1, 2, 3]);
    expect(scheduler.delays).toEqual([10, 20]);
  });

  it('should not retry AlreadyExists or other errors, and throw the last conflict after `steps` attempts', async () => {
    let calls = 0;
    const exists = answer(409, 'AlreadyExists');
    await expect(
      retryOnConflict(() => {
        calls++;
        return Promise.reject(exists);
      }),
    ).rejects.toBe(exists);
    expect(calls).toBe(1);
    calls = 0;
    const conflict = answer(409, 'Conflict');
    await expect(
      retryOnConflict(
        () => {
          calls++;
          return Promise.reject(conflict);
        },
        { steps: 4, backoff: { durationMs: 0 } },
      ),
    ).rejects.toBe(conflict);
    expect(calls).toBe(4);
  });

  it('should add jitter and respect the cap', async () => {
    const scheduler = recordingScheduler();
    await expect(
      retryOnConflict(() => Promise.reject(answer(409, 'Conflict')), {
        steps: 4,
        backoff: { durationMs: 100, factor: 3, jitter: 0.5, capMs: 500 },
        random: () => 0.5,
        scheduler,
      }),
    ).rejects.toBeInstanceOf(ApiError);
    expect(scheduler.delays).toEqual([125, 375, 500]);
  });

  it('should refuse bad options at once', async () => {
    await expect(retryOnConflict(async () => 1, { steps: 0 })).rejects.toThrow(InvalidOptionsError);
    await expect(retryOnConflict(async () => 1, { backoff: { factor: -1 } })).rejects.toThrow(/backoff.factor/);
  });
});

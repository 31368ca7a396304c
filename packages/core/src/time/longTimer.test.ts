import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { NEVER, asyncScheduler, of, throwError, type Subscription } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import { MAX_TIMER_MS, scheduleAfter, timerAfter } from './longTimer.ts';
import { reflector } from '../reflector/reflector.ts';
import type { ReflectorStatus } from '../types.ts';
import { WorkQueue } from '../workqueue/workqueue.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler } from '@rxinformer/testing';

// JavaScript timers hold 2³¹−1 ms; a longer delay fires after ~1 ms. These tests run on the default
// schedulers over jest's fake timers, which keep that limit (a TestScheduler has none): they wait out
// 30 days in virtual time, and see nothing fire early and the work fire at its due time.
const DAY = 86_400_000;
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

describe('scheduleAfter / timerAfter', () => {
  it('should fire a delay longer than a timer holds at its due time, not early, and cancel it', async () => {
    const fired: number[] = [];
    const start = Date.now();
    scheduleAfter(asyncScheduler, 30 * DAY, () => fired.push(Date.now() - start));
    const emitted: number[] = [];
    timerAfter(MAX_TIMER_MS + 1, asyncScheduler).subscribe(() => emitted.push(Date.now() - start));
    const cancelled = scheduleAfter(asyncScheduler, 40 * DAY, () => fired.push(-1));
    await advance(MAX_TIMER_MS);
    expect([fired, emitted]).toEqual([[], []]);
    await advance(1);
    expect(emitted).toEqual([MAX_TIMER_MS + 1]);
    await advance(30 * DAY - MAX_TIMER_MS - 2);
    expect(fired).toEqual([]);
    await advance(1);
    expect(fired).toEqual([30 * DAY]);
    cancelled.unsubscribe();
    await advance(20 * DAY);
    expect(fired).toEqual([30 * DAY]);
  });

  it('should fire at the due time in virtual time, across several timers', () => {
    const ts = testScheduler();
    ts.run(({ flush }) => {
      const seen: number[] = [];
      scheduleAfter(ts, 60 * DAY, () => seen.push(ts.now()));
      timerAfter(30 * DAY, ts).subscribe(() => seen.push(ts.now()));
      scheduleAfter(ts, 5, () => seen.push(ts.now())); // a short one, as is
      flush();
      expect(seen).toEqual([5, 30 * DAY, 60 * DAY]);
    });
  });
});

describe('long delays in their users', () => {
  it('should requeue a key after 30 days, not at once (a certificate-expiry controller)', async () => {
    const queue = new WorkQueue<string>();
    queue.addAfter('cert', 30 * DAY);
    await advance(30 * DAY - 1);
    expect(queue.length).toBe(0);
    await advance(1);
    expect(queue.length).toBe(1);
    expect(() => queue.addAfter('cert', Infinity)).toThrow(/finite delay/);
    await queue.shutdown();
  });

  it('should wait out a backoff longer than a timer holds instead of retrying in a loop', async () => {
    const lw = fakeListerWatcher();
    lw.scriptList(
      throwError(() => new KubeApiError(500, { reason: 'InternalError' })),
      throwError(() => new KubeApiError(500, { reason: 'InternalError' })),
    );
    const statuses: ReflectorStatus[] = [];
    let sub: Subscription | undefined;
    try {
      sub = reflector(lw, { useStreamingList: false, backoff: { initialMs: 30 * DAY, maxMs: 30 * DAY }, random: () => 0 }).subscribe(
        (e) => {
          if (e.type === 'STATUS') statuses.push(e.status);
        },
      );
      await advance(29 * DAY);
      expect(lw.listCalls).toHaveLength(1);
      expect(statuses.at(-1)).toMatchObject({ phase: 'backingOff' });
      await advance(DAY);
      expect(lw.listCalls).toHaveLength(2);
    } finally {
      sub?.unsubscribe();
    }
  });

  it('should keep a watch whose idle deadline is longer than a timer holds, arming no timer past the limit', async () => {
    // RxJS's async actions arm setInterval: record what they ask for (a longer one would fire and re-arm every ~1 ms).
    const g = globalThis as { setInterval: typeof setInterval };
    const faked = g.setInterval;
    const asked: number[] = [];
    g.setInterval = ((fn: () => void, ms?: number) => {
      asked.push(ms ?? 0);
      return faked(fn, ms);
    }) as typeof setInterval;
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([obj('a', '1')], '1')));
    lw.scriptWatch(NEVER);
    let sub: Subscription | undefined;
    try {
      sub = reflector(lw, { useStreamingList: false, minWatchTimeoutSeconds: 40 * 86_400 }).subscribe();
      await advance(100); // a timer past the limit would have fired and re-armed ~100 times by now
      expect(asked.length).toBeGreaterThan(0);
      expect(Math.max(...asked)).toBeLessThanOrEqual(MAX_TIMER_MS);
      expect(asked.length).toBeLessThan(5); // one idle timer, not one every millisecond
      await advance(39 * DAY);
      expect(lw.watchCalls).toHaveLength(1); // not reconnected as idle
    } finally {
      sub?.unsubscribe();
      g.setInterval = faked;
    }
  });
});

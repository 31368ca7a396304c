import { describe, expect, it } from '@jest/globals';
import { NEVER, asyncScheduler, of, throwError, type Subscription } from 'rxjs';
import { KubeApiError } from './errors.ts';
import { MAX_TIMER_MS, scheduleAfter, timerAfter } from './longTimer.ts';
import { reflector } from './reflector.ts';
import type { ReflectorStatus } from './types.ts';
import { WorkQueue } from './workqueue.ts';
import { fakeListerWatcher, page, testObject as obj, testScheduler } from '@rxinformer/testing';

// JavaScript timers hold 2³¹−1 ms; a longer delay fires after ~1 ms. These tests run on the real
// clock for that reason (a TestScheduler has no such limit) and check that nothing fires early.
const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('scheduleAfter / timerAfter', () => {
  it('should not fire a delay longer than a timer holds early, and cancel it', async () => {
    let fired = 0;
    const sub = scheduleAfter(asyncScheduler, 30 * DAY, () => fired++);
    const emitted: number[] = [];
    const timerSub = timerAfter(MAX_TIMER_MS + 1, asyncScheduler).subscribe((v) => emitted.push(v));
    await sleep(60);
    expect(fired).toBe(0);
    expect(emitted).toEqual([]);
    sub.unsubscribe();
    timerSub.unsubscribe();
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
    await sleep(60);
    expect(queue.length).toBe(0);
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
      sub = reflector(lw, { backoff: { initialMs: 30 * DAY, maxMs: 30 * DAY } }).subscribe((e) => {
        if (e.type === 'STATUS') statuses.push(e.status);
      });
      await sleep(60);
      expect(lw.listCalls).toHaveLength(1);
      expect(statuses.at(-1)).toMatchObject({ phase: 'backingOff' });
    } finally {
      sub?.unsubscribe();
    }
  });

  it('should keep a watch whose idle deadline is longer than a timer holds, arming no timer past the limit', async () => {
    // RxJS's async actions arm setInterval: record what they ask for (a longer one would fire and re-arm every ~1 ms).
    const g = globalThis as { setInterval: typeof setInterval };
    const real = g.setInterval;
    const asked: number[] = [];
    g.setInterval = ((fn: () => void, ms?: number) => {
      asked.push(ms ?? 0);
      return real(fn, ms);
    }) as typeof setInterval;
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([obj('a', '1')], '1')));
    lw.scriptWatch(NEVER);
    let sub: Subscription | undefined;
    try {
      sub = reflector(lw, { minWatchTimeoutSeconds: 40 * 86_400 }).subscribe();
      await sleep(60);
    } finally {
      sub?.unsubscribe();
      g.setInterval = real;
    }
    expect(lw.watchCalls).toHaveLength(1); // not reconnected as idle
    expect(asked.length).toBeGreaterThan(0);
    expect(Math.max(...asked)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(asked.length).toBeLessThan(5); // one idle timer, not one every millisecond
  });
});

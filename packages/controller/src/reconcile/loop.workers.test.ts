/**
 * The reconcile loop's workers over a work queue, without a builder around them: never one key in
 * two workers, at most `concurrency` at once, requeues, stop with and without draining, waiting for
 * the sources, and whatever throws between taking a key and `done` (core's former `runController`
 * cases, on the one loop).
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { EMPTY, Subject, asyncScheduler, of, throwError, timer, map, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { WorkQueue, type WorkQueueOptions } from '@rxinformer/core/workqueue';
import { settle, testScheduler, until, virtualClock } from '@rxinformer/testing';
import { FailureLog, type Logger } from '../log/logger.ts';
import { ControllerStoppedError, ControllerSyncError, type ControllerError } from './errors.ts';
import { runLoop } from './loop.ts';
import { InvalidReconcileResultError } from './result.ts';
import type { ReconcileRun } from './run.ts';
import { ReconcileCounts } from './stats.ts';
import { nextMacrotask } from './worker.ts';

const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };

interface Options {
  readonly concurrency?: number;
  readonly maxRetries?: number;
  readonly synced?: Observable<boolean>;
  readonly queue?: Partial<WorkQueueOptions<string>>;
  /** What a reconcile does; default: 10 ms of the scheduler's time, whatever its signal says. */
  readonly work?: (key: string, run: ReconcileRun) => unknown;
}

/**
 * A loop over a new queue; `starts` records `[time, key]` of each reconcile as it starts, `runs`
 * their ids and signals (read by the tests afterwards: a signal made once aborted).
 */
function loopOver(ts: TestScheduler | undefined, options: Options = {}) {
  const clock = ts ?? asyncScheduler;
  const queue = new WorkQueue<string>({ ...(ts && { scheduler: ts }), ...options.queue });
  const starts: [number, string][] = [];
  const runs: ReconcileRun[] = [];
  const reports: ControllerError[] = [];
  const counts = new ReconcileCounts(options.concurrency ?? 1);
  let maxActive = 0;
  const work = options.work ?? (() => new Promise<void>((resolve) => clock.schedule(() => resolve(), 10)));
  const loop = runLoop({
    name: 'workers',
    queue,
    synced: options.synced ?? of(true),
    concurrency: options.concurrency ?? 1,
    maxRetries: options.maxRetries,
    timeoutMs: undefined,
    scheduler: ts,
    clock,
    counts,
    log: quiet,
    failures: new FailureLog(60_000, clock),
    reconcile: (key, run) => {
      starts.push([clock.now(), key]);
      runs.push(run);
      maxActive = Math.max(maxActive, counts.activeWorkers);
      return work(key, run);
    },
    settled: () => {},
    report: (e) => reports.push(e),
  });
  return { loop, queue, starts, runs, reports, counts, maxActive: () => maxActive };
}

describe('the reconcile loop, its workers', () => {
  it('should reconcile a key added while it is processed once more afterwards, not in parallel', async () => {
    const { ts, advance } = virtualClock(1);
    const { loop, queue, starts } = loopOver(ts, { concurrency: 2 });
    for (const [at, key] of [
      [0, 'a'],
      [2, 'a'],
      [4, 'a'],
      [6, 'b'],
    ] as const)
      ts.schedule(() => queue.add(key), at);
    await advance(30);
    expect(starts).toEqual([
      [0, 'a'],
      [6, 'b'],
      [10, 'a'],
    ]);
    await loop.stop();
  });

  it('should run at most `concurrency` reconciles at once', async () => {
    const { ts, advance } = virtualClock(1);
    const { loop, queue, starts, maxActive, counts } = loopOver(ts, { concurrency: 2 });
    for (const k of 'abcde') queue.add(k);
    await advance(40);
    expect(starts).toEqual([
      [0, 'a'],
      [0, 'b'],
      [10, 'c'],
      [10, 'd'],
      [20, 'e'],
    ]);
    expect(maxActive()).toBe(2);
    expect(counts.snapshot()).toMatchObject({ activeWorkers: 0, maxConcurrentReconciles: 2, total: { success: 5 } });
    await loop.stop();
  });

  it('should requeue a key after requeueAfterMs, and forget a key that succeeds so its next failure backs off from 5 ms', async () => {
    const { ts, advance } = virtualClock(1);
    let n = 0;
    const { loop, queue, starts } = loopOver(ts, {
      work: async () => {
        n++;
        if (n === 3) return { requeueAfterMs: 30 };
        if (n !== 4) throw new Error('flaky');
      },
    });
    queue.add('a');
    ts.schedule(() => queue.add('a'), 100);
    await advance(120);
    // fail at 0, fail at 5, ask again in 30 ms at 15 (the backoff forgotten), succeed at 45; added at 100: fail, retried 5, then 10 ms later
    expect(starts.map(([at]) => at)).toEqual([0, 5, 15, 45, 100, 105, 115]);
    await loop.stop();
  });

  it('should abort the reconciles in progress on stop, let them settle, and drop the waiting keys', async () => {
    const { ts, advance } = virtualClock(1);
    const { loop, queue, starts, runs } = loopOver(ts);
    queue.add('a');
    queue.add('b');
    let stopped = false;
    ts.schedule(() => void loop.stop().then(() => (stopped = true)), 5);
    await advance(6);
    // the signal, never read before the stop, is made aborted, with the stop's reason
    expect([loop.phase(), stopped, runs[0].signal.aborted, runs[0].signal.reason]).toEqual([
      'stopping',
      false,
      true,
      expect.any(ControllerStoppedError),
    ]);
    await advance(20);
    expect([loop.phase(), stopped]).toEqual(['stopped', true]);
    expect(starts).toEqual([[0, 'a']]);
    expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0 });
  });

  it('should reconcile the waiting keys first with drainQueue, aborting nothing', async () => {
    const { ts, advance } = virtualClock(1);
    const { loop, queue, starts, runs } = loopOver(ts);
    queue.add('a');
    queue.add('b');
    ts.schedule(() => {
      void loop.stop({ drainQueue: true });
      queue.add('c'); // after shutdown: ignored
    }, 5);
    await advance(30);
    expect(starts).toEqual([
      [0, 'a'],
      [10, 'b'],
    ]);
    expect(runs.map((r) => r.signal.aborted)).toEqual([false, false]);
    expect(loop.phase()).toBe('stopped');
  });

  it('should not retry a key that fails while stopping, and report it dropped', async () => {
    const { ts, advance } = virtualClock(1);
    const work = () => new Promise((_, reject) => ts.schedule(() => reject(new Error('late')), 10));
    const { loop, queue, starts, reports } = loopOver(ts, { work });
    queue.add('a');
    ts.schedule(() => void loop.stop(), 5);
    await advance(30);
    expect(reports.map((r) => [r.key, r.dropped])).toEqual([['a', true]]);
    expect(starts).toHaveLength(1);
  });

  it('should stop before the sources synced without ever reconciling, and resolve every call', async () => {
    const synced = new Subject<boolean>();
    const { loop, queue, starts } = loopOver(undefined, { synced });
    queue.add('a');
    const [first, second] = [loop.stop(), loop.stop()];
    expect(first).toBe(second);
    await first;
    synced.next(true);
    await settle();
    expect(starts).toEqual([]);
    expect(synced.observed).toBe(false);
  });

  it('should report sources that fail or end before they synced, at the sync stage, and stop', async () => {
    const gone = new Error('informer gone');
    const cases: [Observable<boolean>, string][] = [
      [throwError(() => gone), 'waiting for the sources to sync failed: informer gone'],
      [EMPTY, 'the sources ended before they synced'],
      [timer(2).pipe(map(() => false)), 'the sources ended before they synced'],
    ];
    for (const [synced, message] of cases) {
      const { loop, reports } = loopOver(undefined, { synced });
      await until(() => loop.phase() === 'stopped', { what: message });
      expect(reports).toEqual([{ stage: 'sync', error: expect.any(ControllerSyncError), retries: 0, dropped: true }]);
      expect((reports[0].error as Error).message).toBe(message);
    }
  });

  it('should never run one key twice at once, and reconcile every key after its last add, whatever the timing', async () => {
    const script = fc.record({
      concurrency: fc.integer({ min: 1, max: 4 }),
      adds: fc.array(fc.record({ at: fc.nat({ max: 60 }), key: fc.constantFrom('a', 'b', 'c', 'd') }), { minLength: 1, maxLength: 30 }),
      durations: fc.array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 20 }),
      failEvery: fc.integer({ min: 2, max: 7 }),
    });
    await fc.assert(
      fc.asyncProperty(script, async ({ concurrency, adds, durations, failEvery }) => {
        const ts = testScheduler();
        const running = new Set<string>();
        let n = 0;
        let twice = false;
        const work = (key: string) => {
          twice ||= running.has(key);
          running.add(key);
          const i = n++;
          const fails = i % failEvery === 0 && i < 20; // failures stop, so every key settles
          return new Promise<void>((resolve, reject) =>
            ts.schedule(
              () => {
                running.delete(key);
                if (fails) reject(new Error('planned'));
                else resolve();
              },
              durations[i % durations.length],
            ),
          );
        };
        const { loop, queue, starts, maxActive } = loopOver(ts, {
          concurrency,
          work,
          synced: timer(3, ts).pipe(map(() => true)),
          queue: { maxDelayMs: 20 },
        });
        for (const { at, key } of adds) ts.schedule(() => queue.add(key), at);
        // Virtual ms by ms, the reconciles' promises settling in between, until every add was made and the queue is idle.
        for (let t = 1; t <= 2000 && (t <= 61 || queue.metrics().processing + queue.metrics().delayed + queue.length > 0); t++) {
          ts.maxFrames = t;
          ts.flush();
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect(twice).toBe(false);
        expect(maxActive()).toBeLessThanOrEqual(concurrency);
        for (const { at, key } of adds)
          expect(Math.max(...starts.filter(([, k]) => k === key).map(([t]) => t))).toBeGreaterThanOrEqual(Math.max(at, 3));
        expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0, delayed: 0 });
        await loop.stop();
      }),
      { numRuns: 100 },
    );
  });
});

describe('the reconcile loop, whatever throws between taking a key and done', () => {
  for (const [what, when] of [
    [
      'throws',
      () => {
        throw new Error('limiter broke');
      },
    ],
    ['answers NaN', () => Number.NaN],
  ] as const) {
    it(`should release a failed key whose rate limiter ${what}, report it dropped and go on`, async () => {
      const { ts, advance } = virtualClock(1);
      const rateLimiter = { when, forget: () => {}, numRequeues: () => 0 };
      const work = (key: string) => (key === 'a' ? Promise.reject(new Error('boom')) : new Promise((ok) => ts.schedule(ok, 10)));
      const { loop, queue, starts, reports } = loopOver(ts, { work, queue: { rateLimiter } });
      queue.add('a');
      queue.add('b');
      await advance(20);
      expect(starts).toEqual([
        [0, 'a'],
        [0, 'b'],
      ]);
      const limiterError = what === 'throws' ? 'limiter broke' : expect.stringMatching(/rate limiter answered NaN for key "a"/);
      expect(reports.map((r) => [r.key, r.dropped, (r.error as Error).message])).toEqual([
        ['a', true, 'boom'],
        ['a', true, limiterError],
      ]);
      expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0 });
      await loop.stop();
    });
  }

  it("should release the key when a thenable's then throws, and settle once when one calls back twice", async () => {
    const { ts, advance } = virtualClock(1);
    const answers: Record<string, () => unknown> = {
      a: () => ({
        then() {
          throw new Error('bad then');
        },
      }),
      b: () => ({
        then(ok: (v: unknown) => void) {
          ok(undefined);
          ok(undefined);
        },
      }),
    };
    let tries = 0;
    const work = (key: string) => (key in answers && tries++ < 2 ? answers[key]() : new Promise((ok) => ts.schedule(ok, 10)));
    const { loop, queue, starts, reports, counts } = loopOver(ts, { work });
    for (const key of 'abc') queue.add(key);
    await advance(30);
    // a fails (a panic: it threw at once; retried after 5 ms), b settles once, c holds the only worker until 10, then a again.
    expect(starts).toEqual([
      [0, 'a'],
      [0, 'b'],
      [0, 'c'],
      [10, 'a'],
    ]);
    expect(reports.map((r) => [r.key, r.retries, (r.error as Error).message])).toEqual([['a', 0, 'bad then']]);
    expect(counts.snapshot()).toMatchObject({ total: { success: 3, error: 1 }, panics: 1, activeWorkers: 0 });
    await loop.stop();
  });
});

describe('the reconcile loop, reconciles that settle without I/O', () => {
  it('should let timers run between async reconciles that settle at once, however long they keep coming', async () => {
    const LIMIT = 20_000;
    let n = 0;
    const { loop, queue, reports } = loopOver(undefined, { work: async () => (++n < LIMIT ? { requeueAfterMs: 0 } : undefined) });
    let atTimer = -1;
    setTimeout(() => {
      atTimer = n;
    }, 0);
    queue.add('a');
    await until(() => n >= LIMIT, { what: `${LIMIT} reconciles`, timeoutMs: 60_000 });
    // The timer ran while the key was still being requeued; without the yield, only once all 20,000 were done.
    expect(atTimer).toBeGreaterThan(0);
    expect(atTimer).toBeLessThan(LIMIT);
    await loop.stop();
    expect(reports).toEqual([]);
  });

  it('should go on with the next key after an async reconcile answering Infinity, reported invalid', async () => {
    const { loop, queue, starts, reports } = loopOver(undefined, {
      work: async (key: string) => (key === 'a' ? { requeueAfterMs: Math.min() } : undefined),
    });
    queue.add('a');
    queue.add('b');
    await until(() => starts.some(([, k]) => k === 'b'), { what: 'b reconciled' });
    expect(starts.slice(0, 2).map(([, k]) => k)).toEqual(['a', 'b']);
    expect(reports[0]).toMatchObject({ key: 'a', retries: 0, error: expect.any(InvalidReconcileResultError) });
    await loop.stop();
    expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0 });
  });
});

describe('nextMacrotask', () => {
  const g = globalThis as Record<string, unknown>;
  const ways: [string, string[]][] = [
    ['setImmediate (Node)', []],
    ['a MessageChannel (browsers)', ['setImmediate']],
    ['a 0 ms timer', ['setImmediate', 'MessageChannel']],
  ];
  for (const [way, hidden] of ways) {
    it(`should run after the microtasks queued before it, and let a due timer run in a chain of them, through ${way}`, async () => {
      const saved = hidden.map((name) => [name, g[name]] as const);
      for (const name of hidden) g[name] = undefined;
      try {
        const order: string[] = [];
        nextMacrotask(() => order.push('yield'));
        void Promise.resolve().then(() => order.push('microtask'));
        let timerRan = false;
        setTimeout(() => {
          timerRan = true;
        }, 0);
        let steps = 0;
        await new Promise<void>((done) => {
          const step = () => (timerRan || ++steps > 100_000 ? done() : nextMacrotask(step));
          nextMacrotask(step);
        });
        expect(order).toEqual(['microtask', 'yield']);
        expect(timerRan).toBe(true); // a chain of yields does not starve timers
      } finally {
        for (const [name, value] of saved) g[name] = value;
      }
    });
  }
});

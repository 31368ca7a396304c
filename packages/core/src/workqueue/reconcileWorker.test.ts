import { describe, expect, it } from '@jest/globals';
import { ReplaySubject, last, map, max, of, throwError, timer, type Observable } from 'rxjs';
import type { ControllerError } from './reconcileWorker.ts';
import { runController } from './runController.ts';
import { InvalidReconcileResultError, nextMacrotask } from './reconcileWorker.ts';
import { WorkQueue } from './workqueue.ts';
import { virtualController } from '../../test/virtualController.ts';
import { testScheduler, until } from '@rxinformer/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Resolves 'stopped' once `stop()` resolves; 'wedged' if it is still waiting after a second (a deadline, not a duration). */
const stopped = (ctl: { stop(): Promise<void> }) => Promise.race([ctl.stop().then(() => 'stopped'), sleep(1000).then(() => 'wedged')]);
/** A failure as a short string: key, retries, what kind of error, dropped. */
/** Records a hot stream from now on, so that a marble expectation sees what it emitted at frame 0. */
const recorded = <T>(source: Observable<T>): Observable<T> => {
  const replay = new ReplaySubject<T>();
  source.subscribe(replay);
  return replay;
};
const brief = (e: ControllerError) =>
  `${e.key}:${e.retries}:${e.error instanceof InvalidReconcileResultError ? 'invalid' : (e.error as Error).message}${e.dropped ? ':dropped' : ''}`;

describe('runController, a result it cannot act on', () => {
  const bad: [string, () => unknown][] = [
    ['Infinity (Math.min() of nothing)', () => ({ requeueAfterMs: Math.min() })],
    ['NaN, through an Observable', () => of({ requeueAfterMs: Number.NaN })],
    ['a negative delay', () => ({ requeueAfterMs: -1 })],
    ['a delay that is not a number', () => ({ requeueAfterMs: '30s' })],
    ['a number returned directly', () => 5000],
    [
      'a getter that throws',
      () => ({
        get requeueAfterMs(): number {
          throw new Error('no delay');
        },
      }),
    ],
  ];
  for (const [what, answer] of bad) {
    it(`should report ${what} as InvalidReconcileResultError naming the key, retry it with backoff and go on with the next key`, () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        let n = 0;
        const work = (key: string) => (key === 'a' && n++ < 2 ? answer() : timer(10));
        const { ctl, log, queue } = virtualController(ts, { work: work as never });
        const errors = recorded(ctl.errors$);
        queue.add('a');
        queue.add('b');
        // a fails at 0 and again at 10 (due at 5, b holds the worker until 10), then succeeds at 20.
        expectObservable(log).toBe('(ab) 6ms a 9ms a');
        expectObservable(errors.pipe(map(brief))).toBe('0 9ms 1 29ms |', { 0: 'a:0:invalid', 1: 'a:1:invalid' });
        errors.subscribe(({ error }) => {
          expect((error as InvalidReconcileResultError).key).toBe('a');
          expect((error as InvalidReconcileResultError).reason).toBe('InvalidReconcileResult');
        });
        ts.schedule(() => {
          expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0, delayed: 0 });
          void ctl.stop();
        }, 40);
      });
    });
  }

  it('should take undefined, null, an empty object, a 0 delay and a non-object value of an Observable as valid', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const answers: Record<string, () => unknown> = {
        a: () => undefined,
        b: () => null,
        c: () => ({}),
        d: () => (log.includes('d') ? undefined : { requeueAfterMs: 0, other: 'ignored' }),
        e: () => of(30_000), // a value of an Observable (or a promise) is read only if it is an object
      };
      const log: string[] = [];
      const { ctl, log: started, queue } = virtualController(ts, { work: ((key: string) => [answers[key](), log.push(key)][0]) as never });
      const errors = recorded(ctl.errors$);
      for (const key of 'abcde') queue.add(key);
      expectObservable(started).toBe('(abcded)'); // d once more: requeued at once
      expectObservable(errors).toBe('20ms |');
      ts.schedule(() => void ctl.stop(), 20);
    });
  });

  it('should neither crash nor wedge on an async reconcile answering Infinity: the next key is reconciled, stop() resolves', async () => {
    const queue = new WorkQueue<string>();
    const seen: string[] = [];
    const errors: ControllerError[] = [];
    const ctl = runController({
      queue,
      synced: Promise.resolve(),
      reconcile: async (key) => {
        seen.push(key);
        return key === 'a' ? { requeueAfterMs: Math.min() } : undefined;
      },
    });
    ctl.errors$.subscribe((e) => errors.push(e));
    queue.add('a');
    queue.add('b');
    await until(() => seen.includes('b'), { what: 'b reconciled' });
    expect(seen.slice(0, 2)).toEqual(['a', 'b']);
    expect(errors.map(brief)[0]).toBe('a:0:invalid');
    expect((errors[0].error as Error).message).toMatch(/key "a" answered requeueAfterMs Infinity/);
    expect(await stopped(ctl)).toBe('stopped');
    expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0 });
  });
});

describe('runController, whatever throws between taking a key and done', () => {
  for (const [what, when] of [
    [
      'throws',
      () => {
        throw new Error('limiter broke');
      },
    ],
    ['answers NaN', () => Number.NaN],
  ] as const) {
    it(`should release a failed key whose rate limiter ${what}, report it dropped and go on`, () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const queue = new WorkQueue<string>({ scheduler: ts, rateLimiter: { when, forget: () => {}, numRequeues: () => 0 } });
        const work = (key: string) => (key === 'a' ? throwError(() => new Error('boom')) : timer(10));
        const { ctl, log } = virtualController(ts, { queue, work });
        const errors = recorded(ctl.errors$);
        queue.add('a');
        queue.add('b');
        expectObservable(log).toBe('(ab)');
        const limiterError = what === 'throws' ? 'limiter broke' : expect.stringMatching(/rate limiter answered NaN for key "a"/);
        const failures = errors.pipe(map((e) => ({ line: brief({ ...e, error: new Error('') }), error: (e.error as Error).message })));
        expectObservable(failures).toBe('(xy) 16ms |', {
          x: { line: 'a:0::dropped', error: 'boom' },
          y: { line: 'a:0::dropped', error: limiterError },
        });
        ts.schedule(() => {
          expect(queue.metrics()).toMatchObject({ depth: 0, processing: 0 });
          void ctl.stop();
        }, 20);
      });
    });
  }

  it("should release the key when a thenable's then throws, and settle once when one calls back twice", () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
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
      const work = (key: string) => (key in answers && tries++ < 2 ? answers[key]() : timer(10));
      const { ctl, log, queue } = virtualController(ts, { work: work as never });
      const errors = recorded(ctl.errors$);
      const metrics = recorded(ctl.metrics$);
      for (const key of 'abc') queue.add(key);
      // a fails (retried after 5 ms), b settles once, c holds the only worker until 10, then a again.
      expectObservable(log).toBe('(abc) 5ms a');
      expectObservable(errors.pipe(map(brief))).toBe('x 29ms |', { x: 'a:0:bad then' });
      expectObservable(
        metrics.pipe(
          map((m) => m.active),
          max(),
        ),
      ).toBe('30ms (1|)', { 1: 1 });
      expectObservable(metrics.pipe(last())).toBe('30ms (m|)', {
        m: { phase: 'stopped', active: 0, reconciled: 3, failed: 1, dropped: 0 },
      });
      ts.schedule(() => void ctl.stop(), 30);
    });
  });
});

describe('runController, reconciles that settle without I/O', () => {
  it('should let timers run between async reconciles that settle at once, however long they keep coming', async () => {
    const queue = new WorkQueue<string>();
    const LIMIT = 20_000;
    let n = 0;
    const ctl = runController({
      queue,
      synced: Promise.resolve(),
      reconcile: async () => (++n < LIMIT ? { requeueAfterMs: 0 } : undefined), // settles in a microtask, requeued at once
    });
    let atTimer = -1;
    setTimeout(() => {
      atTimer = n;
    }, 0);
    queue.add('a');
    await until(() => n >= LIMIT, { what: `${LIMIT} reconciles`, timeoutMs: 60_000 });
    // The timer ran while the key was still being requeued; before, only once all 20,000 were done.
    expect(atTimer).toBeGreaterThan(0);
    expect(atTimer).toBeLessThan(LIMIT);
    expect(await stopped(ctl)).toBe('stopped');
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

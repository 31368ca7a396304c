import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { exponentialFailureRateLimiter } from './rateLimiter.ts';
import { WorkQueue } from './workqueue.ts';
import { testScheduler } from '@rxinformer/testing';

/** Takes every key as it becomes available, reports it on `taken`, and calls `then(key)` (default: `done`). */
function consume<K>(queue: WorkQueue<K>, then: (key: K) => void = (k) => queue.done(k)): Subject<K> {
  const taken = new Subject<K>();
  const next = (): void => {
    queue.get$().subscribe({
      next: (key) => {
        taken.next(key);
        then(key);
        next();
      },
    });
  };
  next();
  return taken;
}

describe('WorkQueue', () => {
  describe('add', () => {
    it('should queue a key once however often it is added, in first-added order', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.add('b');
      q.add('a');
      expect(q.length).toBe(2);
      expect(await q.get()).toBe('a');
      expect(await q.get()).toBe('b');
      expect(q.metrics()).toMatchObject({ depth: 0, processing: 2, adds: 2 });
    });

    it('should not hand out a key being processed; one added meanwhile is queued once after done', async () => {
      const q = new WorkQueue();
      q.add('a');
      const key = await q.get();
      q.add('a');
      q.add('a');
      expect(q.length).toBe(0);
      let second: string | undefined;
      const pending = q.get().then((k) => {
        second = k;
        return k;
      });
      await Promise.resolve();
      expect(second).toBeUndefined(); // still waiting: 'a' is in progress
      q.done(key!);
      expect(await pending).toBe('a');
      expect(q.metrics()).toMatchObject({ depth: 0, processing: 1 });
    });

    it('should refuse undefined as a key', () => {
      expect(() => new WorkQueue<string | undefined>().add(undefined)).toThrow(InvalidOptionsError);
    });
  });

  describe('get$', () => {
    it('should hand a key added later to the worker that waited first, and withdraw a cancelled wait', () => {
      const q = new WorkQueue();
      const got: string[] = [];
      const first = q.get$().subscribe((k) => got.push(`1:${k}`));
      q.get$().subscribe((k) => got.push(`2:${k}`));
      first.unsubscribe();
      q.add('a');
      q.add('b');
      expect(got).toEqual(['2:a']);
      expect(q.length).toBe(1); // 'b' was not lost to the withdrawn wait
    });
  });

  describe('addAfter', () => {
    it('should keep the earliest delay of a key and ignore later ones, in virtual time', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const q = new WorkQueue({ scheduler: ts });
        q.addAfter('a', 50);
        q.addAfter('a', 20);
        q.addAfter('a', 80);
        q.addAfter('b', 0); // no delay: at once
        expectObservable(q.depth$).toBe('1 19ms 2', { 1: 1, 2: 2 });
        expect(q.metrics().delayed).toBe(1);
      });
    });

    it('should refuse a delay that is not a number', () => {
      expect(() => new WorkQueue().addAfter('a', Number.NaN)).toThrow(InvalidOptionsError);
    });
  });

  describe('addRateLimited', () => {
    it('should retry a failing key after 5, 10, 20, 40, 80 ms', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const q = new WorkQueue({ scheduler: ts });
        const taken = consume(q, (k) => {
          q.done(k);
          if (q.numRequeues(k) < 5) q.addRateLimited(k);
        });
        q.addRateLimited('a');
        expectObservable(taken).toBe('5ms a 9ms a 19ms a 39ms a 79ms a');
      });
    });

    it('should cap the per-key delay at maxDelayMs and start again from 5 ms after forget', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const q = new WorkQueue({ scheduler: ts, maxDelayMs: 12 });
        let n = 0;
        const taken = consume(q, (k) => {
          q.done(k);
          n++;
          if (n === 4) q.forget(k);
          if (n < 6) q.addRateLimited(k);
        });
        q.addRateLimited('a');
        // 5, +10, +12 (capped), +12, forget → +5, +10
        expectObservable(taken).toBe('5ms a 9ms a 11ms a 11ms a 4ms a 9ms a');
      });
    });

    it('should hold retries to the overall token bucket on top of the per-key delay', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const q = new WorkQueue({ scheduler: ts, qps: 1, burst: 2 });
        const taken = consume(q);
        q.addRateLimited('a');
        q.addRateLimited('b');
        q.addRateLimited('c'); // the bucket is empty: waits a full second
        ts.schedule(() => q.addRateLimited('d'), 5000); // refilled: only the per-key delay
        expectObservable(taken).toBe('5ms (ab) 991ms c 4004ms d');
      });
    });

    it('should refuse a delay of its own rate limiter that is NaN, Infinity or negative, naming the key, and queue nothing', () => {
      for (const bad of [Number.NaN, Infinity, -5]) {
        const q = new WorkQueue({ rateLimiter: { when: () => bad, forget: () => {}, numRequeues: () => 0 } });
        expect(() => q.addRateLimited('a')).toThrow(/the rate limiter answered (NaN|Infinity|-5) for key "a"/);
        expect(q.metrics()).toMatchObject({ depth: 0, delayed: 0, retries: 0 });
      }
    });

    it('should use a rate limiter given in the options', () => {
      const ts = testScheduler();
      ts.run(({ expectObservable }) => {
        const q = new WorkQueue({ scheduler: ts, rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 100 }) });
        q.addRateLimited('a');
        expectObservable(q.depth$).toBe('0 99ms 1', { 0: 0, 1: 1 });
      });
    });
  });

  describe('shutdown', () => {
    it('should drop waiting keys, cancel delays, release waiting workers and resolve once keys in progress are done', async () => {
      const q = new WorkQueue();
      q.add('busy');
      const busy = await q.get();
      q.add('busy'); // would be processed again, but the queue is stopping
      q.add('waiting');
      q.addAfter('later', 60_000);
      const idle = q.get$();
      let released = false;
      let stopped = false;
      q.shutdown().then(
        () => {
          stopped = true;
        },
        () => {},
      );
      expect(q.metrics()).toMatchObject({ depth: 0, delayed: 0, processing: 1 });
      idle.subscribe({
        complete: () => {
          released = true;
        },
      });
      expect(released).toBe(true);
      q.add('new');
      expect(q.length).toBe(0);
      await Promise.resolve();
      expect(stopped).toBe(false);
      q.done(busy!);
      await Promise.resolve();
      expect(stopped).toBe(true);
      expect(q.length).toBe(0);
      expect(await q.get()).toBeUndefined();
    });
  });

  it('should ignore and count every kind of add once shutting down, still refusing bad arguments', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const a = await q.get();
    const drained = q.shutDownWithDrain();
    q.add('b');
    q.add('a'); // being processed: not queued again either
    q.addAfter('c', 10);
    q.addAfter('d', 0);
    q.addRateLimited('e');
    expect(q.metrics()).toMatchObject({ depth: 0, delayed: 0, adds: 1, retries: 0, ignoredAfterShutdown: 5 });
    expect(() => q.add(undefined as never)).toThrow(InvalidOptionsError);
    expect(() => q.addAfter('f', Number.NaN)).toThrow(InvalidOptionsError);
    expect(() => q.addRateLimited(undefined as never)).toThrow(InvalidOptionsError);
    q.done(a!);
    await drained;
    expect(await q.get()).toBeUndefined();
    q.add('g');
    expect(q.metrics().ignoredAfterShutdown).toBe(6);
  });

  describe('shutDownWithDrain', () => {
    it('should hand out every key queued before it, and those re-queued by done, then resolve', async () => {
      const q = new WorkQueue();
      q.add('a');
      const a = await q.get();
      q.add('a'); // added while processing: must still be processed
      q.add('b');
      let stopped = false;
      void q.shutDownWithDrain().then(() => {
        stopped = true;
      });
      q.add('ignored');
      expect(await q.get()).toBe('b');
      q.done('b');
      q.done(a!);
      expect(await q.get()).toBe('a');
      await Promise.resolve();
      expect(stopped).toBe(false);
      q.done('a');
      await Promise.resolve();
      expect(stopped).toBe(true);
      expect(await q.get()).toBeUndefined();
    });

    it('should complete depth$ once drained', () =>
      testScheduler().run(({ expectObservable }) => {
        const q = new WorkQueue();
        q.add('a');
        void q.shutDownWithDrain();
        const key = q.get$();
        key.subscribe((k) => q.done(k));
        expectObservable(q.depth$).toBe('|');
      }));
  });

  describe('events$', () => {
    it('should report each step of a key: added, taken, done, retried; de-duplicated adds report nothing', async () => {
      const q = new WorkQueue<string>({ baseDelayMs: 0, maxDelayMs: 0, qps: 1000, burst: 1000 });
      const seen: string[] = [];
      q.events$.subscribe((e) => seen.push(`${e.type} ${e.key}`));
      q.add('a');
      q.add('a');
      const key = await q.get();
      q.add('a'); // while processing: waits until done
      q.done(key!);
      expect(await q.get()).toBe('a');
      q.addRateLimited('a');
      q.done('a');
      expect(seen).toEqual(['added a', 'taken a', 'added a', 'done a', 'taken a', 'retried a', 'added a', 'done a']);
    });

    it('should report a key handed straight to a waiting worker as taken', async () => {
      const q = new WorkQueue<string>();
      const seen: string[] = [];
      q.events$.subscribe((e) => seen.push(`${e.type} ${e.key}`));
      const next = q.get();
      q.add('b');
      expect(await next).toBe('b');
      expect(seen).toEqual(['added b', 'taken b']);
    });

    it('should complete once shut down and drained', async () => {
      const q = new WorkQueue<string>();
      let completed = false;
      q.events$.subscribe({ complete: () => (completed = true) });
      q.add('a');
      const key = await q.get();
      const drained = q.shutDownWithDrain();
      expect(completed).toBe(false);
      q.done(key!);
      await drained;
      expect(completed).toBe(true);
    });
  });

  describe('options', () => {
    it('should refuse invalid options with InvalidOptionsError at the call', () => {
      for (const bad of [
        { baseDelayMs: -1 },
        { maxDelayMs: Number.NaN },
        { baseDelayMs: 10, maxDelayMs: 1 },
        { qps: 0 },
        { qps: -5 },
        { burst: 0 },
        { qps: Infinity },
      ]) {
        expect(() => new WorkQueue(bad)).toThrow(InvalidOptionsError);
      }
      expect(() => new WorkQueue({ rateLimiter: exponentialFailureRateLimiter(), qps: 5 })).toThrow(/either rateLimiter or qps/);
      expect(() => new WorkQueue({ rateLimiter: {} as never })).toThrow(InvalidOptionsError);
      expect(() => new WorkQueue({ rateLimiter: { when: () => 0 } as never })).toThrow(InvalidOptionsError);
    });
  });
});

import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { runController } from './controller.ts';
import { InvalidOptionsError } from './errors.ts';
import { WorkQueue } from './workqueue.ts';

const settle = () => new Promise((r) => setTimeout(r, 0));
const until = async (done: () => boolean) => { for (let i = 0; i < 300 && !done(); i++) await settle(); };

describe('WorkQueue', () => {
  it('should queue a key once however often it is added', async () => {
    const q = new WorkQueue();
    q.add('a'); q.add('a'); q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('should process a key added while it is processing again after done, never twice at once', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a'); // while processing
    expect(q.length).toBe(0); // not handed out a second time meanwhile
    q.done(key!);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('should back off per key, 5 ms doubling to the cap, and forget on success', () => {
    const q = new WorkQueue({ maxDelayMs: 40, qps: 1e9, burst: 1e9 });
    expect([q.when('a'), q.when('a'), q.when('a'), q.when('a'), q.when('a')]).toEqual([5, 10, 20, 40, 40]);
    expect(q.when('b')).toBe(5);
    expect(q.numRequeues('a')).toBe(5);
    q.forget('a');
    expect(q.when('a')).toBe(5);
  });

  it('should apply the overall token bucket on top of the per-key delay, in virtual time', () => {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    scheduler.run(({ flush }) => {
      const q = new WorkQueue({ qps: 1, burst: 2, scheduler });
      const seen: [string, number][] = [];
      const origAdd = q.add.bind(q);
      q.add = (k: string) => { seen.push([k, scheduler.now()]); origAdd(k); };
      q.addRateLimited('a');
      q.addRateLimited('b');
      q.addRateLimited('c'); // bucket empty: waits a full second
      flush();
      expect(seen).toEqual([['a', 5], ['b', 5], ['c', 1000]]);
    });
  });

  it('should cancel delayed adds and hand undefined to waiting workers on shutdown', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.addAfter('x', 60_000);
    await q.shutdown();
    expect(await waiting).toBeUndefined();
    q.add('y');
    expect(q.length).toBe(0);
  });

  it('should refuse invalid options', () => {
    expect(() => new WorkQueue({ baseDelayMs: -1 })).toThrow(InvalidOptionsError);
    expect(() => new WorkQueue({ qps: 0 })).toThrow(InvalidOptionsError);
    expect(() => runController({ reconcile: () => {}, synced: Promise.resolve(), concurrency: 0 })).toThrow(InvalidOptionsError);
  });
});

describe('runController', () => {
  it('should start only after sync, respect the concurrency limit, never run one key twice at once, and drain on stop', async () => {
    const synced = new Subject<boolean>();
    const queue = new WorkQueue<string>({ qps: 1e9, burst: 1e9 });
    const active = new Set<string>();
    let maxActive = 0;
    let overlap = false;
    const done: string[] = [];
    const ctl = runController({
      queue, synced, concurrency: 2,
      reconcile: async (key) => {
        if (active.has(key)) overlap = true;
        active.add(key);
        maxActive = Math.max(maxActive, active.size);
        await settle();
        active.delete(key);
        done.push(key);
      },
    });
    for (const k of ['a', 'b', 'c', 'a']) queue.add(k);
    await settle();
    expect(done).toEqual([]); // not synced yet
    synced.next(false);
    synced.next(true);
    queue.add('a'); // may land while 'a' is in progress: processed again afterwards
    await until(() => done.length >= 3);
    await ctl.stop();
    expect(overlap).toBe(false);
    expect(maxActive).toBeLessThanOrEqual(2);
    expect(done.slice(0, 3).sort()).toEqual(['a', 'b', 'c']);
    expect(queue.length).toBe(0);
  });

  it('should retry a failing key with backoff, forget it on success, and drop it after maxRetries', async () => {
    const queue = new WorkQueue<string>({ baseDelayMs: 1, qps: 1e9, burst: 1e9 });
    const attempts: Record<string, number> = {};
    const errors: string[] = [];
    const ctl = runController({
      queue, synced: Promise.resolve(), maxRetries: 3,
      onError: (key, _e, retries) => errors.push(`${key}:${retries}`),
      reconcile: (key) => { attempts[key] = (attempts[key] ?? 0) + 1; if (key === 'bad' || attempts[key] < 3) throw new Error('not yet'); },
    });
    queue.add('flaky');
    queue.add('bad');
    await until(() => attempts.flaky === 3 && attempts.bad === 4);
    await until(() => queue.numRequeues('bad') === 0);
    await ctl.stop();
    expect(attempts).toEqual({ flaky: 3, bad: 4 });
    expect(queue.numRequeues('flaky')).toBe(0);
    expect(errors.filter((e) => e.startsWith('bad'))).toEqual(['bad:0', 'bad:1', 'bad:2', 'bad:3']);
  });

  it('should stop cleanly before sync ever happened', async () => {
    const ctl = runController({ reconcile: () => {}, synced: new Subject<boolean>() });
    await ctl.stop();
  });
});

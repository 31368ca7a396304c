import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { flushTo, testScheduler } from '@rxinformer/testing';
import { InvalidOptionsError } from '../errors.ts';
import { PriorityFifo } from './priorityFifo.ts';
import { WorkQueue } from './workqueue.ts';

/** Takes every waiting key, in the order the queue hands them out, marking each done. */
async function drain(queue: WorkQueue<string>): Promise<string[]> {
  const taken: string[] = [];
  while (queue.length > 0) {
    const key = (await queue.get())!;
    taken.push(key);
    queue.done(key);
  }
  return taken;
}

describe('WorkQueue priorities', () => {
  it('should hand out higher priorities first, first-in first-out within one', async () => {
    const queue = new WorkQueue<string>();
    queue.add('low1', -100);
    queue.add('a');
    queue.add('low2', -100);
    queue.add('urgent', 10);
    queue.add('b');
    expect(await drain(queue)).toEqual(['urgent', 'a', 'b', 'low1', 'low2']);
  });

  it('should raise a waiting key added again with a higher priority, and never lower it', async () => {
    const queue = new WorkQueue<string>();
    queue.add('x', -100);
    queue.add('y', -100);
    queue.add('a');
    queue.add('y'); // a real change of y overtakes x's initial listing
    queue.add('a', -100); // no lowering
    expect(queue.metrics().adds).toBe(3);
    expect(queue.length).toBe(3);
    expect(await drain(queue)).toEqual(['a', 'y', 'x']);
  });

  it('should requeue a key raised while in work at the raised priority', async () => {
    const queue = new WorkQueue<string>();
    queue.add('k', -100);
    const k = (await queue.get())!;
    queue.add('k', -100);
    queue.add('other');
    queue.add('k', 5); // raised while in work
    queue.done(k);
    expect(await drain(queue)).toEqual(['k', 'other']);
  });

  it('should keep the higher priority of merged delayed adds', async () => {
    const scheduler = new VirtualTimeScheduler();
    const queue = new WorkQueue<string>({ scheduler });
    queue.addAfter('d', 100, -100);
    queue.addAfter('d', 200, 0); // later: merged into the earlier delay, raising it
    queue.add('plain', -50);
    scheduler.flush();
    expect(await drain(queue)).toEqual(['d', 'plain']);
  });

  /** Takes the waiting key a worker would get now (none waits: a test error). */
  const take = (queue: WorkQueue<string>): string => {
    let key: string | undefined;
    queue.get$().subscribe((k) => (key = k));
    if (key === undefined) throw new Error('no key waits');
    return key;
  };

  it('should retry a failed key at the priority it was handed out at, low or high, in virtual time', async () => {
    const ts = testScheduler();
    const queue = new WorkQueue<string>({ scheduler: ts, baseDelayMs: 10 });
    queue.add('listed', -100);
    queue.add('urgent', 10);
    for (const key of [take(queue), take(queue)]) {
      queue.addRateLimited(key); // failed: back in 10 ms
      queue.done(key);
    }
    queue.add('peer', -100); // listed before the retries come back
    queue.add('change');
    flushTo(ts, 10);
    expect(queue.metrics()).toMatchObject({ delayed: 0, retries: 2 });
    // The urgent retry before the real change, the listed one behind its peer.
    expect(await drain(queue)).toEqual(['urgent', 'change', 'peer', 'listed']);
  });

  it('should requeue after a delay at the priority handed out at, unless told another; 0 for a key not in work', async () => {
    const ts = testScheduler();
    const queue = new WorkQueue<string>({ scheduler: ts });
    queue.add('low', -100);
    queue.add('raised', -100);
    const [low, raised] = [take(queue), take(queue)];
    queue.addAfter(low, 5); // requeueAfterMs keeps its class
    queue.addRateLimited(raised, 20); // an explicit priority wins
    queue.addAfter('idle', 5); // not in work: 0
    queue.done(low);
    queue.done(raised);
    queue.add('change');
    flushTo(ts, 5);
    expect(queue.metrics().delayed).toBe(0);
    expect(await drain(queue)).toEqual(['raised', 'change', 'idle', 'low']);
  });

  it('should refuse a bad priority of a delayed or rate-limited add at once, before the limiter counts it', () => {
    const queue = new WorkQueue<string>({ scheduler: testScheduler() });
    expect(() => queue.addAfter('a', 5, Number.NaN)).toThrow(InvalidOptionsError);
    expect(() => queue.addRateLimited('a', Infinity)).toThrow(InvalidOptionsError);
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.metrics()).toMatchObject({ delayed: 0, retries: 0 });
  });

  it('should refuse a priority that is not a finite number', () => {
    const queue = new WorkQueue<string>();
    expect(() => queue.add('a', Number.NaN)).toThrow(InvalidOptionsError);
    expect(() => queue.add('a', Infinity)).toThrow(InvalidOptionsError);
  });

  it('should keep a key once in a PriorityFifo however often it moves up, and compact long lanes', () => {
    const fifo = new PriorityFifo<number>();
    for (let i = 0; i < 3000; i++) fifo.push(i, -1);
    for (let i = 0; i < 3000; i += 2) fifo.push(i, 1);
    expect(fifo.size).toBe(3000);
    const out: number[] = [];
    for (let k = fifo.shift(); k !== undefined; k = fifo.shift()) out.push(k);
    expect(out.slice(0, 3)).toEqual([0, 2, 4]);
    expect(out.slice(1500, 1503)).toEqual([1, 3, 5]);
    expect(new Set(out).size).toBe(3000);
    expect(fifo.size).toBe(0);
  });
});

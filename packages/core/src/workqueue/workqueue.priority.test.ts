import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
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

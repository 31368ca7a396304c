import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors.ts';
import { flushTo, testScheduler } from '@rxinformer/testing';
import { WorkQueue } from './workqueue.ts';
import type { HoldEnd } from './keyWaits.ts';

/** A queue on virtual time; `addedAt` records each key as it starts waiting, with the virtual ms. */
function setup() {
  const ts = testScheduler();
  const queue = new WorkQueue<string>({ scheduler: ts });
  const addedAt: string[] = [];
  queue.events$.subscribe((e) => e.type === 'added' && addedAt.push(`${e.key}@${ts.now()}`));
  /** Runs what is due up to `ms`. */
  const advanceTo = (ms: number) => {
    ts.schedule(() => undefined, ms - ts.now());
    flushTo(ts, ms);
  };
  return { ts, queue, addedAt, advanceTo };
}

describe('WorkQueue debounce', () => {
  it('should queue a key changed several times within the quiet time once, after its last change', () => {
    const { queue, addedAt, advanceTo } = setup();
    queue.addDebounced('a', 100);
    queue.addDebounced('b', 100);
    advanceTo(50);
    queue.addDebounced('a', 100);
    expect(queue.waitOf('a')).toEqual({ reason: 'debounce', at: 150 });
    advanceTo(120);
    queue.addDebounced('a', 100);
    advanceTo(500);
    expect(addedAt).toEqual(['b@100', 'a@220']);
  });

  it('should queue at the highest priority any change asked for, and at once with no quiet time', async () => {
    const { queue, advanceTo } = setup();
    queue.addDebounced('listed', 10, -100);
    queue.addDebounced('changed', 10, -100);
    queue.addDebounced('changed', 10, 0); // a real change during the quiet time of its initial listing
    expect(queue.metrics().delayed).toBe(2);
    advanceTo(10);
    expect([await queue.get(), await queue.get()]).toEqual(['changed', 'listed']);
    queue.addDebounced('now', 0);
    expect(queue.length).toBe(1);
  });

  it("should keep a sooner retry's time, and raise a key already waiting instead of delaying it", async () => {
    const { queue, advanceTo, addedAt } = setup();
    queue.addAfter('retried', 20);
    queue.addDebounced('retried', 100); // the retry at 20 sees this change too
    expect(queue.waitOf('retried')).toEqual({ reason: 'requeueAfter', at: 20 });
    queue.add('waiting', -100);
    queue.addDebounced('waiting', 100, 5);
    expect([queue.waitOf('waiting'), queue.length]).toEqual([undefined, 1]);
    advanceTo(200);
    expect(addedAt).toEqual(['waiting@0', 'retried@20']);
    expect([await queue.get(), await queue.get()]).toEqual(['waiting', 'retried']);
  });

  it('should queue the keys still in their quiet time at once on a draining shutdown, and drop them on shutdown', async () => {
    const drained = setup();
    drained.queue.addDebounced('a', 10);
    const done = drained.queue.shutDownWithDrain();
    expect(await drained.queue.get()).toBe('a');
    drained.queue.done('a');
    await done;
    const dropped = setup();
    dropped.queue.addDebounced('a', 10);
    await dropped.queue.shutdown();
    dropped.advanceTo(50);
    expect([dropped.addedAt, dropped.queue.metrics().delayed]).toEqual([[], 0]);
  });

  it('should refuse a delay or priority that is not a finite number', () => {
    const { queue } = setup();
    expect(() => queue.addDebounced('a', NaN)).toThrow(InvalidOptionsError);
    expect(() => queue.addDebounced('a', 10, Infinity)).toThrow(InvalidOptionsError);
  });
});

describe('WorkQueue hold', () => {
  it('should hand out no held key, put off its adds, and queue it once when released, at the highest priority asked', async () => {
    const { queue, ts, advanceTo } = setup();
    const ends: HoldEnd[] = [];
    let putOff = 0;
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a', -100); // an event during the reconcile
    queue.hold('a', 1000, { putOff: () => putOff++, ended: (e) => ends.push(e) });
    queue.done('a'); // the reconcile ended: its writes not shown yet
    expect([queue.length, queue.metrics().held, putOff]).toEqual([0, 1, 1]);
    advanceTo(30);
    queue.add('a', 5); // another event, or a requeue's delay ending
    queue.addAfter('a', 10);
    advanceTo(60);
    expect([queue.length, queue.waitOf('a'), putOff]).toEqual([0, { reason: 'hold', at: 1000 }, 1]);
    queue.release('a');
    expect([queue.length, queue.metrics().held]).toEqual([1, 0]);
    expect(ends).toEqual([{ how: 'released', putOffAt: 0 }]);
    expect(ts.now()).toBe(60);
    queue.add('b', 0);
    expect([await queue.get(), await queue.get()]).toEqual(['a', 'b']); // at 5, its highest priority
  });

  it('should queue a held key when its hold times out, telling how it ended', async () => {
    const { queue, advanceTo, addedAt } = setup();
    const ends: HoldEnd[] = [];
    queue.hold('a', 100, { ended: (e) => ends.push(e) });
    advanceTo(40);
    queue.add('a');
    advanceTo(99);
    expect(addedAt).toEqual([]);
    advanceTo(100);
    expect(addedAt).toEqual(['a@100']);
    expect(ends).toEqual([{ how: 'expired', putOffAt: 40 }]);
    queue.release('a'); // not held any more: nothing
    expect(ends).toHaveLength(1);
  });

  it('should queue nothing at the end of a hold that put nothing off, and move a waiting key under a new hold', async () => {
    const { queue, advanceTo, addedAt } = setup();
    queue.hold('quiet', 10);
    advanceTo(20);
    queue.add('waiting');
    queue.hold('waiting', 10);
    expect(queue.length).toBe(0);
    advanceTo(40);
    expect(addedAt).toEqual(['waiting@20', 'waiting@30']);
    expect(await queue.get()).toBe('waiting');
  });

  it('should drop holds and what they put off on shutdown, telling no one', async () => {
    const { queue, advanceTo } = setup();
    const ends: HoldEnd[] = [];
    queue.hold('a', 100, { ended: (e) => ends.push(e) });
    queue.add('a');
    await queue.shutdown();
    advanceTo(200);
    expect([ends, queue.metrics().held, queue.length]).toEqual([[], 0, 0]);
    queue.hold('b', 100); // ignored once shutting down
    expect(queue.metrics().held).toBe(0);
  });

  it('should refuse a timeout that is not a finite number above 0', () => {
    const { queue } = setup();
    for (const bad of [0, -1, NaN, Infinity]) expect(() => queue.hold('a', bad)).toThrow(InvalidOptionsError);
  });
});

import { describe, expect, it } from '@jest/globals';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { testScheduler } from '@rxinformer/testing';
import { Debouncer } from './debounce.ts';
import { LOW_PRIORITY } from './sources.ts';

describe('Debouncer', () => {
  it('should add a key changed several times within the quiet time once, after its last change', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const queue = new WorkQueue<string>({ scheduler: ts });
      const debouncer = new Debouncer(queue, 100, ts);
      // a changes at 0, 50, 120 (each within 100 ms of the last): queued once at 220. b once at 100.
      cold('a 49ms a 69ms a').subscribe((k) => debouncer.push(k, 0));
      cold('b').subscribe((k) => debouncer.push(k, 0));
      const added = queue.events$;
      expectObservable(added, '^ 500ms !').toBe('100ms b 119ms a', { a: { type: 'added', key: 'a' }, b: { type: 'added', key: 'b' } });
    });
  });

  it('should queue at the highest priority any change asked for, and add at once with no quiet time', async () => {
    const ts = testScheduler();
    const queue = new WorkQueue<string>({ scheduler: ts });
    const debouncer = new Debouncer(queue, 10, ts);
    debouncer.push('listed', LOW_PRIORITY);
    debouncer.push('changed', LOW_PRIORITY);
    debouncer.push('changed', 0); // a real change during the quiet time of its initial listing
    expect(debouncer.pending).toBe(2);
    ts.flush();
    expect([await queue.get(), await queue.get()]).toEqual(['changed', 'listed']);
    new Debouncer(queue, 0, ts).push('now', 0);
    expect(queue.length).toBe(1);
  });

  it('should add the keys still waiting at once when flushed', () => {
    const ts = testScheduler();
    const queue = new WorkQueue<string>({ scheduler: ts });
    const debouncer = new Debouncer(queue, 10, ts);
    debouncer.push('a', LOW_PRIORITY);
    debouncer.push('b', 0);
    debouncer.flush();
    expect([queue.length, debouncer.pending]).toEqual([2, 0]);
    ts.flush();
    expect(queue.metrics().adds).toBe(2);
  });

  it('should drop the keys still waiting when cancelled', () => {
    const ts = testScheduler();
    const queue = new WorkQueue<string>({ scheduler: ts });
    const debouncer = new Debouncer(queue, 10, ts);
    debouncer.push('a', 0);
    debouncer.cancel();
    ts.flush();
    expect([queue.length, debouncer.pending]).toEqual([0, 0]);
  });
});

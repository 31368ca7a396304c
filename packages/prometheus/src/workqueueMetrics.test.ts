import { describe, expect, it } from '@jest/globals';
import { Counter, Registry } from 'prom-client';
import { VirtualTimeScheduler } from 'rxjs';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { MetricConflictError } from './errors.ts';
import { WORKQUEUE_METRICS, workqueueMetrics } from './workqueueMetrics.ts';

/** A queue on virtual time, its metrics in a registry of their own, and a way to move the clock. */
function setup(name = 'ctrl') {
  const scheduler = new VirtualTimeScheduler();
  const registry = new Registry();
  const queue = new WorkQueue<string>({ scheduler });
  const metrics = workqueueMetrics(queue, { name, registry, scheduler });
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.flush();
  };
  const scrape = async () => parseExposition(await registry.metrics());
  return { scheduler, registry, queue, metrics, advance, scrape };
}

describe('workqueueMetrics', () => {
  it("should expose client-go's seven workqueue metrics with their types and the name label", async () => {
    const { scrape } = setup();
    const e = await scrape();
    expect(Object.fromEntries([...e.families].map(([n, f]) => [n, f.type]))).toEqual({
      workqueue_depth: 'gauge',
      workqueue_adds_total: 'counter',
      workqueue_queue_duration_seconds: 'histogram',
      workqueue_work_duration_seconds: 'histogram',
      workqueue_unfinished_work_seconds: 'gauge',
      workqueue_longest_running_processor_seconds: 'gauge',
      workqueue_retries_total: 'counter',
    });
    expect([...e.families.keys()].sort()).toEqual([...WORKQUEUE_METRICS].sort());
    expect(sampleValue(e, 'workqueue_depth', { name: 'ctrl' })).toBe(0);
  });

  it('should time keys in the queue and in work, and report work in progress, on the queue clock', async () => {
    const { queue, advance, scrape } = setup();
    queue.add('a');
    queue.add('b');
    queue.add('a'); // de-duplicated: not an add
    advance(2_000);
    const a = await queue.get(); // waited 2 s
    advance(500);
    queue.done(a!); // worked 0.5 s
    const b = await queue.get(); // waited 2.5 s
    advance(3_000); // b in work for 3 s
    queue.add('c');
    queue.addRateLimited('d'); // a retry, delayed
    const e = await scrape();
    const name = { name: 'ctrl' };
    expect(b).toBe('b');
    expect(sampleValue(e, 'workqueue_depth', name)).toBe(1); // c
    expect(sampleValue(e, 'workqueue_adds_total', name)).toBe(3); // a, b, c
    expect(sampleValue(e, 'workqueue_retries_total', name)).toBe(1);
    expect(sampleValue(e, 'workqueue_queue_duration_seconds_count', name)).toBe(2);
    expect(sampleValue(e, 'workqueue_queue_duration_seconds_sum', name)).toBeCloseTo(4.5);
    expect(sampleValue(e, 'workqueue_queue_duration_seconds_bucket', { ...name, le: '1' })).toBe(0);
    expect(sampleValue(e, 'workqueue_queue_duration_seconds_bucket', { ...name, le: '10' })).toBe(2);
    expect(sampleValue(e, 'workqueue_work_duration_seconds_count', name)).toBe(1);
    expect(sampleValue(e, 'workqueue_work_duration_seconds_sum', name)).toBeCloseTo(0.5);
    expect(sampleValue(e, 'workqueue_unfinished_work_seconds', name)).toBeCloseTo(3);
    expect(sampleValue(e, 'workqueue_longest_running_processor_seconds', name)).toBeCloseTo(3);
  });

  it('should time a key added while in work from that add, as client-go does', async () => {
    const { queue, advance, scrape } = setup();
    queue.add('a');
    const a = await queue.get();
    advance(1_000);
    queue.add('a'); // waits until done
    advance(1_000);
    queue.done(a!);
    await queue.get(); // waited 1 s since its add
    const e = await scrape();
    expect(sampleValue(e, 'workqueue_queue_duration_seconds_sum', { name: 'ctrl' })).toBeCloseTo(1);
  });

  it('should share the families between the queues of one registry, one series per name', async () => {
    const { registry, scheduler, queue, scrape } = setup('first');
    const second = new WorkQueue<string>({ scheduler });
    workqueueMetrics(second, { name: 'second', registry, scheduler });
    queue.add('x');
    second.add('y');
    second.add('z');
    const e = await scrape();
    expect(sampleValue(e, 'workqueue_depth', { name: 'first' })).toBe(1);
    expect(sampleValue(e, 'workqueue_depth', { name: 'second' })).toBe(2);
  });

  it('should refuse a name already fed in the registry with MetricConflictError, and take it again once unregistered', async () => {
    const { registry, scheduler, metrics, scrape } = setup('ctrl');
    const other = new WorkQueue<string>({ scheduler });
    expect(() => workqueueMetrics(other, { name: 'ctrl', registry, scheduler })).toThrow(
      expect.objectContaining({ name: 'MetricConflictError', reason: 'DuplicateSource' }),
    );
    metrics.unregister();
    metrics.unregister(); // idempotent
    expect(hasSample(await scrape(), 'workqueue_depth', { name: 'ctrl' })).toBe(false);
    other.add('k');
    workqueueMetrics(other, { name: 'ctrl', registry, scheduler });
    expect(sampleValue(await scrape(), 'workqueue_depth', { name: 'ctrl' })).toBe(1);
  });

  it('should refuse a registry holding a foreign metric of one of its names, registering none', () => {
    const registry = new Registry();
    new Counter({ name: 'workqueue_adds_total', help: 'someone else', registers: [registry] });
    const error = (() => {
      try {
        workqueueMetrics(new WorkQueue(), { name: 'q', registry });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MetricConflictError);
    expect(error).toMatchObject({ reason: 'MetricConflict', metric: 'workqueue_adds_total' });
    expect(registry.getSingleMetric('workqueue_depth')).toBeUndefined();
  });

  it('should make the families anew after the registry was cleared', async () => {
    const { registry, scheduler, scrape } = setup('ctrl');
    registry.clear();
    const queue = new WorkQueue<string>({ scheduler });
    queue.add('a');
    workqueueMetrics(queue, { name: 'ctrl', registry, scheduler });
    expect(sampleValue(await scrape(), 'workqueue_depth', { name: 'ctrl' })).toBe(1);
  });

  it('should refuse what is not a queue, and an empty name', () => {
    expect(() => workqueueMetrics({} as never, { name: 'q', registry: new Registry() })).toThrow(/needs a WorkQueue/);
    expect(() => workqueueMetrics(new WorkQueue(), { name: '', registry: new Registry() })).toThrow(/name must be a non-empty string/);
  });
});

import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { BehaviorSubject } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { WorkQueue } from '@rxinformer/core/workqueue';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { controllerWorkqueueMetrics } from './controllerMetrics.ts';
import { MetricConflictError } from './errors.ts';
import { workqueueMetrics } from './workqueueMetrics.ts';

describe('controllerWorkqueueMetrics', () => {
  it("should register each term's queue under the controller's name and remove it when the term stops", async () => {
    const registry = new Registry();
    const queue$ = new BehaviorSubject<WorkQueue<string> | undefined>(undefined);
    const metrics = controllerWorkqueueMetrics({ name: 'replicator', queue$ }, { registry });
    const scrape = async () => parseExposition(await registry.metrics());
    const name = { name: 'replicator' };
    expect(hasSample(await scrape(), 'workqueue_adds_total', name)).toBe(false); // stopped: no series
    const first = new WorkQueue<string>();
    queue$.next(first);
    first.add('a');
    first.add('b');
    expect(sampleValue(await scrape(), 'workqueue_adds_total', name)).toBe(2);
    queue$.next(undefined); // the term stopped
    expect(hasSample(await scrape(), 'workqueue_adds_total', name)).toBe(false);
    const second = new WorkQueue<string>(); // a new leadership term counts its own adds
    queue$.next(second);
    second.add('c');
    expect(sampleValue(await scrape(), 'workqueue_adds_total', name)).toBe(1);
    metrics.unregister();
    metrics.unregister();
    expect(hasSample(await scrape(), 'workqueue_depth', name)).toBe(false);
    queue$.next(new WorkQueue<string>()); // no longer followed
    expect(hasSample(await scrape(), 'workqueue_depth', name)).toBe(false);
  });

  it('should refuse what is not a controller, and a running queue whose name is taken', () => {
    const registry = new Registry();
    expect(() => controllerWorkqueueMetrics({ name: 'x' } as never, { registry })).toThrow(InvalidOptionsError);
    const taken = workqueueMetrics(new WorkQueue<string>(), { name: 'x', registry });
    const queue$ = new BehaviorSubject<WorkQueue<string> | undefined>(new WorkQueue<string>());
    expect(() => controllerWorkqueueMetrics({ name: 'x', queue$ }, { registry })).toThrow(MetricConflictError);
    expect(queue$.observed).toBe(false);
    taken.unregister();
  });
});

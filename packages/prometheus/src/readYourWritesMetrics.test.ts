import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { InvalidOptionsError } from '@rxinformer/core';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { MetricConflictError } from './errors.ts';
import { controllerReadYourWritesMetrics, type ReadYourWritesCounts } from './readYourWritesMetrics.ts';

describe('controllerReadYourWritesMetrics', () => {
  it("should expose the controller's counts at each scrape under its name, until unregistered", async () => {
    const registry = new Registry();
    const counts: ReadYourWritesCounts = { holds: 3, released: 2, timeouts: 1, heldMs: 1500, pending: 4 };
    const metrics = controllerReadYourWritesMetrics({ name: 'replicator', readYourWritesStats: () => counts }, { registry });
    const scrape = async () => parseExposition(await registry.metrics());
    const name = { name: 'replicator' };
    let samples = await scrape();
    expect(
      [
        'controller_read_your_writes_holds_total',
        'controller_read_your_writes_released_total',
        'controller_read_your_writes_timeouts_total',
        'controller_read_your_writes_held_seconds_total',
        'controller_read_your_writes_pending_keys',
      ].map((m) => sampleValue(samples, m, name)),
    ).toEqual([3, 2, 1, 1.5, 4]);
    Object.assign(counts, { holds: 5 });
    samples = await scrape();
    expect(sampleValue(samples, 'controller_read_your_writes_holds_total', name)).toBe(5);
    metrics.unregister();
    metrics.unregister();
    expect(hasSample(await scrape(), 'controller_read_your_writes_holds_total', name)).toBe(false);
  });

  it('should refuse what is not a controller, and a name already registered', () => {
    const registry = new Registry();
    expect(() => controllerReadYourWritesMetrics({ name: 'x' } as never, { registry })).toThrow(InvalidOptionsError);
    const stats = () => ({ holds: 0, released: 0, timeouts: 0, heldMs: 0, pending: 0 });
    controllerReadYourWritesMetrics({ name: 'x', readYourWritesStats: stats }, { registry });
    expect(() => controllerReadYourWritesMetrics({ name: 'x', readYourWritesStats: stats }, { registry })).toThrow(MetricConflictError);
  });
});

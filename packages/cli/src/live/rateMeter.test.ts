import { describe, expect, it } from '@jest/globals';
import { createRateMeter } from './rateMeter.ts';
import { testScheduler } from '@rxinformer/testing';

describe('createRateMeter', () => {
  const scheduler = () => testScheduler();

  it('should average over the time since creation while it is shorter than the window', () => {
    const ts = scheduler();
    ts.run(() => {
      const meter = createRateMeter({ scheduler: ts, windowMs: 5000, bucketMs: 250 });
      ts.schedule(() => meter.mark(10), 100);
      let rate = -1;
      ts.schedule(() => {
        rate = meter.perSecond();
      }, 2000);
      ts.flush();
      expect(rate).toBeCloseTo(5, 5); // 10 events in 2 s
      expect(meter.total).toBe(10);
    });
  });

  it('should forget marks older than the window', () => {
    const ts = scheduler();
    ts.run(() => {
      const meter = createRateMeter({ scheduler: ts, windowMs: 1000, bucketMs: 100 });
      for (let t = 0; t < 3000; t += 10) ts.schedule(() => meter.mark(), t); // 100 events/s for 3 s
      const rates: number[] = [];
      ts.schedule(() => rates.push(meter.perSecond()), 2995);
      ts.schedule(() => rates.push(meter.perSecond()), 5000);
      ts.flush();
      expect(rates[0]).toBeGreaterThan(95);
      expect(rates[0]).toBeLessThan(105);
      expect(rates[1]).toBe(0); // nothing in the last second
      expect(meter.total).toBe(300);
    });
  });

  it('should report 0 before any time has passed', () => {
    const ts = scheduler();
    ts.run(() => {
      const meter = createRateMeter({ scheduler: ts });
      meter.mark();
      expect(meter.perSecond()).toBe(0);
    });
  });
});

import { describe, expect, it } from '@jest/globals';
import type { ServedLoop } from '../bench/applyCost.ts';
import { startChildServer } from '../bench/childRun.ts';
import { updatedPodLine, updatedPodLines } from '../bench/core.bench.ts';

// The parts of the core benchmark that must be right for its figures to mean anything. No timings
// are asserted: the benchmark itself measures.

describe('updatedPodLines', () => {
  it('should build exactly the lines updatedPodLine builds', () => {
    const line = updatedPodLines();
    for (const [i, serial, rv] of [
      [0, 1, 2],
      [7, 86_401, 123_456],
      [99_999, 5, 10],
      [7, 2, 3],
    ]) {
      expect(line(i, serial, rv)).toBe(updatedPodLine(i, serial, rv));
    }
  });
});

describe('startChildServer', () => {
  it('should run rounds of applyCost in a child that answers each request', async () => {
    const child = await startChildServer('applyCost.ts', ['--serve', '200'], { timeoutMs: 60_000 });
    try {
      const first = await child.ask<ServedLoop>({ round: 0 });
      const second = await child.ask<ServedLoop>({ round: 1 });
      for (const cost of [first, second]) {
        expect(cost.cpuNs).toBeGreaterThan(0);
        expect(cost.wallNs).toBeGreaterThan(0);
        expect(cost.idleCpuNs).toBeGreaterThanOrEqual(0);
      }
    } finally {
      child.close();
    }
  }, 60_000);

  it('should reject when the child dies instead of answering', async () => {
    await expect(startChildServer('applyCost.ts', ['--serve', 'not-a-number'], { timeoutMs: 60_000 })).rejects.toThrow(
      /applyCost\.ts --serve not-a-number/,
    );
  }, 60_000);
});

import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors.ts';
import { nextBackoff, resolveBackoff, type BackoffState } from './backoff.ts';

/** The delays of `n` failures in a row, with no success between them. */
function delays(n: number, options = resolveBackoff(), random = () => 1): number[] {
  let state: BackoffState = { failures: 0 };
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const next = nextBackoff(state, new Error('x'), 0, options, random);
    out.push(next.delayMs);
    state = next.state;
  }
  return out;
}

describe('nextBackoff', () => {
  it('should double from initialMs to maxMs, with the jitter on top', () => {
    expect(delays(8, resolveBackoff(), () => 0)).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    expect(delays(2, resolveBackoff(), () => 1)).toEqual([1200, 2400]);
  });

  it('should stay finite after thousands of failures, even with initialMs 0 (0 × Infinity)', () => {
    const many = delays(2000, resolveBackoff());
    expect(many.every(Number.isFinite)).toBe(true);
    expect(many.at(-1)).toBe(45_000);
    const zero = delays(2000, resolveBackoff({ initialMs: 0 }));
    expect(zero.every((d) => d === 0)).toBe(true);
  });

  it('should refuse a jitter above 1, which could make the delay infinite', () => {
    expect(() => resolveBackoff({ jitter: 1e308 })).toThrow(InvalidOptionsError);
    expect(() => resolveBackoff({ jitter: 1 })).not.toThrow();
  });
});

import { describe, expect, it } from '@jest/globals';
import { formatAge, humanDuration } from './age.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it('should print ages as kubectl does, two units while the larger is small', () => {
    const cases: [number, string][] = [
      [-5 * s, '0s'],
      [0, '0s'],
      [45 * s, '45s'],
      [119 * s, '119s'],
      [2 * m, '2m'],
      [3 * m + 12 * s, '3m12s'],
      [10 * m, '10m'],
      [179 * m, '179m'],
      [3 * h, '3h'],
      [5 * h + 4 * m, '5h4m'],
      [8 * h + 4 * m, '8h'],
      [47 * h, '47h'],
      [2 * d, '2d'],
      [3 * d + 5 * h, '3d5h'],
      [8 * d + 5 * h, '8d'],
      [729 * d, '729d'],
      [730 * d, '2y'],
      [2 * 365 * d + 10 * d, '2y10d'],
      [8 * 365 * d + 3 * d, '8y'],
    ];
    for (const [ms, text] of cases) expect([ms, humanDuration(ms)]).toEqual([ms, text]);
  });
});

describe('formatAge', () => {
  it('should give the age of a timestamp, or <unknown> without a valid one', () => {
    expect(formatAge('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:03:12Z'))).toBe('3m12s');
    expect(formatAge(new Date(0), 26 * h)).toBe('26h');
    expect(formatAge(undefined, 0)).toBe('<unknown>');
    expect(formatAge('yesterday', 0)).toBe('<unknown>');
  });
});

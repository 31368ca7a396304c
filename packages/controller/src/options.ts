/** Checks of options, thrown synchronously as core's `InvalidOptionsError`. */
import { InvalidOptionsError } from '@rxinformer/core';

/** Throws unless `value` is undefined or an RxJS scheduler (has `now()` and `schedule()`). */
export function checkScheduler(value: unknown): void {
  const s = value as { now?: unknown; schedule?: unknown } | null;
  if (value !== undefined && (typeof s?.now !== 'function' || typeof s.schedule !== 'function'))
    throw new InvalidOptionsError('scheduler must be an RxJS scheduler');
}

/** `value` (or `fallback` when undefined), checked to be a number >= `min` (finite unless `infinite`). */
export function checkNumber(name: string, value: number | undefined, fallback: number, min: number, infinite = false): number {
  const x = value ?? fallback;
  if (typeof x !== 'number' || Number.isNaN(x) || (!infinite && !Number.isFinite(x)) || x < min)
    throw new InvalidOptionsError(`${name} must be a ${infinite ? '' : 'finite '}number >= ${min}, got ${String(value)}`);
  return x;
}

/**
 * The one check of every option that is a duration, a delay or a period: a number in the option's
 * range, and no more than a timer holds where the option rides a single JavaScript timer. Each
 * option's doc comment says which range it has and what `Infinity` means when it is allowed.
 */
import { checkNumber, InvalidOptionsError } from '../errors.ts';
import { MAX_TIMER_MS } from './longTimer.ts';

/** The range of a duration option, for `checkDuration`. */
export interface DurationRule {
  /** The least value. Default 0. */
  min?: number;
  /** Refuse `min` itself: the value must be > `min`. Default false. */
  exclusive?: boolean;
  /**
   * The greatest value, in the option's unit; `'timer'` for a duration that one JavaScript timer
   * must hold (`MAX_TIMER_MS`, or its whole seconds for `unit: 's'`). Default: any finite value
   * (for a duration that `scheduleAfter` and its kin wait out whatever its length).
   */
  max?: number | 'timer';
  /** Accept `Infinity` (the option says what it means: "no limit", "never"). Default false. */
  infinite?: boolean;
  /** Accept whole numbers only. Default false. */
  integer?: boolean;
  /** The option's unit: `'ms'` (default) or `'s'`. */
  unit?: 'ms' | 's';
}

/**
 * Throws `InvalidOptionsError` naming `name` and the limit it broke unless `value` (or its default
 * `fallback`) is a number in `rule`'s range — never NaN; `Infinity` only with `infinite` — and
 * returns it.
 *
 * @example
 * const timeoutMs = checkDuration('timeoutMs', options.timeoutMs, Infinity, { infinite: true });
 * const debounceMs = checkDuration('debounceMs', options.debounceMs, 0, { max: 'timer' });
 * checkDuration('debounceMs', 2 ** 31, 0, { max: 'timer' });
 * // InvalidOptionsError: debounceMs must be at most 2147483647 ms (the longest a JavaScript timer holds, ~24.8 days), got 2147483648
 */
export function checkDuration(name: string, value: number | undefined, fallback: number, rule: DurationRule = {}): number {
  const { min = 0, max = Infinity, unit = 'ms', ...how } = rule;
  const checked = checkNumber(name, value, fallback, min, how);
  const timer = max === 'timer';
  const limit = timer ? (unit === 's' ? Math.floor(MAX_TIMER_MS / 1000) : MAX_TIMER_MS) : max;
  if (checked > limit && checked !== Infinity) {
    const why = timer ? ' (the longest a JavaScript timer holds, ~24.8 days)' : '';
    throw new InvalidOptionsError(`${name} must be at most ${limit} ${unit}${why}, got ${String(value)}`);
  }
  return checked;
}

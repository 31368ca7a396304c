/**
 * Exponential backoff with jitter, as a pure policy: the reflector asks it for the next delay.
 * client-go's reflector uses 800 ms doubling to 30 s, reset after 2 minutes without failure.
 * A server's `Retry-After` lengthens a delay up to the cap (`maxMs`), never beyond: client-go's
 * reflector never waits longer than its own backoff cap whatever the server asks, and a wait of
 * years would stop the informer for good.
 */
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import { checkDuration } from './duration.ts';

/**
 * Options of the backoff policy. Each is a finite number >= 0 (NaN, Infinity and negative values
 * throw `InvalidOptionsError`); the delays may be of any length: the reflector waits them out on
 * `timerAfter`, past a JavaScript timer's 24.8 days too.
 */
export interface BackoffOptions {
  /** First delay, in ms. Default 800. */
  initialMs?: number;
  /**
   * Cap of the delay before jitter, in ms; also the longest wait a `Retry-After` can ask for (a
   * longer one is cut to this, as client-go's reflector never waits past its backoff cap). Default 30 000.
   */
  maxMs?: number;
  /** Growth factor per consecutive failure. Default 2. */
  factor?: number;
  /** Extra random fraction added to each delay: `delay × (1 + jitter × random())`, from 0 to 1. Default 0.5. */
  jitter?: number;
  /** Healthy time after which the next failure starts again from `initialMs`. Default 120 000. */
  resetAfterMs?: number;
}

/** The policy's state: consecutive failures, and since when things have gone well. */
export interface BackoffState {
  /** Failures since the last reset. */
  failures: number;
  /** Scheduler time of the first success after the last failure; undefined while failing. */
  healthySince?: number;
}

/** Fully resolved options. */
export type ResolvedBackoff = Required<BackoffOptions>;

/** Validates and fills in defaults; throws `InvalidOptionsError` for negative or non-finite values. */
export function resolveBackoff(options: BackoffOptions = {}): ResolvedBackoff {
  const resolved: ResolvedBackoff = {
    initialMs: options.initialMs ?? 800,
    maxMs: options.maxMs ?? 30_000,
    factor: options.factor ?? 2,
    jitter: options.jitter ?? 0.5,
    resetAfterMs: options.resetAfterMs ?? 120_000,
  };
  for (const [name, value] of Object.entries(resolved)) checkDuration(`backoff.${name}`, value, 0); // any length: timerAfter waits it out
  if (resolved.factor < 1) throw new InvalidOptionsError(`backoff.factor must be >= 1, got ${resolved.factor}`);
  if (resolved.jitter > 1) throw new InvalidOptionsError(`backoff.jitter must be at most 1, got ${resolved.jitter}`);
  if (resolved.maxMs < resolved.initialMs) throw new InvalidOptionsError('backoff.maxMs must be >= backoff.initialMs');
  return resolved;
}

/** Records a success at `now`: starts the healthy period if it had not started. */
export function backoffSuccess(state: BackoffState, now: number): BackoffState {
  return state.healthySince === undefined ? { ...state, healthySince: now } : state;
}

/** How `nextBackoff` counts a failure. */
export interface NextBackoffOptions {
  /**
   * The first failure after a healthy period is retried at once (delay 0); the n-th in a row
   * waits what the (n−1)-th would otherwise. For failures whose usual cause is benign and whose
   * cure is the retry itself (a 410 after etcd compaction: relist), while a server answering them
   * in a loop still gets exponential backoff. Default false.
   */
  firstImmediate?: boolean;
}

/**
 * The delay before retrying after `error`, and the new state. A `Retry-After` carried by a
 * `KubeApiError` is a floor, capped at `maxMs`: the delay is never shorter than what the server
 * asks, up to the cap.
 *
 * @example
 * let s: BackoffState = { failures: 0 };
 * const { delayMs, state } = nextBackoff(s, err, scheduler.now(), resolveBackoff(), Math.random);
 */
export function nextBackoff(
  state: BackoffState,
  error: unknown,
  now: number,
  options: ResolvedBackoff,
  random: () => number,
  how: NextBackoffOptions = {},
): { delayMs: number; state: BackoffState } {
  const healthyLongEnough = state.healthySince !== undefined && now - state.healthySince >= options.resetAfterMs;
  const failures = healthyLongEnough ? 0 : state.failures;
  const step = how.firstImmediate ? failures - 1 : failures;
  // factor ** step overflows to Infinity after ~1,000 failures: capped first, and 0 × Infinity
  // (initialMs 0) would be NaN.
  const base = step < 0 || options.initialMs === 0 ? 0 : Math.min(options.maxMs, options.initialMs * options.factor ** step);
  let delayMs = Math.round(base * (1 + options.jitter * random()));
  const retryAfter = error instanceof KubeApiError ? error.retryAfterSeconds : undefined;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > 0)
    delayMs = Math.max(delayMs, Math.min(retryAfter * 1000, options.maxMs));
  return { delayMs, state: { failures: failures + 1 } };
}

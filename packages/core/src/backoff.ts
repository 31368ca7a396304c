/**
 * Exponential backoff with jitter, as a pure policy: the reflector asks it for the next delay.
 * client-go's reflector uses 800 ms doubling to 30 s, reset after 2 minutes without failure.
 */
import { InvalidOptionsError, KubeApiError } from './errors.ts';

/** Options of the backoff policy. */
export interface BackoffOptions {
  /** First delay, in ms. Default 800. */
  initialMs?: number;
  /** Cap of the delay before jitter, in ms. Default 30 000. */
  maxMs?: number;
  /** Growth factor per consecutive failure. Default 2. */
  factor?: number;
  /** Extra random fraction added to each delay: `delay × (1 + jitter × random())`. Default 0.5. */
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
  for (const [name, value] of Object.entries(resolved)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new InvalidOptionsError(`backoff.${name} must be a finite number >= 0, got ${value}`);
  }
  if (resolved.factor < 1) throw new InvalidOptionsError(`backoff.factor must be >= 1, got ${resolved.factor}`);
  if (resolved.maxMs < resolved.initialMs) throw new InvalidOptionsError('backoff.maxMs must be >= backoff.initialMs');
  return resolved;
}

/** Records a success at `now`: starts the healthy period if it had not started. */
export function backoffSuccess(state: BackoffState, now: number): BackoffState {
  return state.healthySince === undefined ? { ...state, healthySince: now } : state;
}

/**
 * The delay before retrying after `error`, and the new state. A `Retry-After` carried by a
 * `KubeApiError` is a floor: the delay is never shorter.
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
): { delayMs: number; state: BackoffState } {
  const healthyLongEnough = state.healthySince !== undefined && now - state.healthySince >= options.resetAfterMs;
  const failures = healthyLongEnough ? 0 : state.failures;
  const base = Math.min(options.maxMs, options.initialMs * options.factor ** failures);
  let delayMs = Math.round(base * (1 + options.jitter * random()));
  const retryAfter = error instanceof KubeApiError ? error.retryAfterSeconds : undefined;
  if (retryAfter !== undefined && retryAfter > 0) delayMs = Math.max(delayMs, retryAfter * 1000);
  return { delayMs, state: { failures: failures + 1 } };
}

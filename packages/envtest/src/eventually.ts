/**
 * `eventually` and `consistently`: Gomega's `Eventually` and `Consistently` for any test framework
 * (jest, vitest, `node:test`): a check polled on a timer until it passes, or checked through a
 * window in which it must keep passing. A check passes when it returns (or resolves) without
 * throwing, and not `false`: an assertion (`expect(…)`, `assert.equal(…)`) or a predicate.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConsistentlyFailedError, EventuallyTimeoutError, InvalidOptionsError } from './errors.ts';

/** A check: an assertion that throws, or a predicate that returns false, when it fails. */
export type Check<T> = () => T | Promise<T>;

/** Options of `eventually`. */
export interface EventuallyOptions {
  /** How long the check may take to pass, in ms. Default 10 000. */
  timeoutMs?: number;
  /** The pause after a failed attempt, in ms. Default 100. */
  intervalMs?: number;
  /** Stops the waiting: `eventually` rejects with the signal's reason. Default: none. */
  signal?: AbortSignal;
  /** What is awaited, for the error's message. Default `the check`. */
  description?: string;
}

/** Options of `consistently`. */
export interface ConsistentlyOptions {
  /** How long the check must keep passing, in ms. Default 1 000. */
  durationMs?: number;
  /** The pause between checks, in ms. Default 100. */
  intervalMs?: number;
  /** Stops the checking: `consistently` rejects with the signal's reason. Default: none. */
  signal?: AbortSignal;
  /** What must hold, for the error's message. Default `the check`. */
  description?: string;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Runs `check` until it passes, pausing `intervalMs` after each failure, and resolves with what it
 * returned; rejects with an `EventuallyTimeoutError` (its `cause` the last failure, `attempts` how
 * many finished) once `timeoutMs` passed — at the deadline, even while an attempt still runs.
 *
 * @example
 * await eventually(async () => {
 *   const widget = await widgets.get({ namespace, name: 'w' });
 *   expect(isStatusConditionTrue(widget.status?.conditions, 'Ready')).toBe(true);
 * }, { timeoutMs: 30_000 });
 *
 * Caveat: its timers are Node's own (`node:timers/promises`), which the fake timers of jest and
 * vitest leave alone: it waits in real time under them too. An attempt left running at the
 * deadline is not cancelled (give it the same `signal` when it can take one).
 */
export async function eventually<T>(check: Check<T>, options: EventuallyOptions = {}): Promise<Exclude<T, false>> {
  const timeoutMs = duration(options.timeoutMs, 10_000, 'timeoutMs');
  const intervalMs = duration(options.intervalMs, 100, 'intervalMs');
  checkFunction(check, 'eventually');
  const timers = timerScope(options.signal);
  const deadline = timers.after(timeoutMs, 'deadline' as const);
  let attempts = 0;
  let last: unknown;
  try {
    for (;;) {
      const outcome = await Promise.race([attempt(check), deadline]);
      if (outcome === 'deadline') throw new EventuallyTimeoutError(options.description, timeoutMs, attempts, true, last);
      attempts++;
      if (outcome.ok) return outcome.value as Exclude<T, false>;
      last = outcome.error;
      if ((await Promise.race([timers.after(intervalMs, 'next' as const), deadline])) === 'deadline') {
        throw new EventuallyTimeoutError(options.description, timeoutMs, attempts, false, last);
      }
    }
  } finally {
    timers.end();
  }
}

/**
 * Checks `check` at once and every `intervalMs` until `durationMs` passed (a last check at the end
 * of the window), and resolves with the number of checks; rejects at the first failure with a
 * `ConsistentlyFailedError` (its `cause` the failure, `attempt` which check it was).
 *
 * @example
 * await consistently(async () => {
 *   const widget = await widgets.get({ namespace, name: 'w' });
 *   expect(findStatusCondition(widget.status?.conditions, 'Ready')?.lastTransitionTime).toBe(first);
 * }, { durationMs: 2_000 });
 *
 * Caveat: it proves nothing about what happens after the window, and little about a window shorter
 * than what would flip the check (a resync, a requeue): size it to the event you rule out.
 */
export async function consistently<T>(check: Check<T>, options: ConsistentlyOptions = {}): Promise<number> {
  const durationMs = duration(options.durationMs, 1_000, 'durationMs');
  const intervalMs = duration(options.intervalMs, 100, 'intervalMs');
  checkFunction(check, 'consistently');
  const timers = timerScope(options.signal);
  let ended = false;
  const end = quiet(timers.after(durationMs, 'ended' as const).then(() => void (ended = true)));
  try {
    for (let n = 1; ; n++) {
      const outcome = await Promise.race([attempt(check), timers.aborted]);
      if (!outcome.ok) throw new ConsistentlyFailedError(options.description, durationMs, n, outcome.error);
      if (ended) return n;
      await Promise.race([timers.after(intervalMs, 'next' as const), end]);
    }
  } finally {
    timers.end();
  }
}

/** One run of `check`, as a value: never rejects. */
async function attempt<T>(check: Check<T>): Promise<Outcome<T>> {
  try {
    const value = await check();
    if (value === false) return { ok: false, error: new Error('the check returned false') };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Timers that end together: `after(ms, value)` resolves to `value`, and rejects with the signal's
 * reason when `signal` aborts; `aborted` only rejects so; `end()` clears them all, so none keeps
 * the process alive.
 */
function timerScope(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw signal.reason;
  const done = new AbortController();
  const both = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
  const reason = (e?: unknown): unknown => (signal?.aborted ? (signal.reason as unknown) : (e ?? new Error('ended')));
  return {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's reason, whatever it is, as fetch rejects
    aborted: quiet(new Promise<never>((_, reject) => both.addEventListener('abort', () => reject(reason()), { once: true }))),
    after: <V>(ms: number, value: V): Promise<V> =>
      quiet(
        sleep(ms, value, { signal: both }).catch((e: unknown) => {
          throw reason(e);
        }),
      ),
    end: () => done.abort(),
  };
}

/** `p`, marked as handled: whoever races it hears its rejection; once the race is over, nobody needs to. */
function quiet<P extends Promise<unknown>>(p: P): P {
  p.catch(() => {});
  return p;
}

function duration(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 2 ** 31 - 1))
    throw new InvalidOptionsError(`${name} must be a number of ms in [0, 2147483647], not ${value}`);
  return value;
}

function checkFunction(check: unknown, who: string): void {
  if (typeof check !== 'function') throw new InvalidOptionsError(`${who} needs a check function, not ${typeof check}`);
}

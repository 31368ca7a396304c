/**
 * What a reconcile may answer — nothing, a requeue, or a terminal error that is not retried — typed
 * so that a mistyped answer does not compile, and checked once, at run time, for callers without
 * types.
 */
import { InvalidOptionsError, RxInformerError } from '@rxinformer/core';
import { describeValue, withCause } from '@rxinformer/core/http';

/**
 * What a reconcile may answer besides nothing: look at the key again. `requeueAfterMs` (a finite
 * number >= 0): after that long, its backoff forgotten. `requeue: true` without a delay: after the
 * rate limiter's backoff, which keeps growing while it is answered (controller-runtime's
 * `Requeue`). Any other property is refused at compile time and at run time.
 */
export interface ReconcileResult {
  /** Look again after the rate-limited backoff. */
  readonly requeue?: boolean;
  /**
   * Look again after this many ms; wins over `requeue`. A finite number >= 0 of any length (30
   * days wait 30 days, past a JavaScript timer's 24.8); NaN, Infinity or a negative number is an
   * `InvalidReconcileResultError` (reported, and the key retried with backoff).
   */
  readonly requeueAfterMs?: number;
}

/**
 * A reconcile answered something the controller cannot act on: a value that is neither `undefined`
 * nor an object of `requeue` (a boolean) and `requeueAfterMs` (a finite number >= 0). Reported with
 * the key, and handled as a failed reconcile (retried with backoff, up to `maxRetries`): the request
 * to look again is kept, and the backoff keeps a reconcile that always answers Infinity from spinning.
 *
 * @example
 * ctl.start().errors$.subscribe(({ error }) => {
 *   if (error instanceof InvalidReconcileResultError) console.error(error.key, error.result);
 * });
 */
export class InvalidReconcileResultError extends RxInformerError {
  /** Always `InvalidReconcileResultError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidReconcileResultError';
  /** The key whose reconcile answered it. */
  readonly key: string;
  /** What the reconcile answered. */
  readonly result: unknown;

  constructor(key: string, result: unknown, problem: string) {
    super(
      'InvalidReconcileResult',
      withCause(
        `the reconcile of key ${describeValue(key)} answered ${describeValue(result)}: expected undefined or { requeueAfterMs?: a finite number >= 0, requeue?: a boolean }`,
        new InvalidOptionsError(problem),
      ),
      { cause: new InvalidOptionsError(problem) },
    );
    this.key = key;
    this.result = result;
  }
}

/**
 * A failure that retrying will not mend (controller-runtime's `reconcile.TerminalError`): the key
 * is not retried, its backoff is forgotten, and the failure is reported (`stage: 'reconcile'`,
 * `dropped: true`), logged and counted (`terminal_reconcile_errors_total`). The next event of the
 * key reconciles it again. Throw it, or `terminal(error)`, from a reconcile.
 *
 * @example
 * if (spec.replicas < 0) throw new TerminalError('spec.replicas is negative: fix the object');
 */
export class TerminalError extends RxInformerError {
  /** Always `TerminalError`: set as a string, so it survives minification. */
  override readonly name: string = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('Terminal', withCause(message, options?.cause), options);
  }
}

/**
 * `error` as a `TerminalError` (itself when it is one): for a reconcile's `catch`.
 *
 * @example
 * try { await api(pods).create(pod); } catch (e) { if (isInvalid(e)) throw terminal(e); throw e; }
 */
export function terminal(error: unknown): TerminalError {
  return error instanceof TerminalError ? error : new TerminalError('a terminal failure', { cause: error });
}

const RESULT_KEYS = new Set(['requeue', 'requeueAfterMs']);

/** What a reconcile asked for, once checked: nothing, a delay, or a rate-limited requeue. */
export type Requeue = { readonly afterMs: number } | 'rateLimited' | undefined;

/**
 * What `answer` asks for: `undefined`, `{ afterMs }` or `'rateLimited'`; throws
 * `InvalidReconcileResultError` (naming `key` and what is wrong) for anything a reconcile may not
 * answer. The one check of a reconcile's answer.
 */
export function checkReconcileResult(key: string, answer: unknown): Requeue {
  if (answer === undefined) return undefined;
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw new InvalidReconcileResultError(key, answer, 'a reconcile answers undefined or an object');
  let after: unknown;
  let again: unknown;
  try {
    const unknown = Object.keys(answer).filter((k) => !RESULT_KEYS.has(k));
    if (unknown.length > 0) throw new InvalidReconcileResultError(key, answer, `unknown properties: ${unknown.join(', ')}`);
    ({ requeueAfterMs: after, requeue: again } = answer as ReconcileResult);
  } catch (e) {
    if (e instanceof InvalidReconcileResultError) throw e;
    throw new InvalidReconcileResultError(key, answer, `reading it threw: ${String(e)}`); // a getter that throws
  }
  if (again !== undefined && typeof again !== 'boolean') throw new InvalidReconcileResultError(key, answer, 'requeue must be a boolean');
  if (after !== undefined) {
    if (typeof after !== 'number' || !Number.isFinite(after) || after < 0)
      throw new InvalidReconcileResultError(key, answer, 'requeueAfterMs must be a finite number >= 0');
    return { afterMs: after };
  }
  return again === true ? 'rateLimited' : undefined;
}

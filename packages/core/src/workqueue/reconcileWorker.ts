/**
 * One worker of `runController`: takes a key from the queue, reconciles it, releases it with
 * `done` — whatever throws in between — and takes the next, yielding to the event loop now and
 * then so reconciles that settle without I/O cannot starve timers.
 */
import { asyncScheduler, isObservable, type SchedulerLike } from 'rxjs';
import { RxInformerError, describeValue, withCause } from '../errors.ts';
import { isDelay } from './rateLimiter.ts';
import type { WorkQueue } from './workqueue.ts';

/**
 * A reconcile answered something the controller cannot act on: a `requeueAfterMs` that is not a
 * finite number >= 0 (NaN, Infinity — say `Math.min()` of an empty list —, a negative number, not a
 * number), or a value returned directly that is neither `undefined` nor an object. Reported on
 * `errors$` with the key; the key is released and handled as a failed reconcile (retried with
 * backoff, up to `maxRetries`), as controller-runtime handles a reconcile that panics: the request
 * to look again is kept, and the backoff keeps a reconcile that always answers Infinity from spinning.
 *
 * @example
 * ctl.errors$.subscribe(({ error }) => {
 *   if (error instanceof InvalidReconcileResultError) console.error(error.key, error.result);
 * });
 */
export class InvalidReconcileResultError<K = unknown> extends RxInformerError {
  /** Always `InvalidReconcileResultError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidReconcileResultError';
  /** The key whose reconcile answered it. */
  readonly key: K;
  /** What the reconcile answered. */
  readonly result: unknown;

  constructor(key: K, result: unknown, options?: { cause?: unknown }) {
    const what =
      typeof result === 'object' && result !== null && options?.cause === undefined
        ? `requeueAfterMs ${describeValue((result as { requeueAfterMs?: unknown }).requeueAfterMs)}`
        : describeValue(result);
    super(
      'InvalidReconcileResult',
      withCause(
        `the reconcile of key ${describeValue(key)} answered ${what}: expected undefined or { requeueAfterMs?: a finite number >= 0, requeue?: a boolean }`,
        options?.cause,
      ),
      options,
    );
    this.key = key;
    this.result = result;
  }
}

/**
 * What a `ControllerError` reports: `sync`, waiting for the caches failed (no key: no reconcile
 * ran); `reconcile`, a key's reconcile failed, or requeueing it did; `readYourWrites`, a builder
 * controller's hold of a key ran out before the caches showed its writes (`@rxinformer/controller`'s
 * `ReadYourWritesTimeoutError`; not a failure: the key is reconciled on the cache as it is);
 * `source`, a builder controller's source made a key that names no object (`InvalidSourceKeyError`,
 * such as an owner reference named `.`): that key is given up, the event's other keys are queued.
 */
export type ControllerErrorStage = 'sync' | 'reconcile' | 'readYourWrites' | 'source';

/**
 * A failure reported by a controller. Log it by its `stage`: a `sync` failure has no key.
 *
 * @example
 * onError: (e) => console.error(e.key === undefined ? `${e.stage} failed` : `${e.stage} of ${e.key} failed`, e.error),
 */
export interface ControllerError<K = string> {
  /** What failed: waiting for the caches, a reconcile, a read-your-writes hold, or a source's key. */
  stage: ControllerErrorStage;
  /** The key whose reconcile failed; absent at the `sync` stage (no reconcile ran) and for a source's key it could not make. */
  key?: K;
  /**
   * What the reconcile threw, rejected or errored with; an `InvalidReconcileResultError` for a
   * result the controller cannot act on; or what the queue threw when the key was requeued or
   * forgotten (say, an `InvalidOptionsError` for a rate limiter of your own answering NaN): then
   * the key is released and given up (`dropped`), never left in progress.
   */
  error: unknown;
  /** How many times the key had been retried before this failure. */
  retries: number;
  /** True when the key is given up (`maxRetries` reached, or the controller is stopping). */
  dropped: boolean;
}

/** What a worker needs of its controller. */
export interface WorkerContext<K> {
  /** Where keys come from. */
  readonly queue: WorkQueue<K>;
  /** The user's reconcile. */
  readonly reconcile: (key: K) => unknown;
  /** Retries of a failing key before it is dropped; undefined: unlimited. */
  readonly maxRetries: number | undefined;
  /** Runs a reconcile for a worker woken by `queue.add`, out of the caller's stack. */
  readonly wakeScheduler: SchedulerLike;
  /** Runs `then` once the worker has yielded, after `BURST` reconciles in a row (`nextMacrotask` in real time). */
  readonly yieldTo: (then: () => void) => void;
  /** A reconcile starts. */
  started(): void;
  /** A reconcile ended: whether it failed, and whether its key was given up. */
  ended(failed: boolean, dropped: boolean): void;
  /** Reports a failure (never throws). */
  report(failure: ControllerError<K>): void;
  /** The worker left: the queue is shut down and empty. */
  exited(): void;
}

/**
 * Reconciles a worker runs back to back — settled synchronously or in microtasks, without the
 * worker yielding — before it yields to the event loop.
 */
const BURST = 1000;

/**
 * Runs `then` in a new macrotask, so that timers and I/O get a turn first, at the least cost:
 * `setImmediate` where there is one (Node: no 1 ms timer clamp), else a `MessageChannel` message
 * (browsers), else a 0 ms timer.
 */
export function nextMacrotask(then: () => void): void {
  const { setImmediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
  if (typeof setImmediate === 'function') {
    setImmediate(then);
  } else if (typeof MessageChannel === 'function') {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      then();
    };
    port2.postMessage(undefined);
  } else {
    asyncScheduler.schedule(then);
  }
}

/** True for a promise or any other thenable. */
export const isPromiseLike = (x: unknown): x is PromiseLike<unknown> => typeof (x as PromiseLike<unknown> | undefined)?.then === 'function';

/** What `requeueOf` answers for `{ requeue: true }` without a delay: a rate-limited requeue. */
const RATE_LIMITED = 'rateLimited';

/**
 * The delay a reconcile's result asks for (`undefined`: none; `RATE_LIMITED`: `requeue: true`,
 * controller-runtime's `Requeue`: again after the rate limiter's backoff, not forgotten), or the
 * error of a result the controller cannot act on. `direct`: returned as is, not through a promise or an Observable,
 * whose values are typed `unknown` and are only read when they are objects.
 */
function requeueOf<K>(key: K, result: unknown, direct: boolean): number | typeof RATE_LIMITED | undefined | InvalidReconcileResultError<K> {
  if (result === undefined || result === null) return undefined;
  if (typeof result !== 'object') return direct ? new InvalidReconcileResultError(key, result) : undefined;
  let after: unknown;
  let again: unknown;
  try {
    ({ requeueAfterMs: after, requeue: again } = result as { requeueAfterMs?: unknown; requeue?: unknown });
  } catch (cause) {
    return new InvalidReconcileResultError(key, result, { cause }); // a getter that throws
  }
  if (again !== undefined && typeof again !== 'boolean') return new InvalidReconcileResultError(key, result);
  if (after !== undefined) return isDelay(after) ? after : new InvalidReconcileResultError(key, result);
  return again === true ? RATE_LIMITED : undefined;
}

/**
 * The error of a result returned as is (not through a promise or an Observable) that the
 * controller cannot act on, or undefined: for wrappers that turn a reconcile into an Observable,
 * which would otherwise hide a direct `5` among an Observable's untyped values.
 */
export function invalidDirectResult<K>(key: K, result: unknown): InvalidReconcileResultError<K> | undefined {
  const asked = requeueOf(key, result, true);
  return asked instanceof InvalidReconcileResultError ? asked : undefined;
}

/** `queue.forget` whose throw is not reported again: it comes from the rate limiter that just threw. */
function forgetQuietly<K>(queue: WorkQueue<K>, key: K): void {
  try {
    queue.forget(key);
  } catch {
    /* already reported */
  }
}

/**
 * Records the outcome of one reconcile and releases the key: `done` runs whatever throws before
 * it (the queue, a rate limiter of your own), so no key is left in progress with its worker gone.
 * A key that cannot be requeued (the rate limiter threw or answered NaN) is given up and reported,
 * never retried in a hot loop.
 */
function finish<K>(ctx: WorkerContext<K>, key: K, failed: boolean, value: unknown, direct: boolean): void {
  const { queue, maxRetries } = ctx;
  try {
    let error = value;
    let requeueAfterMs: number | typeof RATE_LIMITED | undefined;
    if (!failed) {
      const asked = requeueOf(key, value, direct);
      if (asked instanceof InvalidReconcileResultError) [failed, error] = [true, asked];
      else requeueAfterMs = asked;
    }
    let retries = 0;
    let dropped = false;
    let trouble: { error: unknown } | undefined;
    try {
      if (failed) {
        retries = queue.numRequeues(key);
        dropped = queue.shuttingDown || (maxRetries !== undefined && retries >= maxRetries);
        if (dropped) queue.forget(key);
        else queue.addRateLimited(key);
      } else if (requeueAfterMs === RATE_LIMITED) {
        queue.addRateLimited(key); // its backoff grows, as a failure's would
      } else {
        queue.forget(key);
        if (requeueAfterMs !== undefined) queue.addAfter(key, requeueAfterMs);
      }
    } catch (thrown) {
      trouble = { error: thrown };
      dropped = failed || requeueAfterMs !== undefined;
      if (failed) forgetQuietly(queue, key);
    }
    ctx.ended(failed, dropped);
    if (failed) ctx.report({ stage: 'reconcile', key, error, retries, dropped });
    if (trouble !== undefined) ctx.report({ stage: 'reconcile', key, error: trouble.error, retries, dropped });
  } finally {
    queue.done(key);
  }
}

/** Starts reconciling `key`; true if it finished synchronously, otherwise `resume` runs when it does. */
function run<K>(ctx: WorkerContext<K>, key: K, resume: () => void): boolean {
  ctx.started();
  let sync = true;
  let settled = false;
  const settle = (failed: boolean, value: unknown, direct = false) => {
    if (settled) return; // a thenable calling back twice, or throwing after it called back
    settled = true;
    finish(ctx, key, failed, value, direct);
    if (!sync) resume();
  };
  try {
    const result = ctx.reconcile(key);
    if (isObservable(result)) {
      let last: unknown;
      result.subscribe({
        next: (v) => {
          last = v;
        },
        error: (e: unknown) => settle(true, e),
        complete: () => settle(false, last),
      });
    } else if (isPromiseLike(result)) {
      result.then(
        (v) => settle(false, v),
        (e: unknown) => settle(true, e),
      );
    } else settle(false, result, true);
  } catch (error) {
    settle(true, error); // the reconcile threw, or its thenable's `then` did
  }
  sync = false;
  return settled;
}

/**
 * Starts one worker: take a key, reconcile it, repeat — iteratively while reconciles finish
 * synchronously — until the queue is shut down and empty, then `ctx.exited()`.
 */
export function startWorker<K>(ctx: WorkerContext<K>): void {
  /** Reconciles since this worker last yielded to the event loop. */
  let runs = 0;
  const work = (key: K): boolean => {
    runs++;
    return run(ctx, key, loop);
  };
  const loop = (): void => {
    for (;;) {
      // Reconciles that settle at once or in microtasks (async ones without I/O) would run back to
      // back for as long as keys keep coming: yield now and then so timers, I/O and UI get a turn.
      if (runs >= BURST) {
        runs = 0;
        ctx.yieldTo(loop);
        return;
      }
      let key: K | undefined;
      let received = false;
      let ended = false;
      let inSubscribe = true;
      ctx.queue.get$().subscribe({
        next: (k) => {
          received = true;
          if (inSubscribe) key = k;
          else
            ctx.wakeScheduler.schedule(() => {
              if (work(k)) loop();
            }); // woken from queue.add: leave the caller's stack
        },
        complete: () => {
          if (!received) {
            if (inSubscribe) ended = true;
            else ctx.exited();
          }
        },
      });
      inSubscribe = false;
      if (ended) return ctx.exited();
      if (!received) return; // waiting: the subscription above resumes the loop
      if (!work(key as K)) return; // in progress: `run` resumes the loop
    }
  };
  loop();
}

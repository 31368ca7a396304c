/**
 * One worker of a controller: takes a key from the queue, reconciles it with a signal of its own
 * (aborted at the reconcile timeout and when the controller stops), settles the answer once —
 * success, requeue, failure, terminal failure, panic — and releases the key with `done` whatever
 * throws in between; then takes the next, yielding to the event loop now and then so reconciles
 * that settle without I/O cannot starve timers.
 */
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { WorkQueue } from '@rxinformer/core/workqueue';
import type { FailureLog, Logger } from '../log/logger.ts';
import { ReconcileTimeoutError, type ControllerError } from './errors.ts';
import { ReconcileRun } from './run.ts';
import { checkReconcileResult, TerminalError, type Requeue } from './result.ts';
import type { ReconcileCounts, ReconcileResultLabel } from './stats.ts';

/** What a worker needs of its controller. */
export interface WorkerContext {
  /** The controller's name (its log lines' `controller`). */
  readonly name: string;
  /** Where keys come from. */
  readonly queue: WorkQueue<string>;
  /** Retries of a failing key before it is dropped; undefined: unlimited. */
  readonly maxRetries: number | undefined;
  /** How long a reconcile may run before its signal aborts; undefined: no limit. */
  readonly timeoutMs: number | undefined;
  /** The clock of durations and the timeout's timer. */
  readonly scheduler: SchedulerLike;
  /** Runs a reconcile for a worker woken by `queue.add`, out of the caller's stack. */
  readonly wakeScheduler: SchedulerLike;
  /** Runs `then` once the worker has yielded, after `BURST` reconciles in a row. */
  readonly yieldTo: (then: () => void) => void;
  /** The controller's counts. */
  readonly counts: ReconcileCounts;
  /** The controller's logger, and its per-key throttle of failure lines. */
  readonly log: Logger;
  readonly failures: FailureLog;
  /** The reconcile each worker runs now, by the worker's index: a stop aborts them. */
  readonly running: (ReconcileRun | undefined)[];
  /** Calls the user's reconcile of `key` (`run`: its id and signal); whatever it returns or throws. */
  readonly reconcile: (key: string, run: ReconcileRun) => unknown;
  /** Told how a reconcile ended, before the queue is: read-your-writes holds or forgets its writes. */
  readonly settled: (key: string, ok: boolean, requeue: Requeue) => void;
  /** Reports a failure (never throws). */
  readonly report: (failure: ControllerError) => void;
  /** The worker left: the queue is shut down and empty. */
  readonly exited: () => void;
}

/** Reconciles a worker runs back to back without yielding to the event loop. */
const BURST = 1000;

/**
 * Runs `then` in a new macrotask, so that timers and I/O get a turn first: `setImmediate` where
 * there is one (Node), else a `MessageChannel` message (browsers), else a 0 ms timer.
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

/** JavaScript's programming errors — what Go would panic on (a nil dereference, an index out of range). */
const PANICS = [TypeError, ReferenceError, RangeError, SyntaxError];

/** How one reconcile ended. */
interface Ending {
  readonly key: string;
  /** Its id and signal. */
  readonly run: ReconcileRun;
  /** On the controller's clock; undefined: not timed (nobody listened to the reconcile events when it started). */
  readonly startedAt: number | undefined;
  /** The failure, if it failed; `sync` when the reconcile threw instead of returning a promise. */
  readonly failure?: { readonly error: unknown; readonly sync: boolean };
  readonly answer?: unknown;
  readonly timedOut: boolean;
}

/** The queue's step for a failed key: retried with backoff, or given up (also when requeueing it threw: `requeueError`). */
function retryOrDrop(ctx: WorkerContext, key: string, terminal: boolean): { retries: number; dropped: boolean; requeueError?: unknown } {
  const { queue, maxRetries } = ctx;
  const retries = queue.numRequeues(key);
  const dropped = terminal || queue.shuttingDown || (maxRetries !== undefined && retries >= maxRetries);
  if (dropped) queue.forget(key);
  else
    try {
      queue.addRateLimited(key);
    } catch (requeueError) {
      queue.forget(key);
      return { retries, dropped: true, requeueError }; // a rate limiter of your own that throws or answers NaN
    }
  return { retries, dropped };
}

/** The queue's step for an answer: forgotten (and requeued after a delay), or requeued rate-limited. */
function requeue(queue: WorkQueue<string>, key: string, asked: Requeue): ReconcileResultLabel {
  if (asked === 'rateLimited') {
    queue.addRateLimited(key); // its backoff grows, as a failure's would
    return 'requeue';
  }
  queue.forget(key);
  if (asked === undefined) return 'success';
  queue.addAfter(key, asked.afterMs);
  return 'requeue_after';
}

/** Counts, logs and reports a failure; the queue's step already taken. */
function failed(ctx: WorkerContext, e: Ending, error: unknown, panic: boolean, step: { retries: number; dropped: boolean }): void {
  const { counts, key } = { ...e, counts: ctx.counts };
  counts.errors++;
  const isTerminal = error instanceof TerminalError;
  if (isTerminal) counts.terminalErrors++;
  if (panic) counts.panics++;
  const what = isTerminal
    ? 'terminal error: not retried'
    : panic
      ? 'panic: recovered'
      : step.dropped
        ? 'failed: given up'
        : 'failed: retried';
  const fields = { controller: ctx.name, key, reconcileID: e.run.id, retries: step.retries, ...(e.timedOut && { timedOut: true }) };
  ctx.failures.failed(ctx.log, ctx.queue.shuttingDown ? 'info' : 'error', key, error, `reconcile ${what}`, fields);
  ctx.report({ stage: 'reconcile', key, error, retries: step.retries, dropped: step.dropped });
}

/**
 * Records how one reconcile ended and releases the key: `done` runs whatever throws before it (the
 * queue, a rate limiter of your own), so no key is left in progress with its worker gone. A key
 * that cannot be requeued is given up and reported, never retried in a hot loop.
 */
function finish(ctx: WorkerContext, e: Ending): void {
  const { queue, counts } = ctx;
  const { key } = e;
  try {
    let error = e.failure?.error;
    let asked: Requeue;
    if (e.failure === undefined) {
      try {
        asked = checkReconcileResult(key, e.answer);
      } catch (invalid) {
        error = invalid;
      }
    }
    const ok = e.failure === undefined && error === undefined;
    ctx.settled(key, ok, asked);
    let result: ReconcileResultLabel = 'error';
    try {
      if (!ok) {
        const panic = e.failure !== undefined && (e.failure.sync || PANICS.some((p) => error instanceof p));
        const step = retryOrDrop(ctx, key, error instanceof TerminalError);
        failed(ctx, e, error, panic, step);
        if ('requeueError' in step) ctx.report({ stage: 'reconcile', key, error: step.requeueError, retries: step.retries, dropped: true });
      } else {
        result = requeue(queue, key, asked);
        ctx.failures.succeeded(key);
      }
    } catch (thrown) {
      queue.forget(key);
      ctx.report({ stage: 'reconcile', key, error: thrown, retries: queue.numRequeues(key), dropped: true });
    }
    counts.activeWorkers--;
    const { startedAt, run } = e;
    counts.ended(
      result,
      startedAt === undefined
        ? undefined
        : () => ({ controller: ctx.name, key, reconcileID: run.id, result, seconds: (ctx.scheduler.now() - startedAt) / 1000 }),
    );
  } finally {
    queue.done(key);
  }
}

/** Starts reconciling `key` in worker `worker`; true if it finished synchronously, otherwise `resume` runs when it does. */
function start(ctx: WorkerContext, worker: number, key: string, resume: () => void): boolean {
  const startedAt = ctx.counts.observed ? ctx.scheduler.now() : undefined; // a clock read costs: only when timed
  const run = new ReconcileRun();
  ctx.running[worker] = run;
  ctx.counts.activeWorkers++;
  let timedOut = false;
  let timer: Subscription | undefined;
  if (ctx.timeoutMs !== undefined) {
    const ms = ctx.timeoutMs;
    timer = ctx.scheduler.schedule(() => {
      timedOut = true;
      ctx.counts.timeouts++;
      run.abort(new ReconcileTimeoutError(key, ms));
    }, ms);
  }
  let sync = true;
  let settled = false;
  const settle = (failure: Ending['failure'], answer?: unknown) => {
    if (settled) return; // a thenable calling back twice, or throwing after it called back
    settled = true;
    timer?.unsubscribe();
    ctx.running[worker] = undefined;
    finish(ctx, { key, run, startedAt, failure, answer, timedOut });
    if (!sync) resume();
  };
  try {
    const result = ctx.reconcile(key, run) as PromiseLike<unknown> | undefined;
    if (typeof result?.then !== 'function') settle(undefined, result);
    else
      result.then(
        (v) => settle(undefined, v),
        (error: unknown) => settle({ error, sync: false }),
      );
  } catch (error) {
    settle({ error, sync: true }); // thrown, not rejected: a panic
  }
  sync = false;
  return settled;
}

/**
 * Starts one worker: take a key, reconcile it, repeat — iteratively while reconciles finish
 * synchronously — until the queue is shut down and empty, then `ctx.exited()`.
 */
export function startWorker(ctx: WorkerContext, worker: number): void {
  let runs = 0;
  const work = (key: string): boolean => {
    runs++;
    return start(ctx, worker, key, loop);
  };
  const loop = (): void => {
    for (;;) {
      if (runs >= BURST) {
        runs = 0;
        ctx.yieldTo(loop);
        return;
      }
      let key: string | undefined;
      let received = false;
      let ended = false;
      let inSubscribe = true;
      ctx.queue.get$().subscribe({
        next: (k) => {
          received = true;
          if (inSubscribe) key = k;
          else ctx.wakeScheduler.schedule(() => work(k) && loop()); // woken from queue.add: leave the caller's stack
        },
        complete: () => {
          if (received) return;
          if (inSubscribe) ended = true;
          else ctx.exited();
        },
      });
      inSubscribe = false;
      if (ended) return ctx.exited();
      if (!received) return; // waiting: the subscription above resumes the loop
      if (!work(key!)) return; // in progress: `run` resumes the loop
    }
  };
  loop();
}

/**
 * The reconcile loop of a controller term — the only one in rxinformer: waits until every source's
 * handler has synced, then runs `concurrency` workers over the queue (never one key in two), and
 * stops by aborting the reconciles in progress and waiting for them to settle.
 */
import { Subscription, asapScheduler, filter, take, type Observable, type SchedulerLike } from 'rxjs';
import type { WorkQueue } from '@rxinformer/core/workqueue';
import type { FailureLog, Logger } from '../log/logger.ts';
import { ControllerStoppedError, ControllerSyncError, type ControllerError } from './errors.ts';
import type { Requeue } from './result.ts';
import type { ReconcileCounts } from './stats.ts';
import type { ReconcileRun } from './run.ts';
import { nextMacrotask, startWorker, type WorkerContext } from './worker.ts';

/** What a term's loop is made of. */
export interface LoopParts {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  /** Emits `true` once every source's handler has synced. */
  readonly synced: Observable<boolean>;
  readonly concurrency: number;
  readonly maxRetries: number | undefined;
  readonly timeoutMs: number | undefined;
  /** A test's scheduler; undefined: real time. */
  readonly scheduler: SchedulerLike | undefined;
  readonly clock: SchedulerLike;
  readonly counts: ReconcileCounts;
  readonly log: Logger;
  readonly failures: FailureLog;
  readonly reconcile: WorkerContext['reconcile'];
  readonly settled: (key: string, ok: boolean, requeue: Requeue) => void;
  readonly report: (failure: ControllerError) => void;
}

/** A running loop. */
export interface Loop {
  /** `waitingForSync`, `running`, `stopping`, then `stopped`. */
  phase(): 'waitingForSync' | 'running' | 'stopping' | 'stopped';
  /**
   * Stops: aborts the reconciles in progress (their signals' reason a `ControllerStoppedError`),
   * shuts the queue down and resolves once every worker has left. `drainQueue`: aborts nothing,
   * and reconciles the keys still queued first. Idempotent.
   */
  stop(options?: { drainQueue?: boolean }): Promise<void>;
}

/** Runs the loop of one term. */
export function runLoop(parts: LoopParts): Loop {
  let phase: ReturnType<Loop['phase']> = 'waitingForSync';
  let workers = 0;
  let stopping: Promise<void> | undefined;
  let allExited: (() => void) | undefined;
  const running: (ReconcileRun | undefined)[] = [];
  const sync = new Subscription();
  const test = parts.scheduler;
  const ctx: WorkerContext = {
    ...parts,
    scheduler: parts.clock,
    wakeScheduler: test ?? asapScheduler,
    yieldTo: test ? (then) => void test.schedule(then) : nextMacrotask,
    running,
    exited: () => {
      if (--workers === 0) allExited?.();
    },
  };
  const start = () => {
    if (stopping !== undefined) return;
    phase = 'running';
    for (let i = 0; i < parts.concurrency; i++) {
      workers++;
      startWorker(ctx, i);
    }
  };
  const loop: Loop = {
    phase: () => phase,
    stop: (options = {}) =>
      (stopping ??= new Promise<void>((resolve) => {
        phase = 'stopping';
        sync.unsubscribe();
        allExited = () => {
          phase = 'stopped';
          resolve();
        };
        if (options.drainQueue !== true) for (const run of running) run?.abort(new ControllerStoppedError(parts.name));
        // Workers leave once the queue is shut down and empty, after their key in progress is done.
        void (options.drainQueue === true ? parts.queue.shutDownWithDrain() : parts.queue.shutdown());
        if (workers === 0) allExited();
      })),
  };
  const syncFailed = (error: unknown) => {
    if (stopping !== undefined) return;
    const cause =
      error instanceof ControllerSyncError ? error : new ControllerSyncError('waiting for the sources to sync failed', { cause: error });
    parts.log.error({ controller: parts.name, error: cause }, 'the controller never started');
    parts.report({ stage: 'sync', error: cause, retries: 0, dropped: true });
    void loop.stop();
  };
  let started = false;
  sync.add(
    parts.synced
      .pipe(
        filter((v) => v === true),
        take(1),
      )
      .subscribe({
        next: () => {
          started = true;
          start();
        },
        error: syncFailed,
        complete: () => {
          if (!started) syncFailed(new ControllerSyncError('the sources ended before they synced'));
        },
      }),
  );
  return loop;
}

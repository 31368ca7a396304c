/**
 * What a manager runs: anything with a name and a `start()` whose handle stops — a `Controller`
 * as it is, a probe or metrics server, a loop of your own — and when it may run.
 */
import { InvalidOptionsError, RxInformerError } from '@rxinformer/core';

/** The handle a runnable's `start()` gives: its `stop()` is awaited at the end of a term or at shutdown. */
export interface RunningWork {
  /** Stops the work; resolves once it stopped. */
  stop(): PromiseLike<unknown> | void;
}

/**
 * A runnable: a `Controller` is one. Those that need leadership (the default) run in each term this
 * process leads; the others run from the manager's start to its stop, leading or not.
 */
export interface Runnable {
  /** Its name, in log lines and errors; unique in a manager. */
  readonly name: string;
  /** Runs only while this process leads. Default true (a controller); false: a cache warmer, a server. */
  readonly needsLeadership?: boolean;
  /**
   * `'server'`: started first and stopped last, after the Lease was released, so probes and metrics
   * answer through the whole shutdown (controller-runtime's HTTP servers). Implies no leadership.
   */
  readonly stage?: 'server';
  /** Starts the work; a rejection or throw stops the manager. */
  start(): RunningWork | PromiseLike<RunningWork>;
}

/** Why a manager failed: the `reason` of a `ManagerError`. */
export type ManagerErrorReason = 'RunnableStartFailed' | 'ManagerStopped';

/**
 * A manager's failure: a runnable that failed to start (`RunnableStartFailed`: its `runnable`, the
 * `cause`), or a second `start()` (`ManagerStopped`).
 */
export class ManagerError extends RxInformerError {
  /** Always `ManagerError`: set as a string, so it survives minification. */
  override readonly name: string = 'ManagerError';
  /** The runnable(s) concerned, by name. */
  readonly runnable: string | undefined;
  constructor(reason: ManagerErrorReason, message: string, options?: { runnable?: string; cause?: unknown }) {
    super(reason, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.runnable = options?.runnable;
  }
}

/** The stage a runnable runs in: servers, the always-running others, or those that lead. */
export type RunStage = 'server' | 'always' | 'leading';

/** The stage of `runnable`, after checking its shape (an `InvalidOptionsError` for a bad one). */
export function stageOf(runnable: Runnable): RunStage {
  const r = runnable as Partial<Runnable> | null;
  if (typeof r !== 'object' || r === null || typeof r.start !== 'function')
    throw new InvalidOptionsError('a runnable needs a start() (a Controller, or { name, start })');
  if (typeof r.name !== 'string' || r.name === '') throw new InvalidOptionsError('a runnable needs a name');
  if (r.stage !== undefined && r.stage !== 'server')
    throw new InvalidOptionsError(`runnable ${r.name}: stage is 'server' or absent, not ${String(r.stage)}`);
  if (r.needsLeadership !== undefined && typeof r.needsLeadership !== 'boolean')
    throw new InvalidOptionsError(`runnable ${r.name}: needsLeadership is a boolean`);
  if (r.stage === 'server') return 'server';
  return r.needsLeadership === false ? 'always' : 'leading';
}

/** Starts runnables in order; on a failure, stops those started and rejects with a `ManagerError`. */
export async function startAll(runnables: readonly Runnable[]): Promise<RunningWork[]> {
  const started: RunningWork[] = [];
  for (const r of runnables) {
    try {
      const work = await r.start();
      if (typeof work?.stop !== 'function') throw new InvalidOptionsError(`runnable ${r.name}: start() must return { stop() }`);
      started.push(work);
    } catch (cause) {
      await stopAll(started);
      throw new ManagerError('RunnableStartFailed', `runnable ${r.name} failed to start`, { runnable: r.name, cause });
    }
  }
  return started;
}

/** Stops every work at once; resolves once each settled (a failed stop counts as stopped). */
export async function stopAll(works: readonly RunningWork[]): Promise<void> {
  await Promise.allSettled(works.map(async (w) => w.stop()));
}

/**
 * The reflector's transitions, pure: the moves every input handler of `reflectorMachine.ts` ends
 * in — `stay`, `startList` (a streaming list or the first page), `startWatch`, `fail` (back off)
 * and `replace` (a complete list, then a watch) — with the status they emit on the way.
 */
import { backoffSuccess, nextBackoff, type NextBackoffOptions } from '../time/backoff.ts';
import { asError, type InvalidObjectError } from '../errors.ts';
import type { UnexpectedTypeError } from '../expectedType.ts';
import { NotPartialMetadataError } from '../partialObjectMetadata.ts';
import type { ReflectorAction, ReflectorModel, StepContext, StepResult } from './reflectorModel.ts';
import { listOptions, stallCheckOptions, stallMsOf, streamingOptions, watchOptions, watchSeconds } from './reflectorOptions.ts';
import type { KubeObject, ReflectorEvent, ReflectorStatus } from '../types.ts';

/** The action of most steps: nothing new to start (one shared instance: the watch's hot path). */
export const CONTINUE: ReflectorAction = Object.freeze({ type: 'continue' });

/** One step in progress: its context and the events it emits, in order. */
export interface Run<T extends KubeObject> {
  readonly ctx: StepContext<T>;
  readonly outputs: ReflectorEvent<T>[];
}

/** Nothing to start: the model as it now is, with what the step emitted. */
export function stay<T extends KubeObject>(run: Run<T>, model: ReflectorModel<T>): StepResult<T> {
  return { model, outputs: run.outputs, action: CONTINUE };
}

/** The model with its status patched, the new status emitted. */
export function setStatus<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, patch: Partial<ReflectorStatus>): ReflectorModel<T> {
  const status = { ...m.status, ...patch };
  if (!('backoffMs' in patch) && status.phase !== 'backingOff') delete status.backoffMs;
  if (status.listProgress === undefined) delete status.listProgress;
  if (status.lastError === undefined) delete status.lastError;
  if (status.warning === undefined) delete status.warning;
  run.outputs.push({ type: 'STATUS', status });
  return { ...m, status };
}

/**
 * Full objects where metadata was asked for (they are reduced): a `warning` that stays on the
 * status until a list answers with metadata only (see `replace`), once also as `lastError`.
 */
export function reportFullObjects<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, o: unknown): ReflectorModel<T> {
  if (m.fullObjectsReported) return m;
  if (m.status.warning instanceof NotPartialMetadataError) return { ...m, fullObjectsReported: true };
  const error = new NotPartialMetadataError(o);
  return setStatus(run, { ...m, fullObjectsReported: true }, { lastError: error, warning: error });
}

/**
 * Starts a list: a streaming one when asked for and the server is not known to refuse it (and not
 * `paged`: this list falls back from a refused one), else the first page.
 */
export function startList<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, consistent: boolean, paged = false): StepResult<T> {
  const { options, streaming, now } = run.ctx;
  const next = setStatus(run, m, {
    phase: 'listing',
    relistCount: m.status.hasSynced ? m.status.relistCount + 1 : m.status.relistCount,
    listProgress: { pages: 0, items: 0 },
  });
  Object.assign(next, { fullObjectsReported: false, resuming: false }); // `next` is a new model; a list ends a resume
  if (options.useStreamingList && !paged && (streaming?.shouldStream(now) ?? true)) {
    const idleMs = options.idleGraceMs + options.minWatchTimeoutSeconds * 2000;
    return {
      model: { ...next, state: { phase: 'streaming', items: [], invalid: [] } },
      outputs: run.outputs,
      action: { type: 'watch', options: streamingOptions(options, consistent), idleMs, ...stallMsOf(options) },
    };
  }
  return {
    model: { ...next, state: { phase: 'listing', consistent, items: [], invalid: [] } },
    outputs: run.outputs,
    action: { type: 'list', options: listOptions(options, consistent) },
  };
}

/**
 * Starts a watch from `rv`, with a random server-side timeout: `connecting` until it opens (see
 * `opened`), unless its stream is `open` already (a streaming list's, which goes on).
 */
export function startWatch<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, rv: string, open = false): StepResult<T> {
  const { options, random, now } = run.ctx;
  const seconds = watchSeconds(options, random, m.resuming === true); // short while resuming a snapshot
  const phase = open ? 'watching' : 'connecting';
  const next = m.status.phase === phase ? m : setStatus(run, m, { phase });
  return {
    model: { ...next, state: { phase: 'watching', rv, startedAt: now, events: 0 } },
    outputs: run.outputs,
    action: { type: 'watch', options: watchOptions(rv, seconds), idleMs: seconds * 1000 + options.idleGraceMs, ...stallMsOf(options) },
  };
}

/**
 * The watch is open: `connecting` becomes `watching` (on `WATCH_OPENED`, or on the first event from
 * a ListerWatcher that sends none). The last error stays until a good event, as after a list. A
 * watch resuming a snapshot gets a check beside it (see `stallVerdict`'s `resuming`).
 */
export function opened<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>): StepResult<T> {
  const next = m.status.phase === 'connecting' ? setStatus(run, m, { phase: 'watching' }) : m;
  if (!next.resuming || next.state.phase !== 'watching' || next.state.checking) return stay(run, next);
  const state = { ...next.state, checking: true };
  return { model: { ...next, state }, outputs: run.outputs, action: { type: 'check', options: stallCheckOptions() } };
}

/** A failure: back off, then resume with a list or a watch (a first 410 after health relists at once). */
export function fail<T extends KubeObject>(
  run: Run<T>,
  m: ReflectorModel<T>,
  error: unknown,
  resume: 'list' | 'watch',
  consistent = false,
  how?: NextBackoffOptions,
): StepResult<T> {
  const { ctx } = run;
  const { delayMs, state: backoff } = nextBackoff(m.backoff, error, ctx.now, ctx.options.backoff, ctx.random, how);
  // Only a first failure counted as immediate skips the wait (never a zero `initialMs`: that
  // still yields to the scheduler, so a source failing synchronously cannot spin).
  if (how?.firstImmediate && delayMs === 0 && resume === 'list')
    return startList(run, setStatus(run, { ...m, backoff }, { lastError: asError(error) }), consistent);
  const next = setStatus(
    run,
    { ...m, backoff, state: { phase: 'backingOff', resume, consistent, rv: m.rv } },
    { phase: 'backingOff', lastError: asError(error), backoffMs: delayMs },
  );
  return { model: next, outputs: run.outputs, action: { type: 'wait', ms: delayMs } };
}

/**
 * A complete list: emitted as one `replace`, then a watch from its resource version.
 * `rejected`: the list's objects of another type, reported on the status after the list.
 */
export function replace<T extends KubeObject>(
  run: Run<T>,
  m: ReflectorModel<T>,
  items: T[],
  rv: string,
  rejected: UnexpectedTypeError | undefined,
  invalid: InvalidObjectError[],
  open = false,
): StepResult<T> {
  run.outputs.push(
    invalid.length === 0 ? { type: 'LIST', items, resourceVersion: rv } : { type: 'LIST', items, resourceVersion: rv, invalid },
  );
  // A list of metadata only ends the report of full objects (a server or proxy fixed since).
  const warning = m.fullObjectsReported || items.length === 0 ? m.status.warning : undefined;
  const next = setStatus(
    run,
    { ...m, backoff: backoffSuccess(m.backoff, run.ctx.now), rv, emptyWatches: 0 },
    { lastSyncResourceVersion: rv, hasSynced: true, lastError: rejected, listProgress: undefined, warning },
  );
  return startWatch(run, next, rv, open);
}

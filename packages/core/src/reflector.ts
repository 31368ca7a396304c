/**
 * The reflector: lists, then watches, and keeps doing so whatever the network does
 * (client-go's `Reflector.ListAndWatch`). A discriminated-union state advanced by the pure
 * `step` function; `reflector()` unfolds it into an Observable that never completes on its own.
 */
import { Observable, asyncScheduler, defer, map, timer, type SchedulerLike, type Subscription } from 'rxjs';
import { backoffSuccess, nextBackoff, resolveBackoff, type BackoffOptions, type BackoffState, type ResolvedBackoff } from './backoff.ts';
import { InvalidObjectError, InvalidOptionsError, KubeApiError, RxInformerError } from './errors.ts';
import { idleTimeout } from './idleTimeout.ts';
import { INITIAL_EVENTS_END_ANNOTATION } from './types.ts';
import type { KubeObject, ListOptions, ListPage, ListerWatcher, ReflectorEvent, ReflectorStatus, Status, WatchEvent, WatchOptions } from './types.ts';

/** Options of `reflector`. */
export interface ReflectorOptions {
  /** Page size of lists. Default 500. */
  pageSize?: number;
  /** Label selector for both list and watch. Default: none. */
  labelSelector?: string;
  /** Field selector for both list and watch. Default: none. */
  fieldSelector?: string;
  /**
   * Resource version of the first list: `undefined` (default) is a consistent, paged read;
   * `"0"` lets the server answer from its cache (it then ignores `limit`). Relists after a 410
   * always use a consistent read.
   */
  initialListResourceVersion?: '0';
  /** List with a streaming watch (`sendInitialEvents`), falling back to paging when refused. Default false. */
  useStreamingList?: boolean;
  /** Watches ask the server to close after a random time in [min, 2 × min] seconds. Default 300. */
  minWatchTimeoutSeconds?: number;
  /** A watch with no event for its timeout plus this grace is considered dead. Default 30 000 ms. */
  idleGraceMs?: number;
  /** Backoff after failures. Defaults: 800 ms doubling to 30 s, jitter 0.5, reset after 2 min. */
  backoff?: BackoffOptions;
  /** Consecutive watches closed at once (under 1 s, no event) that trigger a relist. Default 3. */
  maxEmptyWatches?: number;
  /** Where time runs (backoff, timeouts). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Source of randomness for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
}

/** The watch stream stayed silent past its deadline. */
export class WatchIdleError extends RxInformerError {
  constructor(ms: number) {
    super('WatchIdle', `watch stream idle for ${ms} ms; reconnecting`);
  }
}

/** Watches kept closing at once with no event. */
export class WatchClosedError extends RxInformerError {
  constructor(count: number) {
    super('WatchClosedImmediately', `${count} watches in a row closed at once with no event; relisting`);
  }
}

/** A watch event whose `type` the protocol does not define. */
export class UnknownWatchEventError extends RxInformerError {
  constructor(type: unknown) {
    super('UnknownWatchEvent', `watch event of unknown type ${JSON.stringify(type)} skipped`);
  }
}

/** What the reflector does next. */
export type ReflectorAction =
  | { kind: 'list'; options: ListOptions }
  | { kind: 'watch'; options: WatchOptions; idleMs: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'continue' };

/** The state of the machine. `rv` is the last resource version seen (opaque). */
export type ReflectorState<T extends KubeObject> =
  | { phase: 'listing'; consistent: boolean; continue?: string; listRv?: string; items: T[] }
  | { phase: 'streaming'; items: T[] }
  | { phase: 'watching'; rv: string; startedAt: number; events: number }
  | { phase: 'backingOff'; resume: 'list' | 'watch'; consistent: boolean; rv?: string };

/** The inputs that advance the machine. */
export type ReflectorInput<T extends KubeObject> =
  | { kind: 'start' }
  | { kind: 'page'; page: ListPage<T> }
  | { kind: 'event'; event: WatchEvent<T> }
  | { kind: 'closed' }
  | { kind: 'error'; error: unknown }
  | { kind: 'waited' };

/** Everything `step` needs besides the state. */
export interface ReflectorModel<T extends KubeObject> {
  /** Where the list/watch state machine is. */
  state: ReflectorState<T>;
  /** The status last emitted. */
  status: ReflectorStatus;
  /** Failures since the last success, for the next delay. */
  backoff: BackoffState;
  /** Watches in a row that closed at once with no event (three relist after a backoff). */
  emptyWatches: number;
  /** True once the server refused a streaming list: page from then on. */
  streamingRefused: boolean;
  /** The last resource version known, kept across relists and errors. */
  rv?: string;
}

interface StepContext {
  options: ResolvedReflectorOptions;
  now: number;
  random: () => number;
}

type ResolvedReflectorOptions = Required<Omit<ReflectorOptions, 'labelSelector' | 'fieldSelector' | 'initialListResourceVersion' | 'backoff' | 'scheduler' | 'random'>> &
  Pick<ReflectorOptions, 'labelSelector' | 'fieldSelector' | 'initialListResourceVersion'> & { backoff: ResolvedBackoff };

/** The result of one step: the new model, events to emit, and the next action. */
export interface StepResult<T extends KubeObject> {
  /** The next model. */
  model: ReflectorModel<T>;
  /** Events to emit, in order. */
  outputs: ReflectorEvent<T>[];
  /** What the driver must do next (list, watch, wait…). */
  action: ReflectorAction;
}

/** The model before the first step. */
export function initialReflectorModel<T extends KubeObject>(): ReflectorModel<T> {
  return {
    state: { phase: 'listing', consistent: false, items: [] },
    status: { phase: 'listing', relistCount: 0, hasSynced: false },
    backoff: { failures: 0 },
    emptyWatches: 0,
    streamingRefused: false,
  };
}

/** The pure transition function of the reflector. */
export function step<T extends KubeObject>(model: ReflectorModel<T>, input: ReflectorInput<T>, ctx: StepContext): StepResult<T> {
  const { state } = model;
  const outputs: ReflectorEvent<T>[] = [];
  const setStatus = (m: ReflectorModel<T>, patch: Partial<ReflectorStatus>): ReflectorModel<T> => {
    const status = { ...m.status, ...patch };
    if (!('backoffMs' in patch) && status.phase !== 'backingOff') delete status.backoffMs;
    if (status.listProgress === undefined) delete status.listProgress;
    outputs.push({ type: 'status', status });
    return { ...m, status };
  };
  const startList = (m: ReflectorModel<T>, consistent: boolean): StepResult<T> => {
    let next = setStatus(m, { phase: 'listing', relistCount: m.status.hasSynced ? m.status.relistCount + 1 : m.status.relistCount, listProgress: { pages: 0, items: 0 } });
    if (ctx.options.useStreamingList && !next.streamingRefused) {
      next = { ...next, state: { phase: 'streaming', items: [] } };
      return { model: next, outputs, action: { kind: 'watch', options: streamingOptions(ctx.options), idleMs: ctx.options.idleGraceMs + ctx.options.minWatchTimeoutSeconds * 2000 } };
    }
    next = { ...next, state: { phase: 'listing', consistent, items: [] } };
    return { model: next, outputs, action: { kind: 'list', options: listOptions(ctx.options, consistent) } };
  };
  const startWatch = (m: ReflectorModel<T>, rv: string): StepResult<T> => {
    const seconds = Math.floor(ctx.options.minWatchTimeoutSeconds * (1 + ctx.random()));
    let next = m.status.phase === 'watching' ? m : setStatus(m, { phase: 'watching' });
    next = { ...next, state: { phase: 'watching', rv, startedAt: ctx.now, events: 0 } };
    const options: WatchOptions = { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: seconds, ...selectors(ctx.options) };
    return { model: next, outputs, action: { kind: 'watch', options, idleMs: seconds * 1000 + ctx.options.idleGraceMs } };
  };
  const fail = (m: ReflectorModel<T>, error: unknown, resume: 'list' | 'watch', consistent = false): StepResult<T> => {
    const { delayMs, state: backoff } = nextBackoff(m.backoff, error, ctx.now, ctx.options.backoff, ctx.random);
    const next = setStatus({ ...m, backoff, state: { phase: 'backingOff', resume, consistent, rv: m.rv } }, {
      phase: 'backingOff', lastError: asError(error), backoffMs: delayMs,
    });
    return { model: next, outputs, action: { kind: 'wait', ms: delayMs } };
  };
  const healthy = (m: ReflectorModel<T>): ReflectorModel<T> => ({ ...m, backoff: backoffSuccess(m.backoff, ctx.now) });
  const replace = (m: ReflectorModel<T>, items: T[], rv: string): StepResult<T> => {
    outputs.push({ type: 'replace', items, resourceVersion: rv });
    const next = setStatus({ ...healthy(m), rv, emptyWatches: 0 }, { lastSyncResourceVersion: rv, hasSynced: true, lastError: undefined, listProgress: undefined });
    return startWatch(next, rv);
  };

  switch (input.kind) {
    case 'start':
      return startList(model, ctx.options.initialListResourceVersion === undefined);
    case 'waited': {
      if (state.phase !== 'backingOff') return { model, outputs, action: { kind: 'continue' } };
      if (state.resume === 'watch' && state.rv !== undefined) return startWatch(model, state.rv);
      return startList(model, state.consistent || ctx.options.initialListResourceVersion === undefined);
    }
    case 'page': {
      if (state.phase !== 'listing') return { model, outputs, action: { kind: 'continue' } };
      const page = input.page;
      const listRv = state.listRv ?? page?.metadata?.resourceVersion;
      if (!page || !Array.isArray(page.items) || !listRv) {
        return fail(model, new InvalidObjectError(!page || !Array.isArray(page.items) ? 'list page has no items array' : 'list page has no metadata.resourceVersion', page), 'list', state.consistent);
      }
      const items = state.items.length === 0 ? page.items : state.items.concat(page.items);
      const token = page.metadata?.continue;
      if (token) {
        const progress = { pages: (model.status.listProgress?.pages ?? 0) + 1, items: items.length };
        const next = setStatus({ ...model, state: { ...state, continue: token, listRv, items } }, { listProgress: progress });
        return { model: next, outputs, action: { kind: 'list', options: { ...listOptions(ctx.options, state.consistent), continue: token, resourceVersion: undefined } } };
      }
      return replace(model, items, listRv);
    }
    case 'event': {
      const event = input.event;
      if (state.phase === 'streaming') {
        // The accumulator belongs to this streaming state alone; appending avoids O(n²) copies.
        if (event.type === 'ADDED') { state.items.push(event.object); return { model, outputs, action: { kind: 'continue' } }; }
        if (event.type === 'BOOKMARK' && event.object?.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
          const rv = event.object.metadata.resourceVersion;
          if (!rv) return fail(model, new InvalidObjectError('initial-events-end bookmark has no resourceVersion', event), 'list', true);
          const result = replace(model, state.items, rv);
          return { ...result, action: { kind: 'continue' } }; // the same stream carries on with live events
        }
      }
      if (state.phase !== 'watching' && state.phase !== 'streaming') return { model, outputs, action: { kind: 'continue' } };
      // The hot path of a busy watch: one new state and one new model per event.
      const known = event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK';
      const rv = known ? event.object?.metadata?.resourceVersion : undefined;
      const watching = state.phase === 'watching' ? { phase: 'watching' as const, rv: rv || state.rv, startedAt: state.startedAt, events: state.events + 1 } : state;
      const next: ReflectorModel<T> = { ...model, backoff: backoffSuccess(model.backoff, ctx.now), state: watching, emptyWatches: 0 };
      if (rv) next.rv = rv;
      switch (event.type) {
        case 'ADDED': case 'MODIFIED': case 'DELETED':
          outputs.push({ type: event.type === 'ADDED' ? 'added' : event.type === 'MODIFIED' ? 'modified' : 'deleted', object: event.object });
          return { model: next, outputs, action: { kind: 'continue' } };
        case 'BOOKMARK': {
          if (!rv) return { model: setStatus(next, { lastError: new InvalidObjectError('bookmark without resourceVersion', event) }), outputs, action: { kind: 'continue' } };
          outputs.push({ type: 'bookmark', resourceVersion: rv });
          return { model: setStatus(next, { lastSyncResourceVersion: rv }), outputs, action: { kind: 'continue' } };
        }
        case 'ERROR': {
          const status = event.object as Status;
          const error = new KubeApiError(typeof status?.code === 'number' ? status.code : 500, { status, reason: status?.reason ?? 'WatchError' });
          return onError(model, error);
        }
        default:
          return { model: setStatus(next, { lastError: new UnknownWatchEventError((event as { type?: unknown }).type) }), outputs, action: { kind: 'continue' } };
      }
    }
    case 'closed': {
      if (state.phase === 'streaming') return fail(model, new WatchClosedError(1), 'list', true);
      if (state.phase !== 'watching') return { model, outputs, action: { kind: 'continue' } };
      const empty = state.events === 0 && ctx.now - state.startedAt < 1000;
      const emptyWatches = empty ? model.emptyWatches + 1 : 0;
      if (emptyWatches >= ctx.options.maxEmptyWatches) return fail({ ...model, emptyWatches: 0 }, new WatchClosedError(emptyWatches), 'list', true);
      return startWatch({ ...model, emptyWatches }, state.rv);
    }
    case 'error':
      return onError(model, input.error);
  }

  function onError(m: ReflectorModel<T>, error: unknown): StepResult<T> {
    const s = m.state;
    const gone = error instanceof KubeApiError && error.code === 410;
    if (s.phase === 'streaming' && error instanceof KubeApiError && (error.code === 422 || error.code === 400) && s.items.length === 0) {
      // The server does not do streaming lists: page from now on.
      return startList(setStatus({ ...m, streamingRefused: true }, { lastError: error }), true);
    }
    if (gone) return startList(setStatus(m, { lastError: error }), true);
    if (error instanceof WatchIdleError && s.phase === 'watching') return startWatch(setStatus(m, { lastError: error }), s.rv);
    if (s.phase === 'watching') return fail(m, error, 'watch');
    return fail(m, error, 'list', s.phase === 'listing' ? s.consistent : true);
  }
}

function selectors(o: ResolvedReflectorOptions): { labelSelector?: string; fieldSelector?: string } {
  return { ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}), ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}) };
}

function listOptions(o: ResolvedReflectorOptions, consistent: boolean): ListOptions {
  return { limit: o.pageSize, ...(consistent ? {} : { resourceVersion: o.initialListResourceVersion }), ...selectors(o) };
}

function streamingOptions(o: ResolvedReflectorOptions): WatchOptions {
  return { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, resourceVersion: '', timeoutSeconds: o.minWatchTimeoutSeconds * 2, ...selectors(o) };
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new RxInformerError('Unknown', String(e), { cause: e });
}

function resolveOptions(options: ReflectorOptions): ResolvedReflectorOptions {
  const positive = (name: string, value: number | undefined, dflt: number, min = 1): number => {
    const v = value ?? dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new InvalidOptionsError(`${name} must be a number >= ${min}, got ${value}`);
    return v;
  };
  if (options.initialListResourceVersion !== undefined && options.initialListResourceVersion !== '0') {
    throw new InvalidOptionsError(`initialListResourceVersion must be "0" or unset, got ${JSON.stringify(options.initialListResourceVersion)}`);
  }
  return {
    pageSize: positive('pageSize', options.pageSize, 500),
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    initialListResourceVersion: options.initialListResourceVersion,
    useStreamingList: options.useStreamingList ?? false,
    minWatchTimeoutSeconds: positive('minWatchTimeoutSeconds', options.minWatchTimeoutSeconds, 300),
    idleGraceMs: positive('idleGraceMs', options.idleGraceMs, 30_000, 0),
    maxEmptyWatches: positive('maxEmptyWatches', options.maxEmptyWatches, 3),
    backoff: resolveBackoff(options.backoff),
  };
}

/**
 * Lists and watches `lw` forever, emitting a `replace` for each complete list, the watch's
 * changes, bookmarks, and a `status` on every change of condition. Cold: each subscription runs
 * its own list and watch; unsubscribing aborts the request in flight and clears every timer.
 * The Observable never errors and never completes: failures are `status` events.
 *
 * Caveat: a relist's `replace` carries the whole list; consumers apply it atomically.
 *
 * @example
 * reflector(lw, { pageSize: 500 }).pipe(scan(createDeltaReducer(), initialDeltaState()));
 */
export function reflector<T extends KubeObject>(lw: ListerWatcher<T>, options: ReflectorOptions = {}): Observable<ReflectorEvent<T>> {
  const resolved = resolveOptions(options);
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  return new Observable<ReflectorEvent<T>>((subscriber) => {
    let model = initialReflectorModel<T>();
    let current: Subscription | undefined;
    let generation = 0;
    const queue: { input: ReflectorInput<T>; generation: number }[] = [];
    let draining = false;

    const run = (action: ReflectorAction): void => {
      if (action.kind === 'continue') return;
      current?.unsubscribe();
      const gen = ++generation;
      const source: Observable<ReflectorInput<T>> =
        action.kind === 'wait' ? timer(action.ms, scheduler).pipe(map(() => ({ kind: 'waited' as const })))
        : action.kind === 'list' ? defer(() => lw.list(action.options)).pipe(map((page) => ({ kind: 'page' as const, page })))
        : defer(() => lw.watch(action.options)).pipe(
            idleTimeout(action.idleMs, scheduler, () => new WatchIdleError(action.idleMs)),
            map((event) => ({ kind: 'event' as const, event })),
          );
      let got = false;
      current = source.subscribe({
        next: (input) => { got = true; feed(input, gen); },
        error: (error) => feed({ kind: 'error', error }, gen),
        complete: () => {
          if (action.kind === 'watch') feed({ kind: 'closed' }, gen);
          else if (action.kind === 'list' && !got) feed({ kind: 'error', error: new InvalidObjectError('list request completed without a page', undefined) }, gen);
        },
      });
    };

    const feed = (input: ReflectorInput<T>, gen: number): void => {
      queue.push({ input, generation: gen });
      if (draining) return;
      draining = true;
      try {
        while (queue.length > 0 && !subscriber.closed) {
          const next = queue.shift()!;
          if (next.generation !== generation) continue; // from a stream we already left
          const result = step(model, next.input, { options: resolved, now: scheduler.now(), random });
          model = result.model;
          for (const out of result.outputs) subscriber.next(out);
          run(result.action);
        }
      } finally {
        draining = false;
      }
    };

    feed({ kind: 'start' }, generation);
    return () => {
      generation = -1;
      current?.unsubscribe();
    };
  });
}


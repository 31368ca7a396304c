/**
 * The reflector: lists, then watches, and keeps doing so whatever the network does
 * (client-go's `Reflector.ListAndWatch`). A discriminated-union state advanced by the pure
 * `step` function; `reflector()` unfolds it into an Observable that never completes on its own.
 * The states, inputs, options and errors are in `reflectorModel.ts`. A misbehaving server costs a
 * bounded amount: repeated 410s back off, `Retry-After` is capped, a list is bounded in pages and
 * objects, and objects of another type than `expectedType` are skipped.
 */
import { Observable, asyncScheduler, defer, map, type Subscription } from 'rxjs';
import { backoffSuccess, nextBackoff, type NextBackoffOptions } from './backoff.ts';
import { InvalidObjectError, KubeApiError } from './errors.ts';
import { addRejected, hasExpectedType, keepExpected, UnexpectedTypeError, type ExpectedType } from './expectedType.ts';
import { asPartialObjectMetadata, expectsMetadata, NotPartialMetadataError } from './partialObjectMetadata.ts';
import { idleTimeout } from './idleTimeout.ts';
import { timerAfter } from './longTimer.ts';
import {
  ListTooLargeError,
  UnknownWatchEventError,
  WatchClosedError,
  WatchIdleError,
  asError,
  initialReflectorModel,
  listOptions,
  resolveOptions,
  selectors,
  streamingOptions,
  type ReflectorAction,
  type ReflectorInput,
  type ReflectorModel,
  type ReflectorOptions,
  type StepContext,
  type StepResult,
} from './reflectorModel.ts';
import { INITIAL_EVENTS_END_ANNOTATION } from './types.ts';
import type { KubeObject, ListerWatcher, ReflectorEvent, ReflectorStatus, Status, WatchOptions } from './types.ts';

/** The action of most steps: nothing new to start (one shared instance: the watch's hot path). */
const CONTINUE: ReflectorAction = Object.freeze({ kind: 'continue' });

/** The pure transition function of the reflector. */
export function step<T extends KubeObject>(model: ReflectorModel<T>, input: ReflectorInput<T>, ctx: StepContext): StepResult<T> {
  const { state } = model;
  const outputs: ReflectorEvent<T>[] = [];
  const setStatus = (m: ReflectorModel<T>, patch: Partial<ReflectorStatus>): ReflectorModel<T> => {
    const status = { ...m.status, ...patch };
    if (!('backoffMs' in patch) && status.phase !== 'backingOff') delete status.backoffMs;
    if (status.listProgress === undefined) delete status.listProgress;
    if (status.lastError === undefined) delete status.lastError;
    outputs.push({ type: 'status', status });
    return { ...m, status };
  };
  // Full objects where metadata was asked for: reduced, and reported once per run.
  const reportFullObjects = (m: ReflectorModel<T>, object: unknown): ReflectorModel<T> =>
    m.fullObjectsReported ? m : setStatus({ ...m, fullObjectsReported: true }, { lastError: new NotPartialMetadataError(object) });
  const startList = (m: ReflectorModel<T>, consistent: boolean): StepResult<T> => {
    let next = setStatus(m, {
      phase: 'listing',
      relistCount: m.status.hasSynced ? m.status.relistCount + 1 : m.status.relistCount,
      listProgress: { pages: 0, items: 0 },
    });
    if (ctx.options.useStreamingList && !next.streamingRefused) {
      next = { ...next, state: { phase: 'streaming', items: [] } };
      return {
        model: next,
        outputs,
        action: {
          kind: 'watch',
          options: streamingOptions(ctx.options),
          idleMs: ctx.options.idleGraceMs + ctx.options.minWatchTimeoutSeconds * 2000,
        },
      };
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
  const fail = (
    m: ReflectorModel<T>,
    error: unknown,
    resume: 'list' | 'watch',
    consistent = false,
    how?: NextBackoffOptions,
  ): StepResult<T> => {
    const { delayMs, state: backoff } = nextBackoff(m.backoff, error, ctx.now, ctx.options.backoff, ctx.random, how);
    // Only a first failure counted as immediate skips the wait (never a zero `initialMs`: that
    // still yields to the scheduler, so a source failing synchronously cannot spin).
    if (how?.firstImmediate && delayMs === 0 && resume === 'list')
      return startList(setStatus({ ...m, backoff }, { lastError: asError(error) }), consistent);
    const next = setStatus(
      { ...m, backoff, state: { phase: 'backingOff', resume, consistent, rv: m.rv } },
      {
        phase: 'backingOff',
        lastError: asError(error),
        backoffMs: delayMs,
      },
    );
    return { model: next, outputs, action: { kind: 'wait', ms: delayMs } };
  };
  const healthy = (m: ReflectorModel<T>): ReflectorModel<T> => ({ ...m, backoff: backoffSuccess(m.backoff, ctx.now) });
  // `rejected`: the list's objects of another type, reported on the status after the list.
  const replace = (m: ReflectorModel<T>, items: T[], rv: string, rejected?: UnexpectedTypeError): StepResult<T> => {
    outputs.push({ type: 'replace', items, resourceVersion: rv });
    const next = setStatus(
      { ...healthy(m), rv, emptyWatches: 0 },
      { lastSyncResourceVersion: rv, hasSynced: true, lastError: rejected, listProgress: undefined },
    );
    return startWatch(next, rv);
  };

  switch (input.kind) {
    case 'start':
      return startList(model, ctx.options.initialListResourceVersion === undefined);
    case 'waited': {
      if (state.phase !== 'backingOff') return { model, outputs, action: CONTINUE };
      if (state.resume === 'watch' && state.rv !== undefined) return startWatch(model, state.rv);
      return startList(model, state.consistent || ctx.options.initialListResourceVersion === undefined);
    }
    case 'page': {
      if (state.phase !== 'listing') return { model, outputs, action: CONTINUE };
      const page = input.page;
      const listRv = state.listRv ?? page?.metadata?.resourceVersion;
      if (!page || !Array.isArray(page.items) || !listRv) {
        return fail(
          model,
          new InvalidObjectError(
            !page || !Array.isArray(page.items) ? 'list page has no items array' : 'list page has no metadata.resourceVersion',
            page,
          ),
          'list',
          state.consistent,
        );
      }
      const token = page.metadata?.continue;
      const { pages = 0, items: before = 0 } = model.status.listProgress ?? {};
      const received = { pages: pages + 1, items: before + page.items.length };
      const { maxListItems, maxListPages } = ctx.options;
      if (received.items > maxListItems || (token && received.pages >= maxListPages)) {
        const limit = received.items > maxListItems ? 'maxListItems' : 'maxListPages';
        const error = new ListTooLargeError(limit, ctx.options[limit], received);
        return fail(model, error, 'list', state.consistent);
      }
      const { items: expected, full } = asMetadataIf(ctx.options.expectedType, page.items);
      if (full !== undefined) model = reportFullObjects(model, full);
      const { items: kept, rejected } = keepExpected(ctx.options.expectedType, expected, state.rejected);
      const items = state.items.length === 0 ? kept : state.items.concat(kept);
      if (token) {
        const next = setStatus({ ...model, state: { ...state, continue: token, listRv, items, rejected } }, { listProgress: received });
        return {
          model: next,
          outputs,
          action: { kind: 'list', options: { ...listOptions(ctx.options, state.consistent), continue: token, resourceVersion: undefined } },
        };
      }
      return replace(model, items, listRv, rejected);
    }
    case 'event': {
      let event = input.event;
      if (event === null || typeof event !== 'object') {
        // A ListerWatcher that emits no object: skipped and reported, like an unknown type.
        return {
          model: setStatus(model, { lastError: new InvalidObjectError('watch event is not an object; skipped', event) }),
          outputs,
          action: CONTINUE,
        };
      }
      const known = event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK';
      const expected = ctx.options.expectedType;
      if (known && expectsMetadata(expected)) {
        // A metadata-only watch answered with full objects (the server ignores `as=`): their metadata.
        const { object, full } = asPartialObjectMetadata(event.object);
        if (full) model = reportFullObjects(model, event.object);
        event = { ...event, object } as typeof event;
      }
      const ofType = !known || hasExpectedType(expected, event.object);
      if (state.phase === 'streaming') {
        // The accumulator belongs to this streaming state alone; appending avoids O(n²) copies.
        if (event.type === 'ADDED') {
          const held = state.items.length + (state.rejected?.count ?? 0);
          if (held >= ctx.options.maxListItems) {
            const error = new ListTooLargeError('maxListItems', ctx.options.maxListItems, { pages: 0, items: held + 1 });
            return fail(model, error, 'list', true);
          }
          if (ofType) state.items.push(event.object);
          else state.rejected = addRejected(expected!, event.object, 1, state.rejected);
          return { model, outputs, action: CONTINUE };
        }
        if (event.type === 'BOOKMARK' && ofType && event.object?.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
          const rv = event.object.metadata.resourceVersion;
          if (!rv) return fail(model, new InvalidObjectError('initial-events-end bookmark has no resourceVersion', event), 'list', true);
          const result = replace(model, state.items, rv, state.rejected);
          return { ...result, action: CONTINUE }; // the same stream carries on with live events
        }
      }
      if (state.phase !== 'watching' && state.phase !== 'streaming') return { model, outputs, action: CONTINUE };
      // An object of another type: skipped and reported, its resource version not taken (client-go).
      if (!ofType)
        return { model: setStatus(model, { lastError: new UnexpectedTypeError(expected!, event.object) }), outputs, action: CONTINUE };
      // The hot path of a busy watch: one new state and one new model per event.
      const rv = known ? event.object?.metadata?.resourceVersion : undefined;
      const watching =
        state.phase === 'watching'
          ? { phase: 'watching' as const, rv: rv || state.rv, startedAt: state.startedAt, events: state.events + 1 }
          : state;
      let next: ReflectorModel<T> = { ...model, backoff: backoffSuccess(model.backoff, ctx.now), state: watching, emptyWatches: 0 };
      if (rv) next.rv = rv;
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED':
        case 'DELETED':
          // A good event ends the last failure's report (one status when there was one, none after).
          if (next.status.lastError !== undefined) next = setStatus(next, { lastError: undefined });
          outputs.push({
            type: event.type === 'ADDED' ? 'added' : event.type === 'MODIFIED' ? 'modified' : 'deleted',
            object: event.object,
          });
          return { model: next, outputs, action: CONTINUE };
        case 'BOOKMARK': {
          if (!rv)
            return {
              model: setStatus(next, { lastError: new InvalidObjectError('bookmark without resourceVersion', event) }),
              outputs,
              action: CONTINUE,
            };
          outputs.push({ type: 'bookmark', resourceVersion: rv });
          return { model: setStatus(next, { lastSyncResourceVersion: rv, lastError: undefined }), outputs, action: CONTINUE };
        }
        case 'ERROR': {
          const status = event.object as Status;
          const error = new KubeApiError(typeof status?.code === 'number' ? status.code : 500, {
            status,
            reason: status?.reason ?? 'WatchError',
          });
          return onError(model, error);
        }
        default:
          return {
            model: setStatus(next, { lastError: new UnknownWatchEventError((event as { type?: unknown }).type) }),
            outputs,
            action: CONTINUE,
          };
      }
    }
    case 'closed': {
      if (state.phase === 'streaming') return fail(model, new WatchClosedError(1), 'list', true);
      if (state.phase !== 'watching') return { model, outputs, action: CONTINUE };
      const empty = state.events === 0 && ctx.now - state.startedAt < 1000;
      const emptyWatches = empty ? model.emptyWatches + 1 : 0;
      if (emptyWatches >= ctx.options.maxEmptyWatches)
        return fail({ ...model, emptyWatches: 0 }, new WatchClosedError(emptyWatches), 'list', true);
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
    // 410: relist with a consistent read; at once after a healthy period (compaction, the common
    // case), with backoff when it repeats (a server or gateway answering 410 to everything).
    if (gone) return fail(m, error, 'list', true, { firstImmediate: true });
    if (error instanceof WatchIdleError && s.phase === 'watching') return startWatch(setStatus(m, { lastError: error }), s.rv);
    if (s.phase === 'watching') return fail(m, error, 'watch');
    return fail(m, error, 'list', s.phase === 'listing' ? s.consistent : true);
  }
}

/** `items` as PartialObjectMetadata when metadata is expected, and the first full object among them. */
function asMetadataIf<T>(expected: ExpectedType | undefined, items: T[]): { items: T[]; full?: unknown } {
  if (!expectsMetadata(expected)) return { items };
  let full: unknown;
  let changed = false;
  const out = items.map((item) => {
    const r = asPartialObjectMetadata(item);
    if (r.full && full === undefined) full = item;
    if (r.object !== item) changed = true;
    return r.object;
  });
  return { items: changed ? out : items, full };
}

/**
 * Lists and watches `lw` forever, emitting a `replace` for each complete list, the watch's
 * changes, bookmarks, and a `status` on every change of condition. Cold: each subscription runs
 * its own list and watch; unsubscribing aborts the request in flight and clears every timer.
 * The Observable never errors and never completes: failures are `status` events (a 410 relists
 * at once after a healthy period, with backoff when it repeats; a list past `maxListPages` or
 * `maxListItems` fails with `ListTooLargeError`; an object of another type than `expectedType` is
 * skipped with an `UnexpectedTypeError`).
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
      // Nothing new once the subscriber left (it may leave while an output is being emitted).
      if (action.kind === 'continue' || subscriber.closed) return;
      current?.unsubscribe();
      const gen = ++generation;
      const source: Observable<ReflectorInput<T>> =
        action.kind === 'wait'
          ? timerAfter(action.ms, scheduler).pipe(map(() => ({ kind: 'waited' as const })))
          : action.kind === 'list'
            ? defer(() => lw.list(action.options)).pipe(map((page) => ({ kind: 'page' as const, page })))
            : defer(() => lw.watch(action.options)).pipe(
                idleTimeout(action.idleMs, scheduler, () => new WatchIdleError(action.idleMs)),
                map((event) => ({ kind: 'event' as const, event })),
              );
      let got = false;
      current = source.subscribe({
        next: (input) => {
          got = true;
          feed(input, gen);
        },
        error: (error) => feed({ kind: 'error', error }, gen),
        complete: () => {
          if (action.kind === 'watch') feed({ kind: 'closed' }, gen);
          else if (action.kind === 'list' && !got)
            feed({ kind: 'error', error: new InvalidObjectError('list request completed without a page', undefined) }, gen);
        },
      });
    };

    const advance = (input: ReflectorInput<T>, gen: number): void => {
      if (gen !== generation || subscriber.closed) return; // from a stream we already left
      const result = step(model, input, { options: resolved, now: scheduler.now(), random });
      model = result.model;
      for (const out of result.outputs) {
        if (subscriber.closed) return;
        subscriber.next(out);
      }
      run(result.action);
    };
    // Inputs that arrive while one is being handled (a consumer reacting synchronously, a source
    // answering at once) wait their turn; the common case, one at a time, goes straight through.
    const feed = (input: ReflectorInput<T>, gen: number): void => {
      if (draining) {
        queue.push({ input, generation: gen });
        return;
      }
      draining = true;
      try {
        advance(input, gen);
        while (queue.length > 0 && !subscriber.closed) {
          const next = queue.shift()!;
          advance(next.input, next.generation);
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

/**
 * The reflector's state machine, pure: `step`, which advances a model by one input and says what
 * to emit and what to do next (the states, inputs and model are in `reflectorModel.ts`, the
 * transitions every handler ends in in `reflectorTransitions.ts`).
 * `reflector.ts` drives it with RxJS; `reflectorOptions.ts` holds the options and the requests they make.
 *
 * `step` hands each input to a function of its own (`onPage`, `onEvent`, `onClosed`, `onError`,
 * `onStallInput` for the stall check's, judged in `stallCheck.ts`), which ends in one of the
 * transitions `startList`, `startWatch`, `fail` or `replace`.
 */
import { backoffSuccess } from '../time/backoff.ts';
import { InvalidObjectError, KubeApiError } from '../errors.ts';
import { admit, admitItems } from './admission.ts';
import { addRejected, UnexpectedTypeError } from '../expectedType.ts';
import {
  ListTooLargeError,
  UnknownWatchEventError,
  WatchClosedError,
  WatchIdleError,
  WatchListUnsupportedError,
} from './reflectorErrors.ts';
import { append, type ReflectorModel, type ReflectorInput, type ReflectorState } from './reflectorModel.ts';
import type { StepContext, StepResult } from './reflectorModel.ts';
import {
  CONTINUE,
  fail,
  opened,
  replace,
  reportFullObjects,
  setStatus,
  startList,
  startWatch,
  stay,
  type Run,
} from './reflectorTransitions.ts';
import { prepareItems, prepareObjectEvent } from '../store/prepare.ts';
import { stallVerdict } from './stallCheck.ts';
import { isStreamingRefusal } from './streamingListSupport.ts';
import { listOptions, stallCheckOptions } from './reflectorOptions.ts';
import { INITIAL_EVENTS_END_ANNOTATION } from '../types.ts';
import type { KubeObject, ListPage, Status, WatchEvent } from '../types.ts';

/**
 * The transition function of the reflector: the next model, the events to emit and the next
 * action, from the model and one input. Pure, but for two things: the objects of a list in
 * progress are appended to that list's own array (`items` of the state) in place, so a model is
 * stepped once and then replaced by its successor, as the driver does; and the server's support
 * record for streaming lists (`ctx.streaming`, shared with other reflectors) is told when the
 * server refuses one or serves one to its end.
 */
export function step<T extends KubeObject>(model: ReflectorModel<T>, input: ReflectorInput<T>, ctx: StepContext<T>): StepResult<T> {
  const run: Run<T> = { ctx, outputs: [] };
  const { state } = model;
  switch (input.type) {
    case 'start':
      // Resuming a restored snapshot: a watch from its RV; a run after a sync (`initialReflectorModel`): a consistent relist.
      if (model.resuming && model.rv !== undefined) return startWatch(run, model, model.rv);
      return startList(run, model, model.status.hasSynced || ctx.options.initialListResourceVersion === undefined);
    case 'waited':
      if (state.phase !== 'backingOff') return stay(run, model);
      if (state.resume === 'watch' && state.rv !== undefined) return startWatch(run, model, state.rv);
      return startList(run, model, state.consistent || ctx.options.initialListResourceVersion === undefined);
    case 'page':
      return onPage(run, model, input.page);
    case 'event':
      return onEvent(run, model, input.event);
    case 'opened':
      return state.phase === 'watching' ? opened(run, model) : stay(run, model);
    case 'closed':
      return onClosed(run, model);
    case 'error':
      return onError(run, model, input.error);
    case 'silent':
    case 'checked':
    case 'checkFailed':
      return onStallInput(run, model, input);
  }
}

/** A page of a paged list: checked against the list's bounds, then the next page or the `replace`. */
function onPage<T extends KubeObject>(run: Run<T>, model: ReflectorModel<T>, page: ListPage<T>): StepResult<T> {
  const { state } = model;
  const { options } = run.ctx;
  if (state.phase !== 'listing') return stay(run, model);
  const listRv = state.listRv ?? page?.metadata?.resourceVersion;
  if (!page || !Array.isArray(page.items) || !listRv) {
    const what = !page || !Array.isArray(page.items) ? 'list page has no items array' : 'list page has no metadata.resourceVersion';
    return fail(run, model, new InvalidObjectError(what, page), 'list', state.consistent);
  }
  const token = page.metadata?.continue;
  const { pages = 0, items: before = 0 } = model.status.listProgress ?? {};
  const received = { pages: pages + 1, items: before + page.items.length };
  if (received.items > options.maxListItems || (token && received.pages >= options.maxListPages)) {
    const limit = received.items > options.maxListItems ? 'maxListItems' : 'maxListPages';
    return fail(run, model, new ListTooLargeError(limit, options[limit], received), 'list', state.consistent);
  }
  const { items: admitted, rejected, full } = admitItems(options.expectedType, page.items, state.rejected);
  // Prepared as the page arrives, while its objects are young (see `prepare.ts`).
  const kept = run.ctx.prepare ? prepareItems(run.ctx.prepare, admitted, state.invalid) : admitted;
  if (full !== undefined) model = reportFullObjects(run, model, full);
  // A list of one page is emitted as that page; the pages of a longer one go into the list's array.
  if (!token) return replace(run, model, state.items.length === 0 ? kept : append(state.items, kept), listRv, rejected, state.invalid);
  const next = setStatus(
    run,
    { ...model, state: { ...state, continue: token, listRv, items: append(state.items, kept), rejected } },
    { listProgress: received },
  );
  const request = { ...listOptions(options, state.consistent), continue: token, resourceVersion: undefined };
  return { model: next, outputs: run.outputs, action: { type: 'list', options: request } };
}

/** A watch event: one of a streaming list's, or a change seen by the watch. */
function onEvent<T extends KubeObject>(run: Run<T>, model: ReflectorModel<T>, event: WatchEvent<T>): StepResult<T> {
  const { state } = model;
  if (event === null || typeof event !== 'object') {
    // A ListerWatcher that emits no object: skipped and reported, like an unknown type.
    return stay(run, setStatus(run, model, { lastError: new InvalidObjectError('watch event is not an object; skipped', event) }));
  }
  const known = event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK';
  const expected = run.ctx.options.expectedType;
  // Its type checked before anything is kept of it; a metadata-only reflector's full objects reduced.
  const admitted = known ? admit(expected, event.object) : { object: event.object, full: false };
  if (admitted?.full) model = reportFullObjects(run, model, event.object);
  if (admitted && admitted.object !== event.object) event = { ...event, object: admitted.object } as WatchEvent<T>;
  const ofType = admitted !== undefined;
  if (state.phase === 'streaming') {
    const streamed = onStreamedEvent(run, model, state, event, ofType);
    if (streamed) return streamed;
  }
  if (state.phase !== 'watching' && state.phase !== 'streaming') return stay(run, model);
  if (model.status.phase === 'connecting') model = opened(run, model).model; // an event proves it open
  // An object of another type: skipped and reported, its resource version not taken (client-go).
  if (!ofType) return stay(run, setStatus(run, model, { lastError: new UnexpectedTypeError(expected!, event.object) }));
  return onWatchEvent(run, model, event, known);
}

/**
 * An event of a streaming list, while it lists: an object to hold, or the bookmark that ends the
 * list. Anything else (undefined) is handled as a watch event.
 */
function onStreamedEvent<T extends KubeObject>(
  run: Run<T>,
  model: ReflectorModel<T>,
  state: Extract<ReflectorState<T>, { phase: 'streaming' }>,
  event: WatchEvent<T>,
  ofType: boolean,
): StepResult<T> | undefined {
  const { maxListItems, expectedType } = run.ctx.options;
  if (event.type === 'ADDED') {
    const held = state.items.length + (state.rejected?.count ?? 0);
    if (held >= maxListItems)
      return fail(run, model, new ListTooLargeError('maxListItems', maxListItems, { pages: 0, items: held + 1 }), 'list', true);
    // Into the array of this list alone, in place (see `items` of `ReflectorState`).
    if (ofType) {
      const prepared = run.ctx.prepare
        ? prepareObjectEvent(run.ctx.prepare, 'ADDED', event.object)
        : { object: event.object, invalid: undefined };
      if (prepared.invalid) state.invalid.push(prepared.invalid);
      else state.items.push(prepared.object);
    } else state.rejected = addRejected(expectedType!, event.object, 1, state.rejected);
    return stay(run, model);
  }
  if (event.type === 'BOOKMARK' && ofType && event.object?.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
    // The list's resource version is the bookmark's alone: the objects came in key order, each
    // with its own resource version, not in the order of their changes.
    const rv = event.object.metadata.resourceVersion;
    if (!rv) return fail(run, model, new InvalidObjectError('initial-events-end bookmark has no resourceVersion', event), 'list', true);
    run.ctx.streaming?.served();
    const result = replace(run, model, state.items, rv, state.rejected, state.invalid, true);
    return { ...result, action: CONTINUE }; // the same stream, open, carries on with live events
  }
  // Before the end bookmark a watch-list sends only ADDED events: a change or a plain bookmark
  // means the server took it for a plain watch.
  if (event.type === 'MODIFIED' || event.type === 'DELETED' || event.type === 'BOOKMARK') return unsupported(run, model, event.type);
  return undefined;
}

/**
 * The server does not do streaming lists: page now (a consistent read, as the streaming list was),
 * and for as long as the server's support record remembers it.
 */
function unsupported<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, received: string | KubeApiError): StepResult<T> {
  const error = typeof received === 'string' ? new WatchListUnsupportedError(received) : received;
  run.ctx.streaming?.refused(run.ctx.now);
  return startList(run, setStatus(run, m, { lastError: error }), true, true);
}

/** A change seen by the watch (or after a streaming list): emitted, its resource version kept. */
function onWatchEvent<T extends KubeObject>(run: Run<T>, model: ReflectorModel<T>, event: WatchEvent<T>, known: boolean): StepResult<T> {
  const { state } = model;
  // The hot path of a busy watch: one new state and one new model per event.
  const rv = known ? event.object?.metadata?.resourceVersion : undefined;
  const watching =
    state.phase === 'watching'
      ? { phase: 'watching' as const, rv: rv || state.rv, startedAt: state.startedAt, events: state.events + 1 }
      : state;
  let next: ReflectorModel<T> = { ...model, backoff: backoffSuccess(model.backoff, run.ctx.now), state: watching, emptyWatches: 0 };
  if (rv) next.rv = rv;
  switch (event.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      // A good event ends the last failure's report (one status when there was one, none after); the
      // first after a restored snapshot syncs (the server answered from the snapshot's resource version).
      if (next.status.lastError !== undefined) next = setStatus(run, next, { lastError: undefined });
      run.outputs.push(
        run.ctx.prepare ? prepareObjectEvent(run.ctx.prepare, event.type, event.object) : { type: event.type, object: event.object },
      );
      if (next.resuming) next = setStatus(run, { ...next, resuming: false }, { hasSynced: true });
      return stay(run, next);
    case 'BOOKMARK':
      if (!rv) return stay(run, setStatus(run, next, { lastError: new InvalidObjectError('bookmark without resourceVersion', event) }));
      run.outputs.push({ type: 'BOOKMARK', resourceVersion: rv });
      next.resuming = false; // a bookmark syncs a restored snapshot too (`next` is this step's own)
      return stay(run, setStatus(run, next, { lastSyncResourceVersion: rv, lastError: undefined, hasSynced: true }));
    case 'ERROR': {
      const status = event.object as Status;
      const code = typeof status?.code === 'number' ? status.code : 500;
      return onError(run, model, new KubeApiError(code, { status, reason: status?.reason ?? 'WatchError' }));
    }
    default:
      return stay(run, setStatus(run, next, { lastError: new UnknownWatchEventError((event as { type?: unknown }).type) }));
  }
}

/**
 * The server closed the stream: re-watch, or relist after too many watches closed at once. A
 * streaming list the server ended before its end bookmark was taken for a plain watch.
 */
function onClosed<T extends KubeObject>(run: Run<T>, model: ReflectorModel<T>): StepResult<T> {
  const { state } = model;
  if (state.phase === 'streaming') return unsupported(run, model, 'closed');
  if (state.phase !== 'watching') return stay(run, model);
  const empty = state.events === 0 && run.ctx.now - state.startedAt < 1000;
  const emptyWatches = empty ? model.emptyWatches + 1 : 0;
  if (emptyWatches >= run.ctx.options.maxEmptyWatches)
    return fail(run, { ...model, emptyWatches: 0 }, new WatchClosedError(emptyWatches), 'list', true);
  return startWatch(run, { ...model, emptyWatches }, state.rv);
}

/** A list or watch failed: page after a refused streaming list, relist on 410, else back off. */
function onError<T extends KubeObject>(run: Run<T>, m: ReflectorModel<T>, error: unknown): StepResult<T> {
  const s = m.state;
  // kube-apiserver with the WatchList gate off answers 422 Invalid (sendInitialEvents forbidden).
  if (s.phase === 'streaming' && s.items.length === 0 && isStreamingRefusal(error)) return unsupported(run, m, error as KubeApiError);
  // 410: relist with a consistent read; at once after a healthy period (compaction, the common
  // case), with backoff when it repeats (a server or gateway answering 410 to everything).
  if (error instanceof KubeApiError && error.code === 410) return fail(run, m, error, 'list', true, { firstImmediate: true });
  if (error instanceof WatchIdleError && s.phase === 'watching') return startWatch(run, setStatus(run, m, { lastError: error }), s.rv);
  if (s.phase === 'watching') return fail(run, m, error, 'watch');
  return fail(run, m, error, 'list', s.phase === 'listing' ? s.consistent : true);
}

/**
 * The stall check's inputs, judged by `stallVerdict`: a check to start beside the open watch, a
 * quiet watch kept, or a stalled one reported and replaced by a watch from the last resourceVersion.
 */
function onStallInput<T extends KubeObject>(
  run: Run<T>,
  model: ReflectorModel<T>,
  input: Extract<ReflectorInput<T>, { type: 'silent' | 'checked' | 'checkFailed' }>,
): StepResult<T> {
  // A streaming list silent that long: the server (one that sends no bookmarks) took it for a plain watch.
  if (model.state.phase === 'streaming' && input.type === 'silent') return unsupported(run, model, 'silence');
  const verdict = stallVerdict(model.state, input, run.ctx.options.stallCheckMs, model.resuming);
  switch (verdict.type) {
    case 'ignore':
      return stay(run, model);
    case 'current': // a restored snapshot still current: synced, as by a bookmark at its resource version
      run.outputs.push({ type: 'BOOKMARK', resourceVersion: verdict.state.rv });
      return stay(run, setStatus(run, { ...model, state: verdict.state, resuming: false }, { hasSynced: true }));
    case 'watching':
      return stay(run, { ...model, state: verdict.state });
    case 'check':
      return { model: { ...model, state: verdict.state }, outputs: run.outputs, action: { type: 'check', options: stallCheckOptions() } };
    case 'stalled': {
      const stalledWatches = (model.status.stalledWatches ?? 0) + 1;
      return startWatch(run, setStatus(run, model, { lastError: verdict.error, stalledWatches }), verdict.error.lastSeen);
    }
  }
}

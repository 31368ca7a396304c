/**
 * The reflector: lists, then watches, and keeps doing so whatever the network does
 * (client-go's `Reflector.ListAndWatch`). `reflector()` unfolds the pure state machine of
 * `reflectorMachine.ts` into an Observable that never completes on its own: it runs the list,
 * watch or wait each step asks for (and, beside a silent watch, the stall check's list) and feeds
 * what comes back into the next step. A misbehaving server costs a bounded amount: repeated 410s
 * back off, `Retry-After` is capped, a list is bounded in pages and objects, objects of another
 * type than `expectedType` are skipped, and a watch held open but silent while the server moves on
 * is found by the stall check (`stallCheck`) long before its idle timeout.
 */
import {
  Observable,
  asyncScheduler,
  defer,
  map,
  take,
  type SchedulerLike,
  type Subscriber,
  type Subscription,
  type TeardownLogic,
} from 'rxjs';
import { InvalidObjectError } from '../errors.ts';
import { idleMarks, idleTimeout } from '../time/idleTimeout.ts';
import { timerAfter } from '../time/longTimer.ts';
import { WatchIdleError } from './reflectorErrors.ts';
import { step } from './reflectorMachine.ts';
import type { Prepare } from '../store/prepare.ts';
import {
  initialReflectorModel,
  type ReflectorAction,
  type ReflectorInput,
  type ReflectorModel,
  type StepContext,
} from './reflectorModel.ts';
import { resolveOptions, type ReflectorOptions } from './reflectorOptions.ts';
import { createStreamingListMemory } from './streamingListSupport.ts';
import type { KubeObject, ListerWatcher, ReflectorEvent, WatchItem, WatchOpened } from '../types.ts';

/**
 * Lists and watches `lw` forever, emitting a `LIST` for each complete list, the watch's changes
 * (`ADDED`, `MODIFIED`, `DELETED`), `BOOKMARK`s, and a `STATUS` on every change of condition.
 * Cold: each subscription runs its own list and watch; unsubscribing aborts the request in flight
 * and clears every timer. A reflector keeps its accounting across runs (client-go's reflector,
 * kube-rs's watcher): a subscription after one that had synced goes on counting its relists, is
 * `hasSynced` at once, and relists with a consistent read (a list at RV "0" could be older than
 * what a consumer already holds). Subscribe to one reflector once at a time.
 * The Observable never errors and never completes: failures are `status` events (a 410 relists
 * at once after a healthy period, with backoff when it repeats; a list past `maxListPages` or
 * `maxListItems` fails with `ListTooLargeError`; an object of another type than `expectedType` is
 * skipped with an `UnexpectedTypeError`).
 *
 * Caveat: a relist's `LIST` carries the whole list; consumers apply it atomically.
 *
 * @example
 * reflector(lw, { pageSize: 500 }).pipe(scan((s, e) => applyEvent(s.state, e), initialDeltaStep()));
 */
export function reflector<T extends KubeObject>(lw: ListerWatcher<T>, options: ReflectorRunOptions<T> = {}): Observable<ReflectorEvent<T>> {
  const resolved = resolveOptions(options);
  const context = {
    // Streaming lists only from a ListerWatcher that serves them: another would wait on a watch that never ends its list.
    options: lw.watchList === true ? resolved : { ...resolved, useStreamingList: false },
    random: options.random ?? Math.random,
    prepare: options.prepare,
    // The reflector's own unless shared: kept across its subscriptions, as its last model is.
    streaming: options.streamingListSupport ?? createStreamingListMemory().of(''),
  };
  const scheduler = options.scheduler ?? asyncScheduler;
  const memory: { last?: ReflectorModel<T> } = {};
  return new Observable<ReflectorEvent<T>>((subscriber) => drive(lw, subscriber, context, scheduler, memory, options.resumeFrom?.()));
}

/** Options of `reflector`: the reflector's own, and the prepare stage its objects go through. */
export interface ReflectorRunOptions<T extends KubeObject> extends ReflectorOptions {
  /**
   * Runs on each object let in, as it arrives (list page, streamed or watch event), e.g. the
   * informer's `createPrepare(options)`; an object it throws for is reported as the event's
   * `invalid`. Default: none, objects are emitted as decoded.
   */
  prepare?: Prepare<T>;
  /**
   * Asked as each run starts: a resource version to resume from instead of listing (a restored
   * snapshot's). The run then watches from it; the first event or bookmark syncs it (`hasSynced`),
   * a 410 makes it list. Ignored by a run after one that synced (that one relists). Default: none.
   */
  resumeFrom?: () => string | undefined;
}

/** The input of a watch that opened: one shared instance. */
const OPENED: ReflectorInput<never> = Object.freeze({ type: 'opened' });

/** True for `WATCH_OPENED` (or any `{ type: 'OPENED' }`); anything else goes to `step` as an event, checked there. */
function isOpened<T extends KubeObject>(item: WatchItem<T>): item is WatchOpened {
  return typeof item === 'object' && item !== null && item.type === 'OPENED';
}

/** The input of a watch silent for its `stallMs`: one shared instance. */
const SILENT: ReflectorInput<never> = Object.freeze({ type: 'silent' });

/**
 * What an action waits for, as the machine's inputs: a timer, a list page, a watch's events (and
 * its silences, for the stall check), or the stall check's page.
 */
function inputsOf<T extends KubeObject>(
  lw: ListerWatcher<T>,
  action: Exclude<ReflectorAction, { type: 'continue' }>,
  scheduler: SchedulerLike,
): Observable<ReflectorInput<T>> {
  switch (action.type) {
    case 'check':
      return defer(() => lw.list(action.options)).pipe(
        take(1),
        map((page) => ({ type: 'checked' as const, page })),
      );
    case 'wait':
      return timerAfter(action.ms, scheduler).pipe(map(() => ({ type: 'waited' as const })));
    case 'list':
      return defer(() => lw.list(action.options)).pipe(map((page) => ({ type: 'page' as const, page })));
    case 'watch': {
      const inputs = defer(() => lw.watch(action.options)).pipe(
        idleTimeout(action.idleMs, scheduler, () => new WatchIdleError(action.idleMs)),
        map((item): ReflectorInput<T> => (isOpened(item) ? OPENED : { type: 'event', event: item })),
      );
      return action.stallMs === undefined ? inputs : inputs.pipe(idleMarks(action.stallMs, scheduler, () => SILENT));
    }
  }
}

/**
 * Runs the machine for one subscriber: each step's outputs are emitted, its action started (the
 * previous one's stream left), and what that stream sends fed back as the next inputs.
 */
function drive<T extends KubeObject>(
  lw: ListerWatcher<T>,
  subscriber: Subscriber<ReflectorEvent<T>>,
  context: Omit<StepContext<T>, 'now'>,
  scheduler: SchedulerLike,
  memory: { last?: ReflectorModel<T> },
  resumeFrom: string | undefined,
): TeardownLogic {
  let model = initialReflectorModel<T>(memory.last, resumeFrom);
  let current: Subscription | undefined;
  let check: Subscription | undefined; // the stall check, beside the watch `current`
  let generation = 0;

  const run = (action: ReflectorAction): void => {
    // Nothing new once the subscriber left (it may leave while an output is being emitted).
    if (action.type === 'continue' || subscriber.closed) return;
    if (action.type === 'check') {
      check = runCheck(inputsOf(lw, action, scheduler), generation, feed);
      return;
    }
    check?.unsubscribe();
    current?.unsubscribe();
    const gen = ++generation;
    let got = false;
    current = inputsOf(lw, action, scheduler).subscribe({
      next: (input) => {
        got = true;
        feed(input, gen);
      },
      error: (error) => feed({ type: 'error', error }, gen),
      complete: () => {
        if (action.type === 'watch') feed({ type: 'closed' }, gen);
        else if (action.type === 'list' && !got)
          feed({ type: 'error', error: new InvalidObjectError('list request completed without a page', undefined) }, gen);
      },
    });
  };
  const feed = oneAtATime<ReflectorInput<T>>((input, gen) => {
    if (gen !== generation || subscriber.closed) return; // from a stream we already left
    const result = step(model, input, { ...context, now: scheduler.now() });
    model = memory.last = result.model;
    for (const out of result.outputs) {
      if (subscriber.closed) return;
      subscriber.next(out);
    }
    run(result.action);
  }, subscriber);

  feed({ type: 'start' }, generation);
  return () => {
    generation = -1;
    check?.unsubscribe();
    current?.unsubscribe();
  };
}

/**
 * Runs the stall check beside the watch of generation `gen`: its page, or why it failed (an error,
 * or no page), fed back with that generation, so an answer that comes after the watch was left is
 * dropped.
 */
function runCheck<T extends KubeObject>(
  inputs: Observable<ReflectorInput<T>>,
  gen: number,
  feed: (input: ReflectorInput<T>, generation: number) => void,
): Subscription {
  let got = false;
  return inputs.subscribe({
    next: (input) => {
      got = true;
      feed(input, gen);
    },
    error: (error) => feed({ type: 'checkFailed', error }, gen),
    complete: () => {
      if (!got) feed({ type: 'checkFailed', error: new InvalidObjectError('list request completed without a page', undefined) }, gen);
    },
  });
}

/**
 * `handle` made safe to call from within itself: inputs that arrive while one is being handled (a
 * consumer reacting synchronously, a source answering at once) wait their turn, with the
 * generation of the stream they came from; the common case, one at a time, goes straight through.
 * Inputs still waiting when `subscriber` closes are dropped.
 */
function oneAtATime<I>(
  handle: (input: I, generation: number) => void,
  subscriber: Subscriber<unknown>,
): (input: I, generation: number) => void {
  const queue: { input: I; generation: number }[] = [];
  let draining = false;
  return (input, generation) => {
    if (draining) {
      queue.push({ input, generation });
      return;
    }
    draining = true;
    try {
      handle(input, generation);
      while (queue.length > 0 && !subscriber.closed) {
        const next = queue.shift()!;
        handle(next.input, next.generation);
      }
    } finally {
      draining = false;
    }
  };
}

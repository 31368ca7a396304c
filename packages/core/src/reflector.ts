/**
 * The reflector: lists, then watches, and keeps doing so whatever the network does
 * (client-go's `Reflector.ListAndWatch`). `reflector()` unfolds the pure state machine of
 * `reflectorMachine.ts` into an Observable that never completes on its own: it runs the list,
 * watch or wait each step asks for and feeds what comes back into the next step. A misbehaving
 * server costs a bounded amount: repeated 410s back off, `Retry-After` is capped, a list is
 * bounded in pages and objects, and objects of another type than `expectedType` are skipped.
 */
import { Observable, asyncScheduler, defer, map, type SchedulerLike, type Subscriber, type Subscription, type TeardownLogic } from 'rxjs';
import { InvalidObjectError } from './errors.ts';
import { idleTimeout } from './idleTimeout.ts';
import { timerAfter } from './longTimer.ts';
import { WatchIdleError } from './reflectorErrors.ts';
import { step } from './reflectorMachine.ts';
import { initialReflectorModel, type ReflectorAction, type ReflectorInput, type StepContext } from './reflectorModel.ts';
import { resolveOptions, type ReflectorOptions } from './reflectorOptions.ts';
import type { KubeObject, ListerWatcher, ReflectorEvent } from './types.ts';

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
  return new Observable<ReflectorEvent<T>>((subscriber) => drive(lw, subscriber, resolved, scheduler, random));
}

/** What an action waits for, as the machine's inputs: a timer, a list page, or a watch's events. */
function inputsOf<T extends KubeObject>(
  lw: ListerWatcher<T>,
  action: Exclude<ReflectorAction, { kind: 'continue' }>,
  scheduler: SchedulerLike,
): Observable<ReflectorInput<T>> {
  switch (action.kind) {
    case 'wait':
      return timerAfter(action.ms, scheduler).pipe(map(() => ({ kind: 'waited' as const })));
    case 'list':
      return defer(() => lw.list(action.options)).pipe(map((page) => ({ kind: 'page' as const, page })));
    case 'watch':
      return defer(() => lw.watch(action.options)).pipe(
        idleTimeout(action.idleMs, scheduler, () => new WatchIdleError(action.idleMs)),
        map((event) => ({ kind: 'event' as const, event })),
      );
  }
}

/**
 * Runs the machine for one subscriber: each step's outputs are emitted, its action started (the
 * previous one's stream left), and what that stream sends fed back as the next inputs.
 */
function drive<T extends KubeObject>(
  lw: ListerWatcher<T>,
  subscriber: Subscriber<ReflectorEvent<T>>,
  options: StepContext['options'],
  scheduler: SchedulerLike,
  random: () => number,
): TeardownLogic {
  let model = initialReflectorModel<T>();
  let current: Subscription | undefined;
  let generation = 0;

  const run = (action: ReflectorAction): void => {
    // Nothing new once the subscriber left (it may leave while an output is being emitted).
    if (action.kind === 'continue' || subscriber.closed) return;
    current?.unsubscribe();
    const gen = ++generation;
    let got = false;
    current = inputsOf(lw, action, scheduler).subscribe({
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
  const feed = oneAtATime<ReflectorInput<T>>((input, gen) => {
    if (gen !== generation || subscriber.closed) return; // from a stream we already left
    const result = step(model, input, { options, now: scheduler.now(), random });
    model = result.model;
    for (const out of result.outputs) {
      if (subscriber.closed) return;
      subscriber.next(out);
    }
    run(result.action);
  }, subscriber);

  feed({ kind: 'start' }, generation);
  return () => {
    generation = -1;
    current?.unsubscribe();
  };
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

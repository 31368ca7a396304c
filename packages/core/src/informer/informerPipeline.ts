/**
 * The shared informer's pipeline: its inputs merged and scanned into one state, multicast for the
 * informer's whole life, and the streams derived from it.
 *
 *   running ─switchMap(the reflector, prepared | stopped)─┐
 *   commands (addIndexers) ───────────────────────────────┴─ merge ─ scan(informerStep) ─ connectable ─▶ steps
 *
 * Each step is `{ state, change }`: what the informer knows, and what the input changed. `steps` is
 * the connector, a `BehaviorSubject`: shareReplay(1) whose value can be read at once.
 */
import {
  BehaviorSubject,
  Subject,
  connectable,
  distinctUntilChanged,
  filter,
  map,
  merge,
  mergeMap,
  of,
  scan,
  skip,
  switchMap,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { DeltaStoreOptions } from '../store/deltaStore.ts';
import { informerStep, initialInformerStep, type InformerInput, type InformerState, type InformerStep } from './informerState.ts';
import { createPrepare } from '../store/prepare.ts';
import { reflector } from '../reflector/reflector.ts';
import type { ReflectorOptions } from '../reflector/reflectorOptions.ts';
import type { Delta, KubeObject, ListerWatcher } from '../types.ts';

/** The subjects and the connection of one informer's pipeline. */
export interface InformerPipeline<T extends KubeObject> {
  /** The input of `start()` / `stop()`: the reflector runs while it is `true`. */
  readonly running: BehaviorSubject<boolean>;
  /** The informer's own inputs (`addIndexers`), applied at once: the scan runs synchronously. */
  readonly commands: Subject<InformerInput<T>>;
  /** The latest step (state and change), replayed to every subscriber; set before anyone hears of it. */
  readonly steps: BehaviorSubject<InformerStep<T>>;
  /** Every later step, hot, each once: a subscriber hears no change twice and no deltas twice. */
  readonly changes$: Observable<InformerStep<T>>;
  /** The pipeline's connection; the informer adds its handlers to it, and shutdown closes it. */
  readonly lifetime: Subscription;
}

/** What the pipeline needs of the informer's options. */
export interface PipelineOptions<T extends KubeObject> extends DeltaStoreOptions<T> {
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
}

/**
 * Builds and connects the pipeline of an informer over `lw` (its reflector options validated now).
 * One reflector for the informer's life, its objects prepared (transformed and frozen) as they
 * arrive; each `start()` subscribes to it again, and it carries its accounting over (a restart
 * after a sync relists, consistently).
 */
export function informerPipeline<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: PipelineOptions<T>,
  scheduler: SchedulerLike,
): InformerPipeline<T> {
  const reflector$ = reflector<T>(lw, { ...options.reflector, scheduler, prepare: createPrepare(options) });
  const running = new BehaviorSubject(false);
  const commands = new Subject<InformerInput<T>>();
  const steps = new BehaviorSubject(initialInformerStep<T>(options));
  const run$ = running.pipe(switchMap((on) => (on ? reflector$ : of<InformerInput<T>>({ type: 'stopped' }))));
  const lifetime = connectable(merge(run$, commands).pipe(scan((last, input) => informerStep(last.state, input), steps.value)), {
    connector: () => steps,
    resetOnDisconnect: false,
  }).connect();
  return { running, commands, steps, changes$: steps.pipe(skip(1)), lifetime };
}

/**
 * `select` of the latest state, on subscription and then on each change. A step older than the
 * current one is dropped: a listener that changes the informer while a step is being published
 * makes later listeners hear the newer step first, and they must not go back to the older one.
 */
export function latestOf<T extends KubeObject, R>(
  steps: BehaviorSubject<InformerStep<T>>,
  select: (s: InformerState<T>) => R,
): Observable<R> {
  return steps.pipe(
    filter((s) => s === steps.value),
    map((s) => select(s.state)),
    distinctUntilChanged(),
  );
}

/**
 * Every delta of the later steps, hot, in order: the store's changes only (resync passes go to
 * handlers, not here). A subscriber hears the deltas of the steps published after it subscribed.
 */
export function eventsOf<T extends KubeObject>(changes$: Observable<InformerStep<T>>): Observable<Delta<T>> {
  return changes$.pipe(mergeMap(({ change }) => (change.type === 'deltas' ? change.deltas : [])));
}

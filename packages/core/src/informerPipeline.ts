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
  defer,
  distinctUntilChanged,
  filter,
  finalize,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  scan,
  share,
  skip,
  switchMap,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { DeltaStoreOptions } from './deltaStore.ts';
import {
  informerStep,
  initialInformerStep,
  syncedStore,
  type InformerInput,
  type InformerState,
  type InformerStep,
} from './informerState.ts';
import { createPrepare } from './prepare.ts';
import { reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflectorOptions.ts';
import { resyncPasses } from './resync.ts';
import type { Delta, KubeObject, ListerWatcher } from './types.ts';

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
 * Every delta of the later states, hot, with a `Sync` delta per cached object every `periodMs`
 * (0 = none) while the informer runs: one timer and one pass shared by all subscribers, computed
 * only while there are some.
 */
export function eventsOf<T extends KubeObject>(p: InformerPipeline<T>, periodMs: number, scheduler: SchedulerLike): Observable<Delta<T>> {
  const resync$ = resyncPasses<T>({ periodMs, running$: p.running, scheduler, snapshot: () => syncedStore(p.steps.value.state) });
  const deltas$ = p.changes$.pipe(mergeMap(({ change }) => (change.type === 'deltas' ? change.deltas : [])));
  return merge(deltas$, resync$.pipe(mergeMap((deltas) => deltas))).pipe(share());
}

/**
 * refCount mode's lease, held by every consumer: `share()` counts them, so the first subscriber's
 * `acquire` starts the watch and the last one leaving `release`s it. It ends with the state (on
 * shutdown), so the streams holding it complete then.
 */
export function refCountLease<T extends KubeObject>(
  state: Observable<InformerStep<T>>,
  acquire: () => void,
  release: () => void,
): Observable<never> {
  return defer(() => {
    acquire();
    return state.pipe(ignoreElements(), finalize(release));
  }).pipe(share());
}

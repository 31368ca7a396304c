/**
 * The shared informer's pipeline: its inputs merged and scanned into one state, multicast for the
 * informer's whole life, and the streams derived from it.
 *
 *   running ─switchMap(run of the reflector | stopped)─┐
 *   commands (addIndexers) ────────────────────────────┴─ merge ─ scan(informerStep) ─ connectable ─▶ state
 *
 * `state` is the connector, a `BehaviorSubject`: shareReplay(1) whose value can be read at once.
 */
import {
  BehaviorSubject,
  Subject,
  concat,
  connectable,
  distinctUntilChanged,
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
import { createDeltaReducer, type DeltaReducer, type DeltaStoreOptions } from './deltaStore.ts';
import { informerStep, initialInformerState, type InformerInput, type InformerState } from './informerState.ts';
import { reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflectorOptions.ts';
import type { Delta, KubeObject, ListerWatcher } from './types.ts';

/** The subjects and the connection of one informer's pipeline. */
export interface InformerPipeline<T extends KubeObject> {
  /** The input of `start()` / `stop()`: the reflector runs while it is `true`. */
  readonly running: BehaviorSubject<boolean>;
  /** The informer's own inputs (`addIndexers`), applied at once: the scan runs synchronously. */
  readonly commands: Subject<InformerInput<T>>;
  /** The latest state, replayed to every subscriber; set before anyone hears of it. */
  readonly state: BehaviorSubject<InformerState<T>>;
  /** Every later state, hot, each once: a subscriber hears no state twice and no deltas twice. */
  readonly changes$: Observable<InformerState<T>>;
  /** The pipeline's connection; the informer adds its handlers to it, and shutdown closes it. */
  readonly lifetime: Subscription;
}

/** What the pipeline needs of the informer's options. */
export interface PipelineOptions<T extends KubeObject> extends DeltaStoreOptions<T> {
  reflector?: Omit<ReflectorOptions, 'scheduler'>;
}

/** Builds and connects the pipeline of an informer over `lw` (its reflector options validated now). */
export function informerPipeline<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: PipelineOptions<T>,
  scheduler: SchedulerLike,
): InformerPipeline<T> {
  const reducer = createDeltaReducer<T>(options);
  const runs = reflectorRuns(lw, reducer, options, scheduler);
  const running = new BehaviorSubject(false);
  const commands = new Subject<InformerInput<T>>();
  const state = new BehaviorSubject(initialInformerState<T>(options));
  const run$ = running.pipe(switchMap((on) => (on ? runs(state.value.cache.synced) : of<InformerInput<T>>({ type: 'stopped' }))));
  const lifetime = connectable(merge(run$, commands).pipe(scan(informerStep(reducer), state.value)), {
    connector: () => state,
    resetOnDisconnect: false,
  }).connect();
  return { running, commands, state, changes$: state.pipe(skip(1)), lifetime };
}

/**
 * `select` of the latest state, on subscription and then on each change. A state older than the
 * last one passed is dropped: a listener that changes the informer while a state is being published
 * makes later listeners hear the newer state first, and they must not go back to the older one.
 */
export function latestOf<T extends KubeObject, R>(state: Observable<InformerState<T>>, select: (s: InformerState<T>) => R): Observable<R> {
  return state.pipe(
    distinctUntilChanged((a, b) => b.seq <= a.seq),
    map(select),
    distinctUntilChanged(),
  );
}

/**
 * Every delta of the later states, hot, in order: the store's changes only (resync passes go to
 * handlers, not here). A subscriber hears the deltas of the states published after it subscribed.
 */
export function eventsOf<T extends KubeObject>(changes$: Observable<InformerState<T>>): Observable<Delta<T>> {
  return changes$.pipe(mergeMap((s) => s.cache.deltas));
}

/**
 * One run of the reflector per `start()`, announced by a `run` input. List items are transformed
 * and frozen as each page arrives, not when the whole list is applied. A restart after a sync lists
 * with a consistent read, as any relist does: a list at RV "0" (the API server's cache) may be
 * older than what the store already holds, and would roll it back.
 */
function reflectorRuns<T extends KubeObject>(
  lw: ListerWatcher<T>,
  reducer: DeltaReducer<T>,
  options: PipelineOptions<T>,
  scheduler: SchedulerLike,
): (restarted: boolean) => Observable<InformerInput<T>> {
  const preparingLw: ListerWatcher<T> = {
    list: (o) =>
      lw.list(o).pipe(map((page) => (Array.isArray(page?.items) ? { ...page, items: page.items.map(reducer.prepareListItem) } : page))),
    watch: (o) => lw.watch(o),
  };
  const first = reflector(preparingLw, { ...options.reflector, scheduler }); // validates reflector options now
  const restart =
    options.reflector?.initialListResourceVersion === undefined
      ? first
      : reflector(preparingLw, { ...options.reflector, initialListResourceVersion: undefined, scheduler });
  return (restarted) => concat(of<InformerInput<T>>({ type: 'run', restarted }), restarted ? restart : first);
}

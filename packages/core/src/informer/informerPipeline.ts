/**
 * The shared informer's pipeline: its inputs merged and scanned into one state by one pure step,
 * multicast for the informer's whole life, and the streams derived from it.
 *
 *   running ─switchMap(the reflector, prepared | stopped)─┐
 *   commands (addIndexers) ───────────────────────────────┴─ merge ─ scan(informerStep) ─ connectable ─▶ steps
 *
 * The step is `(state, input) → { state, change }`: the state holds only what the informer knows,
 * what just happened is the change, which observers are told and nothing has to reset. `steps` is
 * the connector, a `BehaviorSubject`: shareReplay(1) whose value can be read at once.
 */
import {
  BehaviorSubject,
  Subject,
  concat,
  connectable,
  defer,
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
import { applyEvent, initialDeltaState, type DeltaStoreOptions, type DeltaStoreState } from '../store/deltaStore.ts';
import { createPrepare } from '../store/prepare.ts';
import { reflector } from '../reflector/reflector.ts';
import type { ReflectorOptions } from '../reflector/reflectorOptions.ts';
import { restoreInputs, type ResolvedSnapshotOptions, type SnapshotInput } from './snapshotting.ts';
import type { Delta, Indexers, KubeObject, ListerWatcher, ReflectorEvent, ReflectorStatus } from '../types.ts';
import type { SnapshotStatus } from '../snapshotStatus.ts';

/** What the informer's `scan` consumes: the reflector's events and the informer's own inputs. */
export type InformerInput<T extends KubeObject> =
  | ReflectorEvent<T>
  /** The run ended (`stop()`). */
  | { type: 'stopped' }
  /** `addIndexers()`: index names already checked, functions not yet run. */
  | { type: 'addIndexers'; indexers: Indexers<T> }
  /** The persisted snapshot's status changed (loading, restored, cold, saved). */
  | SnapshotInput;

/** What the informer knows: the cache (snapshot, resource version, synced) and the reflector's status. */
export interface InformerState<T extends KubeObject> extends DeltaStoreState<T> {
  /** The reflector's condition, counted over every run; `stopped` when not running; with `snapshot` when persisted. */
  readonly status: ReflectorStatus;
  /** With a snapshot store: how the cache started and its saves (also `status.snapshot`). */
  readonly snapshot?: SnapshotStatus;
}

/** What one input changed, as observers are told it. */
export type InformerChange<T extends KubeObject> =
  /** The cache changed (or was told a new resource version): the deltas, in order, and the errors met. */
  | {
      type: 'deltas';
      deltas: readonly Delta<T>[];
      errors: readonly Error[];
      /** True when these deltas complete the first list: each handler has its initial list then. */
      initialListEnd: boolean;
    }
  /** The reflector's status changed (also on `stop()`). */
  | { type: 'status' }
  /** `addIndexers`: the indexes were added to the snapshot. */
  | { type: 'indexersAdded'; indexers: Indexers<T> }
  /** `addIndexers`: an index function threw, so none was added. */
  | { type: 'indexersRefused'; indexers: Indexers<T>; error: unknown }
  /** Nothing yet (the seed of the scan). */
  | { type: 'none' };

/** One step of the informer: the state after an input and what the input changed. */
export interface InformerStep<T extends KubeObject> {
  /** What the informer knows after the input. */
  readonly state: InformerState<T>;
  /** What the input changed. */
  readonly change: InformerChange<T>;
}

/** The state before anything was applied: an empty cache, stopped. */
export function initialInformerState<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): InformerState<T> {
  return { ...initialDeltaState<T>(options), status: { phase: 'stopped', relistCount: 0, hasSynced: false } };
}

/** `initialInformerState` with no change yet: the seed of the informer's `scan`. */
export function initialInformerStep<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): InformerStep<T> {
  return { state: initialInformerState(options), change: { type: 'none' } };
}

/**
 * The step, pure. Cache events go to the delta store's `applyEvent`; the reflector's status
 * replaces the status (the reflector counts over its runs itself).
 *
 * - `stopped`: the status's phase becomes `stopped`, without `backoffMs` or `listProgress`.
 * - `addIndexers`: the snapshot gains the indexes; when an index function throws, none is added
 *   and the change says so (`indexersRefused`), the state unchanged.
 */
export function informerStep<T extends KubeObject>(state: InformerState<T>, input: InformerInput<T>): InformerStep<T> {
  switch (input.type) {
    case 'STATUS':
      return { state: { ...state, status: withSnapshot(input.status, state.snapshot) }, change: STATUS };
    case 'snapshot': {
      const snapshot: SnapshotStatus = withoutUndefined({ start: 'cold', saves: 0, ...state.snapshot, ...input.patch });
      // Reading the snapshot is how this run lists: `listing` until the reflector says more.
      const phase = snapshot.start === 'loading' ? 'listing' : state.status.phase;
      return { state: { ...state, snapshot, status: withSnapshot({ ...state.status, phase }, snapshot) }, change: STATUS };
    }
    case 'stopped': {
      const { backoffMs: _b, listProgress: _p, ...rest } = state.status; // only while backing off / listing
      return { state: { ...state, status: { ...rest, phase: 'stopped' } }, change: STATUS };
    }
    case 'addIndexers':
      try {
        const store = state.store.addIndexers(input.indexers);
        return { state: { ...state, store }, change: { type: 'indexersAdded', indexers: input.indexers } };
      } catch (error) {
        return { state, change: { type: 'indexersRefused', indexers: input.indexers, error } };
      }
    default: {
      // LIST, ADDED, MODIFIED, DELETED, BOOKMARK, and anything else the reflector might send (the
      // delta store reports it).
      const { state: next, deltas, errors } = applyEvent(state, input);
      return { state: next, change: { type: 'deltas', deltas, errors, initialListEnd: !state.synced && next.synced } };
    }
  }
}

const STATUS = Object.freeze({ type: 'status' as const });

/** The reflector's status with the informer's snapshot status, when it has one. */
function withSnapshot(status: ReflectorStatus, snapshot: SnapshotStatus | undefined): ReflectorStatus {
  return snapshot === undefined ? status : { ...status, snapshot };
}

/** `o` without its fields set to `undefined` (a patch's way of clearing one). */
function withoutUndefined<O extends object>(o: O): O {
  for (const key of Object.keys(o) as (keyof O)[]) if (o[key] === undefined) delete o[key];
  return o;
}

/** Where a run resumes from: a restored snapshot's resource version until the server confirmed it. */
function resumePoint<T extends KubeObject>(state: InformerState<T>): string | undefined {
  return state.restored && !state.synced ? state.resourceVersion : undefined;
}

/** The cache of `state` once it has synced (what a resync pass re-delivers), else `undefined`. */
export function syncedStore<T extends KubeObject>(state: InformerState<T>): InformerState<T>['store'] | undefined {
  return state.synced ? state.store : undefined;
}

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
  /** Where snapshots are kept: a run of a cache that never synced starts from the stored one. */
  snapshot?: ResolvedSnapshotOptions;
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
  const steps = new BehaviorSubject(initialInformerStep<T>(options));
  const resumeFrom = () => resumePoint(steps.value.state);
  const reflector$ = reflector<T>(lw, { ...options.reflector, scheduler, prepare: createPrepare(options), resumeFrom });
  const running = new BehaviorSubject(false);
  const commands = new Subject<InformerInput<T>>();
  // A run of a cache that never synced, nor was restored, starts from the stored snapshot.
  const { snapshot } = options;
  const restore$ = snapshot && restoreInputs<T>(snapshot, options.freeze);
  const start$ = defer(() => {
    const { state } = steps.value;
    return restore$ && !state.synced && !state.restored ? concat(restore$, reflector$) : reflector$;
  });
  const run$ = running.pipe(switchMap((on) => (on ? start$ : of<InformerInput<T>>({ type: 'stopped' }))));
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

/**
 * The shared informer's state and its one writer: a pure step for RxJS `scan` over the reflector's
 * events and the informer's own inputs (a run starting or stopping, indexers added). The delta
 * reducer does the cache; this step adds what the informer reports around it: the status of the
 * current run on top of the earlier runs, and which batch ends the first list.
 *
 * @example
 * merge(run$, commands$).pipe(scan(informerStep(createDeltaReducer(o)), initialInformerState(o)));
 */
import { initialDeltaState, type DeltaReducer, type DeltaStoreOptions, type DeltaStoreState } from './deltaStore.ts';
import type { Indexers, KubeObject, ReflectorEvent, ReflectorStatus, Store } from './types.ts';

/** What the informer's `scan` consumes: the reflector's events and the informer's own inputs. */
export type InformerInput<T extends KubeObject> =
  | ReflectorEvent<T>
  /** A run of the reflector begins; `restarted` when the informer had synced before it. */
  | { type: 'run'; restarted: boolean }
  /** The run ended (`stop()`). */
  | { type: 'stopped' }
  /** `addIndexers()`: index names already checked, functions not yet run. */
  | { type: 'addIndexers'; indexers: Indexers<T> };

/** The informer's state: the cache, the reflector's status, and what the last input did. */
export interface InformerState<T extends KubeObject> {
  /** The delta store's state: snapshot, the last input's deltas and errors, resource version, synced. */
  readonly cache: DeltaStoreState<T>;
  /** The reflector's condition, counted over every run. */
  readonly status: ReflectorStatus;
  /** True when the current run started after a sync (its statuses are counted on top of the earlier runs). */
  readonly restarted: boolean;
  /** Relists done by the runs before the current one (a restart's own list counts as one). */
  readonly relistsBefore: number;
  /** True on the state whose deltas complete the first list: each handler has its initial list then. */
  readonly initialListEnd: boolean;
  /** Increases with every input: a listener that hears states out of order (reentrancy) can tell. */
  readonly seq: number;
  /** Set by an `addIndexers` input that could not be applied (an index function threw): that input and why. */
  readonly refused?: { input: InformerInput<T>; error: unknown };
}

/** The state before anything was applied: an empty cache, stopped. */
export function initialInformerState<T extends KubeObject>(options: DeltaStoreOptions<T> = {}): InformerState<T> {
  return {
    cache: initialDeltaState<T>(options),
    status: { phase: 'stopped', relistCount: 0, hasSynced: false },
    restarted: false,
    relistsBefore: 0,
    initialListEnd: false,
    seq: 0,
  };
}

/**
 * The step. Cache events go to the delta reducer; every other input leaves the cache as it is,
 * with no deltas, so a batch is only ever delivered with the state that made it.
 *
 * - `status` of a restarted run: counted on top of the earlier runs (`relistCount`), synced, and at
 *   the last resource version known until the restart's own list lands.
 * - `stopped`: the status's phase becomes `stopped`, without `backoffMs` or `listProgress`.
 * - `addIndexers`: the snapshot gains the indexes; when an index function throws, none is added and
 *   the state says so in `refused`.
 */
export function informerStep<T extends KubeObject>(
  reducer: DeltaReducer<T>,
): (state: InformerState<T>, input: InformerInput<T>) => InformerState<T> {
  return (state, input) => {
    const seq = state.seq + 1;
    switch (input.type) {
      case 'replace':
      case 'added':
      case 'modified':
      case 'deleted':
      case 'bookmark': {
        const cache = reducer(state.cache, input);
        return { ...state, cache, initialListEnd: !state.cache.synced && cache.synced, seq };
      }
      case 'status':
        return { ...quiet(state, seq), status: state.restarted ? restartedStatus(state, input.status) : input.status };
      case 'run': {
        // The restart's list is a relist.
        const relistsBefore = input.restarted ? state.status.relistCount + 1 : state.relistsBefore;
        return { ...quiet(state, seq), restarted: input.restarted, relistsBefore };
      }
      case 'stopped': {
        const { backoffMs: _b, listProgress: _p, ...rest } = state.status; // only while backing off / listing
        return { ...quiet(state, seq), status: { ...rest, phase: 'stopped' } };
      }
      case 'addIndexers':
        try {
          const store = state.cache.store.addIndexers(input.indexers);
          return { ...quiet(state, seq), cache: { ...state.cache, store, deltas: [], errors: [] } };
        } catch (error) {
          return { ...quiet(state, seq), refused: { input, error } };
        }
      default:
        // Anything else the reflector might send is the delta reducer's to report.
        return { ...state, cache: reducer(state.cache, input), initialListEnd: false, seq };
    }
  };
}

/** The cache of `state` once it has synced (what a resync pass re-delivers), else `undefined`. */
export function syncedStore<T extends KubeObject>(state: InformerState<T>): Store<T> | undefined {
  return state.cache.synced ? state.cache.store : undefined;
}

/** `state` at `seq` with nothing to deliver: no deltas, no errors, no end of the first list. */
function quiet<T extends KubeObject>(state: InformerState<T>, seq: number): InformerState<T> {
  const { cache } = state;
  const quietCache = cache.deltas.length === 0 && cache.errors.length === 0 ? cache : { ...cache, deltas: [], errors: [] };
  return { ...state, cache: quietCache, initialListEnd: false, seq };
}

/** A restarted run's status: counted over every run, synced, at the last version known. */
function restartedStatus<T extends KubeObject>(state: InformerState<T>, status: ReflectorStatus): ReflectorStatus {
  const { lastSyncResourceVersion = state.cache.resourceVersion } = status;
  return {
    ...status,
    relistCount: status.relistCount + state.relistsBefore,
    hasSynced: true,
    ...(lastSyncResourceVersion !== undefined && { lastSyncResourceVersion }),
  };
}

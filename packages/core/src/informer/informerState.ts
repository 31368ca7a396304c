/**
 * The shared informer's state and its one writer: a pure step for RxJS `scan` over the reflector's
 * events and the informer's own inputs, returning the next state and, beside it, what changed
 * (`(state, input) → { state, change }`). The state holds only what the informer knows; what just
 * happened is the change, which observers are told and nothing has to reset.
 *
 * @example
 * merge(reflector$, commands$).pipe(scan((s, input) => informerStep(s.state, input), initialInformerStep(o)));
 */
import { applyEvent, initialDeltaState, type DeltaStoreOptions, type DeltaStoreState } from '../store/deltaStore.ts';
import type { Delta, Indexers, KubeObject, ReflectorEvent, ReflectorStatus } from '../types.ts';

/** What the informer's `scan` consumes: the reflector's events and the informer's own inputs. */
export type InformerInput<T extends KubeObject> =
  | ReflectorEvent<T>
  /** The run ended (`stop()`). */
  | { type: 'stopped' }
  /** `addIndexers()`: index names already checked, functions not yet run. */
  | { type: 'addIndexers'; indexers: Indexers<T> };

/** What the informer knows: the cache (snapshot, resource version, synced) and the reflector's status. */
export interface InformerState<T extends KubeObject> extends DeltaStoreState<T> {
  /** The reflector's condition, counted over every run; `stopped` when not running. */
  readonly status: ReflectorStatus;
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
      return { state: { ...state, status: input.status }, change: STATUS };
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

/** The cache of `state` once it has synced (what a resync pass re-delivers), else `undefined`. */
export function syncedStore<T extends KubeObject>(state: InformerState<T>): InformerState<T>['store'] | undefined {
  return state.synced ? state.store : undefined;
}

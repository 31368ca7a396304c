/**
 * The contract between a multi-cluster factory and what tells it which clusters exist
 * (multicluster-runtime's `Provider`): an Observable of membership. A cluster joins with a name and
 * the ListerWatcher source that reaches it, leaves by name; a changed cluster leaves and joins
 * again. Problems of the provider (a broken kubeconfig file, a Secret without a kubeconfig) are
 * values on its status, never an error of the membership stream.
 */
import type { Observable } from 'rxjs';
import { RxInformerError } from '../errors.ts';
import type { ListerWatcherSource } from '../types.ts';

/** A cluster as a provider hands it over. */
export interface Cluster {
  /** Its name: unique among the provider's clusters, no `/` (it goes into keys: `cluster://NAME/…`). */
  readonly name: string;
  /** The ListerWatchers of its resources. */
  readonly source: ListerWatcherSource;
  /** Releases what the source holds (connections), once the cluster has left. Default: nothing. */
  close?(): void | Promise<void>;
}

/** A cluster is there (again: a join of a name present is its leave, then its join). */
export interface ClusterJoin<C extends Cluster = Cluster> {
  /** Always `join`. */
  readonly type: 'join';
  /** The cluster: its name, its source, its `close`. */
  readonly cluster: C;
}

/** A cluster is gone. */
export interface ClusterLeave {
  /** Always `leave`. */
  readonly type: 'leave';
  /** The cluster's name. */
  readonly name: string;
}

/** The provider has told every cluster it found when it started (waits for caches look at the clusters present after it). */
export interface ClusterProviderSynced {
  /** Always `synced`. */
  readonly type: 'synced';
}

/** One change of membership: a join, a leave, or the provider's `synced` (once). */
export type ClusterEvent<C extends Cluster = Cluster> = ClusterJoin<C> | ClusterLeave | ClusterProviderSynced;

/** What a provider knows of its own condition. */
export interface ClusterProviderStatus {
  /**
   * Its standing problems, by what each is about (a file's path, a Secret's `namespace/name`): a
   * problem fixed leaves the map. A cluster whose source is broken stays as it was.
   */
  readonly errors: ReadonlyMap<string, Error>;
}

/**
 * Tells which clusters exist, as they come and go (multicluster-runtime's `Provider`).
 *
 * @example
 * const provider: ClusterProvider = {
 *   clusters$: of({ type: 'join', cluster: { name: 'a', source: sourceA } }, { type: 'synced' }),
 * };
 *
 * Caveat: `clusters$` is cold: each subscription runs the provider (watches a folder, lists
 * Secrets…) and unsubscribing stops it. A factory subscribes once, on its first start.
 */
export interface ClusterProvider<C extends Cluster = Cluster> {
  /** Membership: joins, leaves, and `synced` once. Never errors (problems go to `status$`). */
  readonly clusters$: Observable<ClusterEvent<C>>;
  /** The provider's condition, replayed (its latest) to each subscriber. Default: none. */
  readonly status$?: Observable<ClusterProviderStatus>;
}

/**
 * A provider could not make a cluster of something it found (a kubeconfig file that does not parse,
 * a Secret without its `value`): the cluster is left as it was (absent, or as last joined).
 * `source` says what (a path, a Secret's `namespace/name`).
 */
export class ClusterSourceError extends RxInformerError {
  /** Always `ClusterSourceError`: set as a string, so it survives minification. */
  override readonly name: string = 'ClusterSourceError';
  /** What the provider read: a file's path, a Secret's `namespace/name`. */
  readonly source: string;
  constructor(reason: string, source: string, message: string, options?: { cause?: unknown }) {
    super(reason, `${source}: ${message}`, options);
    this.source = source;
  }
}

/** A cluster asked for by name is not (or no longer) among the clusters present. */
export class ClusterGoneError extends RxInformerError {
  /** Always `ClusterGoneError`: set as a string, so it survives minification. */
  override readonly name: string = 'ClusterGoneError';
  /** The cluster asked for. */
  readonly cluster: string;
  constructor(cluster: string) {
    super('ClusterGone', `cluster ${cluster} is not present (it left, or never joined)`);
    this.cluster = cluster;
  }
}

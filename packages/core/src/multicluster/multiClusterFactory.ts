/**
 * The multi-cluster factory: one core informer factory per cluster a provider tells of, made when
 * the cluster joins and shut down when it leaves, and per resource and scope one view over the
 * clusters' informers (a `MultiClusterInformer`, keys `cluster://NAME/namespace/name`). It is an
 * `InformerFactory` itself, so a controller builder or a list view takes it as it takes one
 * cluster's.
 */
import { asyncScheduler, BehaviorSubject, Subject, type Observable, type Subscription } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { FactoryStoppedError } from '../informer/cacheSync.ts';
import type { CacheSyncOptions, FactoryEntry } from '../informer/cacheSync.ts';
import { DEFAULT_RELEASE_GRACE_MS, factoryLifecycle } from '../informer/factoryLifecycle.ts';
import { informerKey, scopeOf, validateDescriptor, validateFactoryOptions, validateScope } from '../informer/factoryOptions.ts';
import {
  createInformerFactory,
  FactoryShutdownError,
  runControls,
  type InformerFactory,
  type InformerFactoryOptions,
  type InformerForOptions,
} from '../informer/informerFactory.ts';
import type { InformerLogger } from '../informer/statusLogger.ts';
import type { KubeObject, ResourceDescriptor } from '../types.ts';
import { checkClusterName } from './clusterKey.ts';
import type { Cluster, ClusterEvent, ClusterProvider } from './clusterProvider.ts';
import { multiClusterView, type MultiClusterInformer, type ViewHandle } from './multiClusterInformer.ts';

/** Options of `createMultiClusterFactory`: those of every cluster's factory (core's, without snapshots). */
export type MultiClusterFactoryOptions = Omit<InformerFactoryOptions, 'snapshots'>;

/** A cluster present in a multi-cluster factory: what the provider handed over, and its factory. */
export interface ClusterMember<C extends Cluster = Cluster> {
  /** The cluster as the provider gave it (a client-node provider's carries its `KubeConfig`). */
  readonly cluster: C;
  /** Its informer factory: one normal informer per resource and scope, keys without the cluster. */
  readonly factory: InformerFactory;
}

/** Informer factories over the clusters of a provider, and views across them. */
export interface MultiClusterFactory<C extends Cluster = Cluster> extends InformerFactory {
  /**
   * The view of `resource` in the factory's (or the given) scope across every cluster present and
   * to come: a `SharedInformer` whose keys are `cluster://NAME/namespace/name`. A later request for
   * the same resource and scope returns the same view. Options go to each cluster's informer.
   */
  informerFor<T extends KubeObject>(resource: ResourceDescriptor<T>, options?: InformerForOptions<T>): MultiClusterInformer<T>;
  /** The names of the clusters present now. */
  clusters(): readonly string[];
  /** A cluster present now, with its factory; undefined if absent. */
  cluster(name: string): ClusterMember<C> | undefined;
  /** The names of the clusters present, replayed, then on each join and leave. */
  readonly clusters$: Observable<readonly string[]>;
  /**
   * Resolves once the provider has told its clusters and every informer of every cluster present
   * (and of those that join meanwhile) has synced; a cluster that leaves is no longer waited for.
   * Otherwise as `InformerFactory.waitForCacheSync` (its `CacheSyncTimeoutError` names the
   * cluster of each informer not synced).
   */
  waitForCacheSync(options?: CacheSyncOptions): Promise<void>;
}

/**
 * Creates a factory over the clusters `provider` tells of. Its first `start()` (or `retain()`)
 * subscribes to the provider; each cluster that joins gets a core informer factory with these
 * options, started while this factory runs, with an informer for every view requested; a cluster
 * that leaves has its factory shut down (its objects leave every view as `Deleted` deltas marked
 * `clusterLeft`) and its `close()` called. `shutdown()` unsubscribes from the provider.
 *
 * @example
 * const fleet = createMultiClusterFactory(kubeconfigFolderProvider('/etc/fleet'));
 * const pods = fleet.informerFor(podsResource);
 * pods.addEventHandler({ onAdd: (p, _initial, key) => console.log(key) }); // cluster://eu-1/default/web
 * fleet.start();
 * await fleet.waitForCacheSync({ timeoutMs: 60_000 });
 *
 * Caveat: no `snapshots` (warm restarts) yet; `lastSyncResourceVersion` of a view is undefined
 * (resource versions of two clusters do not compare: read `view.informerOf(cluster)`'s).
 */
export function createMultiClusterFactory<C extends Cluster = Cluster>(
  provider: ClusterProvider<C>,
  options: MultiClusterFactoryOptions = {},
): MultiClusterFactory<C> {
  if (provider === null || typeof provider !== 'object' || typeof provider.clusters$?.subscribe !== 'function')
    throw new InvalidOptionsError('a cluster provider needs a clusters$ Observable');
  if ((options as InformerFactoryOptions).snapshots !== undefined)
    throw new InvalidOptionsError('a multi-cluster factory takes no snapshots (yet): persist per cluster with its own factory');
  validateFactoryOptions(options);
  const scheduler = options.scheduler ?? asyncScheduler;
  const fleet = new Fleet<C>(options);
  const lifecycle = factoryLifecycle(
    {
      run: () => {
        fleet.running = true;
        fleet.subscription ??= provider.clusters$.subscribe({ next: (e) => fleet.onEvent(e), error: () => undefined });
        fleet.each((f) => f.start());
      },
      halt: () => {
        fleet.running = false;
        fleet.each((f) => f.stop());
        fleet.ended.next(new FactoryStoppedError());
      },
    },
    options.releaseGraceMs ?? DEFAULT_RELEASE_GRACE_MS,
    scheduler,
  );
  const { members, views, requested, ended } = fleet;
  const sync = { entries: () => fleet.entries(), requested, ended, scheduler, ready: () => fleet.providerSynced };
  return {
    informerFor: <T extends KubeObject>(resource: ResourceDescriptor<T>, perInformer: InformerForOptions<T> = {}) =>
      fleet.viewFor(resource, perInformer, () => lifecycle.hold()),
    clusters: () => [...members.keys()],
    cluster: (name) => members.get(name),
    clusters$: fleet.names.asObservable(),
    ...runControls(lifecycle, fleet, () => views.size, sync),
    hasSynced: () => !fleet.shutDown && views.size > 0 && [...views.values()].every((v) => v.handle.view.hasSynced()),
    saveSnapshots: () => Promise.resolve(),
    shutdown: () => {
      if (fleet.shutDown) return;
      lifecycle.close();
      fleet.close();
    },
  };
}

/** A view of the fleet: its handle, and the resource and options its clusters' informers are made with. */
interface FleetView {
  readonly handle: ViewHandle<KubeObject>;
  readonly resource: ResourceDescriptor;
  readonly options: InformerForOptions<KubeObject>;
}

/** What a multi-cluster factory holds: the clusters present with their factories, the views, the phase. */
class Fleet<C extends Cluster> {
  readonly members = new Map<string, ClusterMember<C>>();
  readonly views = new Map<string, FleetView>();
  readonly names = new BehaviorSubject<readonly string[]>([]);
  /** Emits when a cluster or a view comes or goes, or the provider syncs: waits look again. */
  readonly requested = new Subject<void>();
  /** Emits the error pending waits reject with. */
  readonly ended = new Subject<Error>();
  running = false;
  shutDown = false;
  providerSynced = false;
  subscription: Subscription | undefined;
  readonly #options: MultiClusterFactoryOptions;

  constructor(options: MultiClusterFactoryOptions) {
    this.#options = options;
  }

  /** Runs `fn` on each cluster's factory, then lets each view look at its sync and run state again. */
  each(fn: (factory: InformerFactory) => void): void {
    for (const m of this.members.values()) fn(m.factory);
    for (const v of this.views.values()) v.handle.recheck();
  }

  /** One membership change of the provider. */
  onEvent(event: ClusterEvent<C>): void {
    if (this.shutDown) return;
    if (event.type === 'join' && this.#validName(event.cluster?.name)) this.#join(event.cluster);
    else if (event.type === 'leave') this.#leave(event.name);
    else if (event.type === 'synced') this.providerSynced = true;
    for (const v of this.views.values()) v.handle.recheck();
    this.requested.next();
  }

  /** The view of `resource` in the scope of `perInformer`: the one made before, or a new one fed by every cluster. */
  viewFor<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    perInformer: InformerForOptions<T>,
    start: () => void,
  ): MultiClusterInformer<T> {
    if (this.shutDown) throw new FactoryShutdownError();
    validateDescriptor(resource);
    validateScope(perInformer ?? {});
    const key = informerKey(resource, scopeOf(resource, perInformer, this.#options));
    const existing = this.views.get(key);
    if (existing) {
      for (const m of this.members.values()) m.factory.informerFor(resource, perInformer); // the same checks and indexers as one cluster's
      return existing.handle.view as unknown as MultiClusterInformer<T>;
    }
    const hooks = {
      start,
      running: () => this.running,
      providerSynced: () => this.providerSynced,
      shutDown: () => {
        this.views.delete(key);
        this.requested.next();
      },
    };
    const { indexers, keyFunc, resyncPeriodMs = this.#options.resyncPeriodMs } = perInformer;
    const handle = multiClusterView<T>(hooks, { indexers, keyFunc, resyncPeriodMs, scheduler: this.#options.scheduler });
    const view: FleetView = {
      handle: handle as unknown as ViewHandle<KubeObject>,
      resource,
      options: perInformer as InformerForOptions<KubeObject>,
    };
    this.views.set(key, view);
    for (const [name, member] of this.members) this.#attach(name, member, view);
    handle.recheck();
    this.requested.next();
    return handle.view;
  }

  /** The informers of every view in every cluster, as waits for the caches look at them. */
  entries(): FactoryEntry[] {
    return [...this.views.values()].flatMap(({ handle, resource, options }) =>
      [...this.members.keys()].flatMap((cluster) => {
        const informer = handle.view.informerOf(cluster);
        return informer === undefined ? [] : [{ informer, resource, scope: scopeOf(resource, options, this.#options), cluster }];
      }),
    );
  }

  /** `shutdown()`: every view and cluster ended, the provider released, waits rejected. */
  close(): void {
    this.running = false;
    for (const v of [...this.views.values()]) v.handle.view.shutdown();
    for (const name of [...this.members.keys()]) this.#leave(name);
    this.shutDown = true;
    this.subscription?.unsubscribe();
    this.ended.next(new FactoryShutdownError());
    for (const s of [this.ended, this.requested, this.names] as Subject<unknown>[]) s.complete();
  }

  #attach(name: string, member: ClusterMember<C>, v: FleetView): void {
    v.handle.attach(name, member.factory.informerFor(v.resource, v.options));
  }

  #join(cluster: C): void {
    this.#leave(cluster.name); // a changed cluster: leave, then join again
    const factory = createInformerFactory(cluster.source, clusterOptions(this.#options, cluster.name));
    const member = { cluster, factory };
    this.members.set(cluster.name, member);
    for (const v of this.views.values()) this.#attach(cluster.name, member, v);
    if (this.running) factory.start();
    this.names.next([...this.members.keys()]);
  }

  #leave(name: string): void {
    const member = this.members.get(name);
    if (member === undefined) return;
    this.members.delete(name);
    for (const v of this.views.values()) v.handle.detach(name);
    member.factory.shutdown();
    void Promise.resolve()
      .then(() => member.cluster.close?.())
      .catch(() => undefined); // a close that fails leaves nothing of ours open
    this.names.next([...this.members.keys()]);
  }

  /** A provider's cluster whose name cannot go into keys is left out, and logged. */
  #validName(name: unknown): boolean {
    try {
      checkClusterName(name);
      return true;
    } catch (e) {
      const status = { phase: 'stopped' as const, relistCount: 0, hasSynced: false, lastError: e as Error };
      this.#options.logger?.error?.(`a cluster provider gave a cluster that cannot join: ${(e as Error).message}`, {
        resource: '',
        scope: {},
        status,
      });
      return false;
    }
  }
}

/** A cluster's factory options: the factory's, its logger's lines naming the cluster. */
function clusterOptions(options: MultiClusterFactoryOptions, cluster: string): InformerFactoryOptions {
  const { logger } = options;
  if (logger === undefined) return options;
  const named: InformerLogger = {};
  for (const level of ['info', 'warn', 'error'] as const) {
    if (logger[level] !== undefined)
      named[level] = (message, details) => logger[level]?.(`cluster ${cluster}: ${message}`, { ...details, cluster });
  }
  return { ...options, logger: named };
}

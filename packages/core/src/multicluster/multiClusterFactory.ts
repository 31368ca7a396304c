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
  const members = new Map<string, ClusterMember<C>>();
  const views = new Map<
    string,
    { handle: ViewHandle<KubeObject>; resource: ResourceDescriptor; options: InformerForOptions<KubeObject> }
  >();
  const names = new BehaviorSubject<readonly string[]>([]);
  const requested = new Subject<void>();
  const ended = new Subject<Error>();
  const state = { running: false, shutDown: false, providerSynced: false, subscription: undefined as Subscription | undefined };

  const lifecycle = factoryLifecycle(
    {
      run: () => {
        state.running = true;
        state.subscription ??= provider.clusters$.subscribe({ next: onEvent, error: () => undefined });
        for (const m of members.values()) m.factory.start();
        for (const v of views.values()) v.handle.recheck();
      },
      halt: () => {
        state.running = false;
        for (const m of members.values()) m.factory.stop();
        for (const v of views.values()) v.handle.recheck();
        ended.next(new FactoryStoppedError());
      },
    },
    options.releaseGraceMs ?? DEFAULT_RELEASE_GRACE_MS,
    scheduler,
  );

  const attach = (name: string, member: ClusterMember<C>, key: string): void => {
    const v = views.get(key)!;
    v.handle.attach(name, member.factory.informerFor(v.resource, v.options));
  };
  const leave = (name: string): void => {
    const member = members.get(name);
    if (member === undefined) return;
    members.delete(name);
    for (const v of views.values()) v.handle.detach(name);
    member.factory.shutdown();
    void Promise.resolve()
      .then(() => member.cluster.close?.())
      .catch(() => undefined); // a close that fails leaves nothing of ours open
    names.next([...members.keys()]);
    requested.next();
  };
  /** A provider's cluster whose name cannot go into keys is left out, and logged. */
  const validName = (name: unknown): boolean => {
    try {
      checkClusterName(name);
      return true;
    } catch (e) {
      options.logger?.error?.(`a cluster provider gave a cluster that cannot join: ${(e as Error).message}`, {
        resource: '',
        scope: {},
        status: { phase: 'stopped', relistCount: 0, hasSynced: false, lastError: e as Error },
      });
      return false;
    }
  };
  const join = (cluster: C): void => {
    leave(cluster.name); // a changed cluster: leave, then join again
    const factory = createInformerFactory(cluster.source, clusterOptions(options, cluster.name));
    const member = { cluster, factory };
    members.set(cluster.name, member);
    for (const key of views.keys()) attach(cluster.name, member, key);
    if (state.running) factory.start();
    names.next([...members.keys()]);
    requested.next();
  };
  function onEvent(event: ClusterEvent<C>): void {
    if (state.shutDown) return;
    if (event.type === 'join' && !validName(event.cluster?.name)) return;
    if (event.type === 'join') join(event.cluster);
    else if (event.type === 'leave') leave(event.name);
    else state.providerSynced = true;
    for (const v of views.values()) v.handle.recheck();
    if (event.type === 'synced') requested.next();
  }

  const informerFor = <T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    perInformer: InformerForOptions<T> = {},
  ): MultiClusterInformer<T> => {
    if (state.shutDown) throw new FactoryShutdownError();
    validateDescriptor(resource);
    validateScope(perInformer ?? {});
    const key = informerKey(resource, scopeOf(resource, perInformer, options));
    const existing = views.get(key);
    if (existing) {
      for (const m of members.values()) m.factory.informerFor(resource, perInformer); // the same checks and indexers as one cluster's
      return existing.handle.view as unknown as MultiClusterInformer<T>;
    }
    const handle = multiClusterView<T>(
      {
        start: () => lifecycle.hold(),
        running: () => state.running,
        providerSynced: () => state.providerSynced,
        shutDown: () => {
          views.delete(key);
          requested.next();
        },
      },
      {
        indexers: perInformer.indexers,
        keyFunc: perInformer.keyFunc,
        resyncPeriodMs: perInformer.resyncPeriodMs ?? options.resyncPeriodMs,
        scheduler,
      },
    );
    views.set(key, {
      handle: handle as unknown as ViewHandle<KubeObject>,
      resource,
      options: perInformer as InformerForOptions<KubeObject>,
    });
    for (const [name, member] of members) attach(name, member, key);
    handle.recheck();
    requested.next();
    return handle.view;
  };

  const entries = (): FactoryEntry[] =>
    [...views.values()].flatMap(({ handle, resource, options: o }) =>
      [...members.keys()].flatMap((cluster) => {
        const informer = handle.view.informerOf(cluster);
        return informer === undefined ? [] : [{ informer, resource, scope: scopeOf(resource, o, options), cluster }];
      }),
    );
  return {
    informerFor,
    clusters: () => [...members.keys()],
    cluster: (name) => members.get(name),
    clusters$: names.asObservable(),
    ...runControls(lifecycle, state, () => views.size, { entries, requested, ended, scheduler, ready: () => state.providerSynced }),
    hasSynced: () => !state.shutDown && views.size > 0 && [...views.values()].every((v) => v.handle.view.hasSynced()),
    saveSnapshots: () => Promise.resolve(),
    shutdown: () => {
      if (state.shutDown) return;
      lifecycle.close();
      state.running = false;
      for (const v of [...views.values()]) v.handle.view.shutdown();
      for (const name of [...members.keys()]) leave(name);
      state.shutDown = true;
      state.subscription?.unsubscribe();
      ended.next(new FactoryShutdownError());
      for (const s of [ended, requested, names] as Subject<unknown>[]) s.complete();
    },
  };
}

/** A cluster's factory options: the factory's, its logger's lines naming the cluster. */
function clusterOptions(options: MultiClusterFactoryOptions, cluster: string): InformerFactoryOptions {
  const { logger } = options;
  if (logger === undefined) return options;
  const named: InformerLogger = {};
  for (const level of ['info', 'warn', 'error'] as const) {
    const log = logger[level];
    if (log !== undefined) named[level] = (message, details) => log.call(logger, `cluster ${cluster}: ${message}`, { ...details, cluster });
  }
  return { ...options, logger: named };
}

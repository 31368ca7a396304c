/**
 * The multi-cluster view of one resource: a merge of the deltas of one normal informer per cluster,
 * each key tagged with its cluster (`cluster://NAME/namespace/name`). It is itself a
 * `SharedInformer`: a store of every cluster's objects, `events$`, handlers with their own buffers
 * and resync, so that anything written for an informer (a controller, a list view) takes it.
 *
 *   cluster a's informer ─deltas─┐
 *   cluster b's informer ─deltas─┼─▶ tag with the cluster, apply to the view's store ─▶ steps ─▶ store$, events$, handlers
 *   cluster b leaves ─Deleted (clusterLeft) for each of its keys──┘
 */
import { BehaviorSubject, Subject, asyncScheduler, skip, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { validateHandler } from '../informer/eventHandler.ts';
import { registerHandler, type HandlerSources } from '../informer/handlerRegistration.ts';
import type { EventHandler, EventHandlerOptions, HandlerError, HandlerRegistration } from '../informer/handlerTypes.ts';
import { eventsOf, latestOf, syncedStore, type InformerStep } from '../informer/informerPipeline.ts';
import { resyncClocks, validateResyncPeriod } from '../informer/resync.ts';
import { InformerShutdownError, type SharedInformer } from '../informer/sharedInformer.ts';
import type { Delta, Indexers, KubeObject, ReflectorStatus } from '../types.ts';
import { ViewFeed } from './viewFeed.ts';

/** A delta of the view: the cluster's delta with the cluster in its key, and the cluster. */
export type ClusterDelta<T extends KubeObject = KubeObject> = Delta<T> & {
  /** The cluster the object is in. */
  readonly cluster: string;
  /** True on the `Deleted` deltas (tombstones) of the objects of a cluster that left. */
  readonly clusterLeft?: boolean;
};

/** A cluster's informer status, as the view reports it. */
export interface ClusterStatus {
  /** The cluster. */
  readonly cluster: string;
  /** Its informer's status (`stopped` once it left). */
  readonly status: ReflectorStatus;
}

/**
 * One resource across clusters: a `SharedInformer` whose keys carry the cluster
 * (`cluster://NAME/namespace/name`), over one normal informer per cluster.
 */
export interface MultiClusterInformer<T extends KubeObject> extends SharedInformer<T> {
  /** Every change of the view, each delta with its `cluster` (see `SharedInformer.events$`). */
  readonly events$: Observable<ClusterDelta<T>>;
  /**
   * Each cluster's informer status as it changes, with the cluster: a cluster that fails
   * (`backingOff`, its `lastError`) while the others go on watching shows here. A cluster that
   * leaves reports `stopped`.
   */
  readonly clusterStatus$: Observable<ClusterStatus>;
  /** The status of each cluster present now. */
  getClusterStatus(): ReadonlyMap<string, ReflectorStatus>;
  /** The clusters whose informers feed the view now. */
  clusters(): readonly string[];
  /** The normal informer of this resource in `cluster` (its keys without the cluster); undefined if absent. */
  informerOf(cluster: string): SharedInformer<T> | undefined;
}

/** What the factory does with a view: the parts of its life that are the factory's. */
export interface ViewHooks {
  /** Starts the factory (the view's `start()`). */
  start(): void;
  /** True while the factory runs. */
  running(): boolean;
  /** True once the provider has told its first clusters. */
  providerSynced(): boolean;
  /** The view was shut down: the factory forgets it. */
  shutDown(): void;
}

/** A view and the factory's handle on it. */
export interface ViewHandle<T extends KubeObject> {
  readonly view: MultiClusterInformer<T>;
  /** Feeds the view from `informer`, the cluster's informer of the view's resource and scope. */
  attach(cluster: string, informer: SharedInformer<T>): void;
  /** The cluster left: its objects leave the view as `clusterLeft` tombstones. */
  detach(cluster: string): void;
  /** Looks again whether the view has synced (the provider synced, a cluster joined or left). */
  recheck(): void;
}

/** Options of a view: those of the store the cluster informers share, and the view's clock. */
export interface ViewOptions<T extends KubeObject> {
  indexers?: Indexers<T>;
  keyFunc?: (obj: T) => string;
  resyncPeriodMs?: number;
  scheduler?: SchedulerLike;
}

/** Makes a view; the factory attaches clusters to it. */
export function multiClusterView<T extends KubeObject>(hooks: ViewHooks, options: ViewOptions<T>): ViewHandle<T> {
  const feed = new ViewFeed<T>(hooks, options);
  const { steps, members } = feed;
  const changes$ = steps.pipe(skip(1));
  const handlerErrors = new Subject<HandlerError<T>>();
  const running = new BehaviorSubject(false); // the resync clocks run while the factory runs
  const handlers = handlerSourcesOf(steps, changes$, running, options, handlerErrors);
  const lifetime = { open: true, handlers: new Set<Subscription>(), count: 0 };
  const checkOpen = (what: string): void => {
    if (!lifetime.open) throw new InformerShutdownError(what);
  };
  const shutdown = (): void => {
    if (!lifetime.open) return;
    lifetime.open = false;
    feed.close();
    for (const s of lifetime.handlers) s.unsubscribe();
    hooks.shutDown();
    for (const s of [handlerErrors, running] as Subject<unknown>[]) s.complete();
  };
  const addEventHandler = (handler: EventHandler<T>, handlerOptions: EventHandlerOptions = {}): HandlerRegistration => {
    validateHandler(handler, handlerOptions);
    checkOpen('addEventHandler()');
    const name = handlerOptions.name ?? `handler-${++lifetime.count}`;
    const { registration, subscription } = registerHandler(handlers, name, handler, handlerOptions);
    lifetime.handlers.add(subscription);
    subscription.add(() => lifetime.handlers.delete(subscription));
    return registration;
  };
  const view: MultiClusterInformer<T> = {
    store$: latestOf(steps, (s) => s.store),
    events$: eventsOf(changes$) as Observable<ClusterDelta<T>>,
    synced$: latestOf(steps, (s) => s.synced),
    status$: latestOf(steps, (s) => s.status),
    clusterStatus$: feed.clusterStatus.asObservable(),
    storeErrors$: feed.storeErrors.asObservable(),
    handlerErrors$: handlerErrors.asObservable(),
    lastSyncResourceVersion: undefined, // resource versions of two clusters do not compare: see informerOf(cluster)
    getStore: () => steps.value.state.store,
    hasSynced: () => steps.value.state.synced,
    getStatus: () => steps.value.state.status,
    getClusterStatus: () => new Map([...members].map(([name, m]) => [name, m.status])),
    clusters: () => [...members.keys()],
    informerOf: (cluster) => members.get(cluster)?.informer,
    isRunning: () => hooks.running(),
    saveSnapshot: () => Promise.resolve(),
    start: () => {
      checkOpen('start()');
      hooks.start();
    },
    stop: () => members.forEach((m) => m.informer.stop()),
    shutdown,
    addEventHandler,
    addIndexers: (indexers) => {
      checkOpen('addIndexers()');
      addIndexersTo(feed, indexers);
    },
  };
  const followRunning = (): void => {
    if (running.value !== hooks.running()) running.next(hooks.running());
  };
  return {
    view,
    attach: (cluster, informer) => {
      feed.attach(cluster, informer);
      followRunning();
    },
    detach: (cluster) => feed.detach(cluster),
    recheck: () => {
      followRunning();
      feed.publish(steps.value.state.store, []);
    },
  };
}

/** What the view's handlers are fed from: its steps, and resync clocks that run while the factory runs. */
function handlerSourcesOf<T extends KubeObject>(
  steps: BehaviorSubject<InformerStep<T>>,
  changes$: Observable<InformerStep<T>>,
  running: BehaviorSubject<boolean>,
  options: ViewOptions<T>,
  errors: Subject<HandlerError<T>>,
): HandlerSources<T> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return {
    current: () => steps.value.state,
    changes$,
    resync: resyncClocks<T>({ running$: running, scheduler, snapshot: () => syncedStore(steps.value.state) }),
    defaultResyncMs: validateResyncPeriod(options.resyncPeriodMs),
    scheduler,
    onError: (e) => errors.next(e),
  };
}

/** `addIndexers()` of a view: to each cluster's informer (which may refuse them), then to the view's store. */
function addIndexersTo<T extends KubeObject>(feed: ViewFeed<T>, indexers: Indexers<T>): void {
  if (indexers === null || typeof indexers !== 'object') throw new InvalidOptionsError('addIndexers needs an object of index functions');
  for (const m of feed.members.values()) m.informer.addIndexers(indexers); // throws IndexerError as an informer's would
  const before = feed.steps.value.state;
  const store = before.store.addIndexers(newOnes(before.store.indexers, indexers));
  feed.steps.next({ state: { ...before, store }, change: { type: 'indexersAdded', indexers } });
}

/** The index functions of `indexers` the store does not have yet. */
function newOnes<T extends KubeObject>(present: Readonly<Indexers<T>>, indexers: Indexers<T>): Indexers<T> {
  return Object.fromEntries(Object.entries(indexers).filter(([name]) => !Object.hasOwn(present, name)));
}

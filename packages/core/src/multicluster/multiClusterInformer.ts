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
import { eventsOf, initialInformerState, latestOf, syncedStore, type InformerStep } from '../informer/informerPipeline.ts';
import { resyncClocks, validateResyncPeriod } from '../informer/resync.ts';
import { InformerShutdownError, type SharedInformer } from '../informer/sharedInformer.ts';
import type { StoreSnapshot } from '../store/indexer.ts';
import type { Delta, Indexers, KubeObject, ReflectorStatus } from '../types.ts';
import { clusterKey } from './clusterKey.ts';
import { aggregateStatus } from './clusterStatus.ts';

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
  const scheduler = options.scheduler ?? asyncScheduler;
  const defaultResyncMs = validateResyncPeriod(options.resyncPeriodMs);
  const steps = new BehaviorSubject<InformerStep<T>>({
    state: initialInformerState<T>({ indexers: options.indexers, keyFunc: options.keyFunc }),
    change: { type: 'none' },
  });
  const changes$ = steps.pipe(skip(1));
  /** Each cluster's informer; `synced` follows its `synced$`, which tells after the deltas of the step that synced it. */
  const members = new Map<string, { informer: SharedInformer<T>; subscription: Subscription; status: ReflectorStatus; synced: boolean }>();
  const clusterStatus = new Subject<ClusterStatus>();
  const storeErrors = new Subject<Error>();
  const handlerErrors = new Subject<HandlerError<T>>();
  const running = new BehaviorSubject(false);
  const lifetime = new BehaviorSubject(true);
  const handlerSubs = new Set<Subscription>();
  let handlerCount = 0;

  const syncedNow = (): boolean => hooks.providerSynced() && [...members.values()].every((m) => m.synced);
  /** Publishes the view's next state with `deltas` applied to `store`. */
  const publish = (store: StoreSnapshot<T>, deltas: readonly Delta<T>[]): void => {
    const before = steps.value.state;
    const synced = before.synced || syncedNow();
    const status = aggregateStatus(
      [...members.values()].map((m) => m.status),
      synced,
    );
    if (deltas.length === 0 && synced === before.synced && sameStatus(status, before.status)) return;
    const initialListEnd = synced && !before.synced;
    steps.next({ state: { ...before, store, synced, status }, change: { type: 'deltas', deltas, errors: [], initialListEnd } });
  };
  const apply = (cluster: string, d: Delta<T>): void => {
    const key = clusterKey(cluster, d.key);
    let store = steps.value.state.store;
    if (d.type === 'Deleted') store = store.delete(key);
    else if (d.type !== 'Sync') store = store.set(key, d.object);
    const tagged =
      d.type === 'Deleted'
        ? { ...d, key, store, cluster, deleted: { ...d.deleted, key } }
        : ({ ...d, key, store, cluster } as ClusterDelta<T>);
    publish(store, [tagged as ClusterDelta<T>]);
  };

  const attach = (cluster: string, informer: SharedInformer<T>): void => {
    if (members.has(cluster)) detach(cluster);
    const member = { informer, subscription: undefined as unknown as Subscription, status: informer.getStatus(), synced: false };
    members.set(cluster, member);
    // What the informer already holds, then its changes: subscribed in the same step, no gap.
    const held = informer.getStore();
    for (const key of held.keys()) apply(cluster, { type: 'Added', key, object: held.get(key)!, isInInitialList: true, store: held });
    const sub = informer.events$.subscribe((d) => apply(cluster, d));
    sub.add(
      informer.synced$.subscribe((synced) => {
        member.synced = synced;
        publish(steps.value.state.store, []);
      }),
    );
    sub.add(
      informer.status$.subscribe((status) => {
        member.status = status;
        clusterStatus.next({ cluster, status });
        publish(steps.value.state.store, []);
      }),
    );
    sub.add(informer.storeErrors$.subscribe((e) => storeErrors.next(e)));
    member.subscription = sub;
  };

  const detach = (cluster: string): void => {
    const member = members.get(cluster);
    if (member === undefined) return;
    member.subscription.unsubscribe();
    members.delete(cluster);
    let store = steps.value.state.store;
    const prefix = clusterKey(cluster, '');
    const gone = store.keys().filter((key) => key.startsWith(prefix));
    const lastKnown = gone.map((key) => store.get(key));
    for (const key of gone) store = store.delete(key);
    // Each delta carries the snapshot after all of them: the cluster leaves at once.
    const deltas: ClusterDelta<T>[] = gone.map((key, i) => ({
      type: 'Deleted',
      key,
      deleted: { key, lastKnown: lastKnown[i], finalStateUnknown: true },
      store,
      cluster,
      clusterLeft: true,
    }));
    clusterStatus.next({ cluster, status: { phase: 'stopped', relistCount: member.status.relistCount, hasSynced: false } });
    publish(store, deltas);
  };

  const handlers: HandlerSources<T> = {
    current: () => steps.value.state,
    changes$,
    resync: resyncClocks<T>({ running$: running, scheduler, snapshot: () => syncedStore(steps.value.state) }),
    defaultResyncMs,
    scheduler,
    onError: (e) => handlerErrors.next(e),
  };
  const checkOpen = (what: string): void => {
    if (!lifetime.value) throw new InformerShutdownError(what);
  };
  const view: MultiClusterInformer<T> = {
    store$: latestOf(steps, (s) => s.store),
    events$: eventsOf(changes$) as Observable<ClusterDelta<T>>,
    synced$: latestOf(steps, (s) => s.synced),
    status$: latestOf(steps, (s) => s.status),
    clusterStatus$: clusterStatus.asObservable(),
    storeErrors$: storeErrors.asObservable(),
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
    stop: () => {
      for (const m of members.values()) m.informer.stop();
    },
    shutdown: () => {
      if (!lifetime.value) return;
      lifetime.next(false);
      for (const [name, m] of [...members]) {
        detach(name);
        m.informer.shutdown();
      }
      for (const s of handlerSubs) s.unsubscribe();
      hooks.shutDown();
      for (const s of [steps, clusterStatus, storeErrors, handlerErrors, running, lifetime] as Subject<unknown>[]) s.complete();
    },
    addEventHandler: (handler: EventHandler<T>, handlerOptions: EventHandlerOptions = {}): HandlerRegistration => {
      validateHandler(handler, handlerOptions);
      checkOpen('addEventHandler()');
      const name = handlerOptions.name ?? `handler-${++handlerCount}`;
      const { registration, subscription } = registerHandler(handlers, name, handler, handlerOptions);
      handlerSubs.add(subscription);
      subscription.add(() => handlerSubs.delete(subscription));
      return registration;
    },
    addIndexers: (indexers: Indexers<T>) => {
      checkOpen('addIndexers()');
      if (indexers === null || typeof indexers !== 'object')
        throw new InvalidOptionsError('addIndexers needs an object of index functions');
      for (const m of members.values()) m.informer.addIndexers(indexers); // throws IndexerError as an informer's would
      const before = steps.value.state;
      const store = before.store.addIndexers(newOnes(before.store.indexers, indexers));
      steps.next({ state: { ...before, store }, change: { type: 'indexersAdded', indexers } });
    },
  };
  /** The resync clocks run while the factory runs. */
  const followRunning = (): void => {
    if (running.value !== hooks.running()) running.next(hooks.running());
  };
  return {
    view,
    attach: (cluster, informer) => {
      attach(cluster, informer);
      followRunning();
    },
    detach,
    recheck: () => {
      followRunning();
      publish(steps.value.state.store, []);
    },
  };
}

/** The index functions of `indexers` the store does not have yet. */
function newOnes<T extends KubeObject>(present: Readonly<Indexers<T>>, indexers: Indexers<T>): Indexers<T> {
  return Object.fromEntries(Object.entries(indexers).filter(([name]) => !Object.hasOwn(present, name)));
}

/** True when two aggregate statuses say the same (the view publishes only changes). */
function sameStatus(a: ReflectorStatus, b: ReflectorStatus): boolean {
  return a.phase === b.phase && a.lastError === b.lastError && a.relistCount === b.relistCount && a.hasSynced === b.hasSynced;
}

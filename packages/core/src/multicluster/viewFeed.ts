/**
 * The merge under a multi-cluster view: each cluster's informer feeds one store, its keys put in
 * the cluster; each change is published as a step of the view, the shape a shared informer's
 * handlers are fed from. A cluster taken out leaves as tombstones marked `clusterLeft`.
 */
import { BehaviorSubject, Subject, type Subscription } from 'rxjs';
import { initialInformerState, type InformerStep } from '../informer/informerPipeline.ts';
import type { SharedInformer } from '../informer/sharedInformer.ts';
import type { StoreSnapshot } from '../store/indexer.ts';
import type { Delta, KubeObject, ReflectorStatus } from '../types.ts';
import { clusterKey } from './clusterKey.ts';
import { aggregateStatus } from './clusterStatus.ts';
import type { ClusterDelta, ClusterStatus, ViewHooks, ViewOptions } from './multiClusterInformer.ts';

/** A cluster feeding a view: its informer, the subscription to it, its status and whether it has synced. */
interface Member<T extends KubeObject> {
  readonly informer: SharedInformer<T>;
  subscription?: Subscription;
  status: ReflectorStatus;
  /** Follows the informer's `synced$`, which tells after the deltas of the step that synced it. */
  synced: boolean;
}

/**
 * The merge under a view: the clusters' informers feeding one store, each change published as a
 * step of the view (the shape a shared informer's handlers are fed from).
 */
export class ViewFeed<T extends KubeObject> {
  readonly steps: BehaviorSubject<InformerStep<T>>;
  readonly members = new Map<string, Member<T>>();
  readonly clusterStatus = new Subject<ClusterStatus>();
  readonly storeErrors = new Subject<Error>();
  readonly #hooks: ViewHooks;

  constructor(hooks: ViewHooks, options: ViewOptions<T>) {
    this.#hooks = hooks;
    const state = initialInformerState<T>({ indexers: options.indexers, keyFunc: options.keyFunc });
    this.steps = new BehaviorSubject<InformerStep<T>>({ state, change: { type: 'none' } });
  }

  /** Publishes the view's next state: `store` after `deltas`, its sync and its status looked at again. */
  publish(store: StoreSnapshot<T>, deltas: readonly Delta<T>[]): void {
    const before = this.steps.value.state;
    const members = [...this.members.values()];
    const synced = before.synced || (this.#hooks.providerSynced() && members.every((m) => m.synced));
    const status = aggregateStatus(
      members.map((m) => m.status),
      synced,
    );
    if (deltas.length === 0 && synced === before.synced && sameStatus(status, before.status)) return;
    const change = { type: 'deltas' as const, deltas, errors: [], initialListEnd: synced && !before.synced };
    this.steps.next({ state: { ...before, store, synced, status }, change });
  }

  /** Feeds the view from `informer`: what it holds now, then its changes (subscribed in the same step: no gap). */
  attach(cluster: string, informer: SharedInformer<T>): void {
    if (this.members.has(cluster)) this.detach(cluster);
    const member: Member<T> = { informer, status: informer.getStatus(), synced: false };
    this.members.set(cluster, member);
    const held = informer.getStore();
    for (const key of held.keys()) this.#apply(cluster, { type: 'Added', key, object: held.get(key)!, isInInitialList: true, store: held });
    const sub = informer.events$.subscribe((d) => this.#apply(cluster, d));
    sub.add(
      informer.synced$.subscribe((synced) => {
        member.synced = synced;
        this.publish(this.steps.value.state.store, []);
      }),
    );
    sub.add(
      informer.status$.subscribe((status) => {
        member.status = status;
        this.clusterStatus.next({ cluster, status });
        this.publish(this.steps.value.state.store, []);
      }),
    );
    sub.add(informer.storeErrors$.subscribe((e) => this.storeErrors.next(e)));
    member.subscription = sub;
  }

  /** Takes `cluster` out: its objects leave as tombstones marked `clusterLeft`, each delta carrying the store after all of them. */
  detach(cluster: string): void {
    const member = this.members.get(cluster);
    if (member === undefined) return;
    member.subscription?.unsubscribe();
    this.members.delete(cluster);
    let store = this.steps.value.state.store;
    const prefix = clusterKey(cluster, '');
    const gone = store.keys().filter((key) => key.startsWith(prefix));
    const lastKnown = gone.map((key) => store.get(key));
    for (const key of gone) store = store.delete(key);
    const deltas: ClusterDelta<T>[] = gone.map((key, i) => ({
      type: 'Deleted',
      key,
      deleted: { key, lastKnown: lastKnown[i], finalStateUnknown: true },
      store,
      cluster,
      clusterLeft: true,
    }));
    this.clusterStatus.next({ cluster, status: { phase: 'stopped', relistCount: member.status.relistCount, hasSynced: false } });
    this.publish(store, deltas);
  }

  /** Every cluster taken out (its objects as tombstones) and its informer shut down; the streams completed. */
  close(): void {
    for (const [name, m] of [...this.members]) {
      this.detach(name);
      m.informer.shutdown();
    }
    for (const s of [this.steps, this.clusterStatus, this.storeErrors] as Subject<unknown>[]) s.complete();
  }

  /** Applies one delta of `cluster`'s informer, its key and deletion put in the cluster. */
  #apply(cluster: string, d: Delta<T>): void {
    const key = clusterKey(cluster, d.key);
    let store = this.steps.value.state.store;
    if (d.type === 'Deleted') store = store.delete(key);
    else if (d.type !== 'Sync') store = store.set(key, d.object);
    const tagged = d.type === 'Deleted' ? { ...d, key, store, cluster, deleted: { ...d.deleted, key } } : { ...d, key, store, cluster };
    this.publish(store, [tagged as ClusterDelta<T>]);
  }
}

/** True when two aggregate statuses say the same (the view publishes only changes). */
function sameStatus(a: ReflectorStatus, b: ReflectorStatus): boolean {
  return a.phase === b.phase && a.lastError === b.lastError && a.relistCount === b.relistCount && a.hasSynced === b.hasSynced;
}

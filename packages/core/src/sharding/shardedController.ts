/**
 * `runController` sharded over a ring of replicas: this replica's informer lists and watches only
 * the slots the ring gives it (KEP-5866's `shardSelector`, and the same filter locally), its queue
 * takes only their keys, and a slot handed over is drained — no new reconcile starts for its keys,
 * those in progress finish — before the ring lets another replica have it.
 */
import { Observable, defer, finalize, from, isObservable, of, throwError, type Subscription } from 'rxjs';
import { runController, type ControllerHandle, type ControllerOptions, type ReconcileResult } from '../workqueue/runController.ts';
import { InvalidOptionsError } from '../errors.ts';
import { invalidDirectResult, isPromiseLike } from '../workqueue/reconcileWorker.ts';
import { slotOf } from './shardHash.ts';
import { startShardRing, type ShardRing, type ShardRingOptions } from './shardRing.ts';
import { shardSelectorFor } from './shardSelector.ts';
import { shardedListerWatcher } from './shardedListerWatcher.ts';
import { createSharedInformer, type SharedInformer, type SharedInformerOptions } from '../informer/sharedInformer.ts';
import { objectOf, type Delta, type KubeObject, type ListerWatcher } from '../types.ts';
import { WorkQueue } from '../workqueue/workqueue.ts';

/** Options of `runShardedController`: the ring's (but `drain`), the controller's (but `synced` and `queue`), and the source. */
export interface ShardedControllerOptions<T extends KubeObject>
  extends Omit<ShardRingOptions, 'drain'>, Omit<ControllerOptions<string>, 'synced' | 'queue' | 'reconcile'> {
  /** The objects to reconcile (all of them: the shard selector is added). Required. */
  source: ListerWatcher<T>;
  /**
   * Reconciles one key of this replica's slots; `object` is the cached object (undefined once
   * deleted). As `runController`'s reconcile: a promise is awaited, an Observable run to completion.
   */
  reconcile: (key: string, object: T | undefined) => ReconcileResult | PromiseLike<unknown> | Observable<unknown>;
  /** Options of this replica's informer (transform, indexers, reflector…). Default: none. */
  informer?: Omit<SharedInformerOptions<T>, 'scheduler'>;
}

/** A running sharded controller. */
export interface ShardedControllerHandle<T extends KubeObject> extends Omit<ControllerHandle<string>, 'stop'> {
  /** This replica's ring membership: members, active slots, warnings. */
  readonly ring: ShardRing;
  /** This replica's informer: only the objects of its active slots. */
  readonly informer: SharedInformer<T>;
  /**
   * Stops the controller (keys still queued are dropped, the reconciles in progress finish), then
   * leaves the ring: its Lease is released — others take its slots at once — only once no reconcile
   * of this replica runs. Caveat: a reconcile that never settles keeps the Lease held.
   */
  stop(): Promise<void>;
}

/**
 * Runs a controller on this replica's share of the objects. Reconciles of a slot's keys start only
 * once the ring made the slot active (written in this replica's Lease, confirmed against the
 * others'); when the slot is handed over — or the replica's Lease is lost at its renew deadline —
 * no new reconcile starts for its keys, and those in progress finish (an Observable reconcile runs
 * on) before the slot leaves the Lease. A change of slots restarts the informer's list and watch.
 *
 * Caveat: sharding on `metadata.uid` splits objects, not names: a name deleted and recreated may
 * be reconciled by two replicas at once (one for the old object, one for the new); shard on
 * `object.metadata.namespace` where that matters. Keep reconciles shorter than
 * `leaseDurationMs - renewDeadlineMs` (5 s by default): after a lost Lease they run on unwatched.
 *
 * @example
 * const ctl = runShardedController({ source: configMapsLw, client: leaseClient, leases: leasesLw, namespace: 'default',
 *   ring: 'cm-labeler', identity: podName, concurrency: 4, reconcile: async (key, cm) => { ... } });
 * await ctl.stop();
 */
export function runShardedController<T extends KubeObject>(options: ShardedControllerOptions<T>): ShardedControllerHandle<T> {
  if (!options || typeof options.reconcile !== 'function')
    throw new InvalidOptionsError('runShardedController: reconcile must be a function');
  const { source, reconcile, informer: informerOptions, concurrency, maxRetries, onError, ...ringOptions } = options;
  if (!source || typeof source.list !== 'function' || typeof source.watch !== 'function')
    throw new InvalidOptionsError('runShardedController: source must be a ListerWatcher');
  const scheduler = options.scheduler;
  const active = new Set<number>();
  const work = slotWork(active);
  /** Per slot, how many times it became active: a slot drained and given back is a new activation. */
  const activations = new Map<number, number>();
  /** Per key, its slot and the activation of that slot in which the key was last queued. */
  const queued = new Map<string, QueuedKey>();
  let selector: string | undefined;
  const informer = createSharedInformer(
    shardedListerWatcher(source, () => selector),
    { ...informerOptions, ...(scheduler && { scheduler }) },
  );
  const queue = new WorkQueue<string>(scheduler ? { scheduler } : {});
  const ring = startShardRing({ ...ringOptions, drain: work.drain });
  const { field, slots: slotCount } = ring; // as the ring resolved them
  const controller = runController<string>({
    queue,
    synced: informer.synced$,
    ...(concurrency !== undefined && { concurrency }),
    ...(maxRetries !== undefined && { maxRetries }),
    ...(onError && { onError }),
    ...(scheduler && { scheduler }),
    reconcile: (key) => {
      const slot = queued.get(key)?.slot;
      if (slot === undefined || !active.has(slot)) return undefined; // handed over since it was queued
      return work.track(
        slot,
        defer(() => reconcileCached(key, informer, queued, reconcile)),
      );
    },
  });
  const subs: Subscription[] = [
    informer.events$.subscribe((d) => {
      const slot = slotOf(objectOf(d), slotCount, field);
      queueInSlot(d, slot, active.has(slot) ? activations.get(slot) : undefined, queued, queue);
    }),
    ring.active$.subscribe((slots) => {
      for (const s of slots) if (!active.has(s)) activations.set(s, (activations.get(s) ?? 0) + 1); // drained ones included
      active.clear();
      for (const s of slots) active.add(s);
      selector = shardSelectorFor(slots, slotCount, field);
      informer.stop();
      if (slots.size > 0) informer.start();
    }),
  ];

  let stopping: Promise<void> | undefined;
  return {
    ring,
    informer,
    queue: controller.queue,
    metrics$: controller.metrics$,
    errors$: controller.errors$,
    stop: () =>
      (stopping ??= controller.stop().then(() => {
        // Every worker has returned: no reconcile of any slot runs. Only now may others take them.
        for (const s of subs) s.unsubscribe();
        informer.shutdown();
        return ring.stop();
      })),
  };
}

/** Where a queued key belongs: its slot, and the activation of that slot in which it was queued. */
type QueuedKey = { slot: number; activation: number };

/**
 * One delta of the informer: queued when its slot is active (`activation` given), unless a relist
 * found it unchanged while it was already queued in this activation; forgotten when it was deleted
 * in a slot handed over.
 */
function queueInSlot<T extends KubeObject>(
  d: Delta<T>,
  slot: number,
  activation: number | undefined,
  queued: Map<string, QueuedKey>,
  queue: WorkQueue<string>,
): void {
  if (activation !== undefined) {
    // A relist found it unchanged: already queued while its slot was active, unless the slot was
    // drained since (its queued keys dropped) and given back.
    if (d.type === 'Replaced' && queued.get(d.key)?.activation === activation) return;
    queued.set(d.key, { slot, activation });
    queue.add(d.key);
  } else if (d.type === 'Deleted') queued.delete(d.key); // a slot handed over: its keys are forgotten
}

/** `reconcile` of `key` with its cached object (a key gone from the cache is forgotten), as an Observable. */
function reconcileCached<T extends KubeObject>(
  key: string,
  informer: SharedInformer<T>,
  queued: Map<string, QueuedKey>,
  reconcile: ShardedControllerOptions<T>['reconcile'],
): Observable<unknown> {
  const object = informer.getStore().get(key);
  if (object === undefined) queued.delete(key);
  const r = reconcile(key, object);
  if (isObservable(r)) return r;
  if (isPromiseLike(r)) return from(r);
  const invalid = invalidDirectResult(key, r);
  return invalid ? throwError(() => invalid) : of(r);
}

/**
 * The reconciles in progress per slot: `track` counts one while it runs; `drain(slots)` makes the
 * slots inactive (no new reconcile starts) and completes once none of theirs runs.
 */
function slotWork(active: Set<number>) {
  const inFlight = new Map<number, number>();
  const idle = new Map<number, (() => void)[]>();
  const settled = (slot: number) => {
    const left = (inFlight.get(slot) ?? 1) - 1;
    if (left > 0) return void inFlight.set(slot, left);
    inFlight.delete(slot);
    for (const wake of idle.get(slot) ?? []) wake();
    idle.delete(slot);
  };
  return {
    track: <R>(slot: number, reconcile: Observable<R>): Observable<R> => {
      inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1);
      return reconcile.pipe(finalize(() => settled(slot)));
    },
    drain: (slots: readonly number[]) =>
      new Observable<never>((subscriber) => {
        for (const s of slots) active.delete(s);
        const busy = slots.filter((s) => inFlight.has(s));
        let waiting = busy.length;
        if (waiting === 0) return subscriber.complete();
        for (const s of busy)
          idle.set(s, [
            ...(idle.get(s) ?? []),
            () => {
              if (--waiting === 0) subscriber.complete();
            },
          ]);
      }),
  };
}

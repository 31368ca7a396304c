/**
 * Sharding as an option of a controller (`controllerFor(…, { shard })`): replicas share the
 * primary's objects over a ring of Leases (`@rxinformer/core/sharding`). This replica's primary
 * informer lists and watches only the slots the ring gives it (KEP-5866's `shardSelector`, and the
 * same filter locally), a key is reconciled only while its slot is active, and a slot handed over
 * is drained — no new reconcile of its keys starts, those in progress finish — before the ring
 * lets another replica have it.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import {
  createSharedInformer,
  InvalidOptionsError,
  type KubeObject,
  type ListerWatcher,
  type SharedInformer,
  type SharedInformerOptions,
} from '@rxinformer/core';
import {
  shardSelectorFor,
  shardedListerWatcher,
  slotOf,
  startShardRing,
  type ShardRing,
  type ShardRingOptions,
} from '@rxinformer/core/sharding';

/** Options of a sharded controller: the ring's (but `drain` and the scheduler, the controller's), and the primary's source. */
export interface ShardOptions<T extends KubeObject> extends Omit<ShardRingOptions, 'drain' | 'scheduler'> {
  /** Lists and watches all of the primary's objects; the ring's shard selector is added. Required. */
  source: ListerWatcher<T>;
  /** Options of this replica's primary informer (indexers, reflector…); its `transform` is the controller's. Default: none. */
  informer?: Omit<SharedInformerOptions<T>, 'scheduler' | 'transform'>;
}

/** One term of a sharded controller: its ring membership, and the gate of its reconciles. */
export interface ShardTerm {
  /** This replica's ring membership: members, active slots, warnings. */
  readonly ring: ShardRing;
  /** Runs `reconcile` when `key`'s slot is active (counted while it runs, for a drain); else answers nothing. */
  gate<R>(key: string, reconcile: () => R): R | undefined;
  /** Leaves the ring once the controller's loop has stopped: its Lease is released, others take its slots. */
  stop(): Promise<void>;
}

/** The sharded primary of a controller: its informer, the slot of each key, and a ring per term. */
export class Shard<T extends KubeObject> {
  /** This replica's primary informer: only the objects of its active slots (started by the ring). */
  readonly informer: SharedInformer<T>;
  readonly #options: ShardOptions<T>;
  readonly #scheduler: SchedulerLike | undefined;
  /** Each key's slot, from its last event (a deleted object's last known state). */
  readonly #slots = new Map<string, number>();
  #selector: string | undefined;
  #term: { slots: number; field: ShardRingOptions['field'] } | undefined;

  constructor(options: ShardOptions<T>, transform: ((obj: T) => T) | undefined, scheduler: SchedulerLike | undefined) {
    if (options === null || typeof options !== 'object') throw new InvalidOptionsError('controllerFor: shard must be an object');
    const { source } = options;
    if (typeof source?.list !== 'function' || typeof source.watch !== 'function')
      throw new InvalidOptionsError('controllerFor: shard.source must be a ListerWatcher');
    this.#options = options;
    this.#scheduler = scheduler;
    this.informer = createSharedInformer(
      shardedListerWatcher(source, () => this.#selector),
      {
        ...options.informer,
        ...(transform && { transform }),
        ...(scheduler && { scheduler }),
      },
    );
  }

  /** Notes the slot of `key` from an event of its object (the new state, or the last known one). */
  note(key: string, object: KubeObject | undefined): void {
    if (this.#term !== undefined && object !== undefined) this.#slots.set(key, slotOf(object, this.#term.slots, this.#term.field));
  }

  /** Joins the ring for a term: the informer follows the active slots; `gate` runs only their keys. */
  start(): ShardTerm {
    const active = new Set<number>();
    const inFlight = new Map<number, number>();
    const idle = new Map<number, (() => void)[]>();
    const settled = (slot: number) => {
      const left = (inFlight.get(slot) ?? 1) - 1;
      if (left > 0) return void inFlight.set(slot, left);
      inFlight.delete(slot);
      for (const wake of idle.get(slot) ?? []) wake();
      idle.delete(slot);
    };
    const drain = (slots: readonly number[]) =>
      new Promise<void>((resolve) => {
        for (const s of slots) active.delete(s);
        const busy = slots.filter((s) => inFlight.has(s));
        let waiting = busy.length;
        if (waiting === 0) return resolve();
        for (const s of busy) idle.set(s, [...(idle.get(s) ?? []), () => --waiting === 0 && resolve()]);
      });
    const { source: _source, informer: _informer, ...ringOptions } = this.#options;
    const ring = startShardRing({ ...ringOptions, drain, ...(this.#scheduler && { scheduler: this.#scheduler }) });
    this.#term = { slots: ring.slots, field: ring.field };
    const follow: Subscription = ring.active$.subscribe((slots) => {
      active.clear();
      for (const s of slots) active.add(s);
      this.#selector = shardSelectorFor(slots, ring.slots, ring.field);
      this.informer.stop(); // a list and a watch with the new selector: never one selector's watch over another's list
      if (slots.size > 0) this.informer.start();
    });
    return {
      ring,
      gate: (key, reconcile) => {
        const slot = this.#slots.get(key);
        if (slot === undefined || !active.has(slot)) return undefined; // handed over since it was queued
        if (this.informer.getStore().get(key) === undefined) this.#slots.delete(key); // gone: its last reconcile
        inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1);
        let result: ReturnType<typeof reconcile>;
        try {
          result = reconcile();
        } catch (e) {
          settled(slot);
          throw e;
        }
        const done = () => settled(slot);
        if (typeof (result as PromiseLike<unknown>)?.then === 'function') (result as PromiseLike<unknown>).then(done, done);
        else done();
        return result;
      },
      stop: async () => {
        follow.unsubscribe();
        this.informer.stop();
        await ring.stop(); // every reconcile has settled: only now may others take the slots
      },
    };
  }
}

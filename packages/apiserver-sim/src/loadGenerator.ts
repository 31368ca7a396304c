/**
 * The load generator: seeds N realistic pods and churns them at a given rate — creates, updates,
 * deletes, and delete-then-recreate under the same name (a new UID) — deterministically from a seed.
 * Time runs on an RxJS scheduler, so tests drive it in virtual time. The target may be synchronous
 * (the simulator's object store: every change is made at once) or asynchronous (a server over
 * HTTP, `httpChurnTarget`: changes run with bounded concurrency, those of one pod in order).
 */
import { asyncScheduler, interval, take, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubeObject } from '@rxinformer/core';
import { andThen, createChangeQueue, type ChangeQueue, type MaybePromise } from './changeQueue.ts';
import type { ObjectStore } from './objects.ts';
import { seededRandom } from './random.ts';
import { realisticPod } from './realisticPod.ts';

/**
 * Where the load goes: the simulator's object store, a server over HTTP, or anything with these
 * calls. Each call may answer synchronously, or with a promise that rejects when the write failed.
 */
export interface ChurnTarget {
  /** Creates `obj` in `namespace`, written by `fieldManager` when given (the server's default otherwise). */
  create(obj: KubeObject, namespace: string, fieldManager?: string): unknown;
  /**
   * Writes `obj.status` to `namespace/name` through the status subresource, as `fieldManager` (the
   * kubelet's status update). Optional: without it, `unalike` pods are created with their status.
   */
  updateStatus?(obj: KubeObject, namespace: string, name: string, fieldManager: string): unknown;
  /** Replaces the object `namespace/name` with `obj`. */
  update(obj: KubeObject, namespace: string, name: string): unknown;
  /** Deletes `namespace/name`. */
  delete(namespace: string, name: string): unknown;
  /** Reads `namespace/name`; undefined when absent. */
  get(namespace: string, name: string): MaybePromise<KubeObject | undefined>;
}

/** The share of each kind of change in the churn; need not sum to 1. Default 2:5:2:1. */
export interface ChurnMix {
  create?: number;
  update?: number;
  delete?: number;
  recreate?: number;
}

/** Options of `createLoadGenerator`. */
export interface LoadGeneratorOptions {
  /** Where the changes go, e.g. `objectStoreTarget(sim.storage)`. Required. */
  target: ChurnTarget;
  /** Namespaces the pods spread over; they must exist (`startApiServer({ namespaces })`), else creates fail with NotFound. Default `['default']`. */
  namespaces?: string[];
  /** Seed of every random choice. Default 1. */
  seed?: number;
  /** Where the churn's timer runs. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * Pods as unalike as a real cluster's (`realisticPod`'s `unalike`), written as a cluster writes
   * them: created without status by `kube-controller-manager`, then their status by `kubelet`
   * (when the target has `updateStatus`), so the server's managedFields hold both writers' entries,
   * the kubelet's keyed by the pod's IP. What the benchmarks measure caches with: the simulator's
   * default pods share whole subtrees that real pods do not. Default false.
   */
  unalike?: boolean;
  /** Changes in flight at once on an asynchronous target (a synchronous one makes each at once). Default 16. */
  concurrency?: number;
  /**
   * While this many changes wait for an asynchronous target, the churn skips its changes (counted
   * in `skipped`) rather than fall further behind. `Infinity` never skips. Default 4 × `concurrency`.
   */
  maxBacklog?: number;
  /** Called with each write the target refused or could not take. Default: counted only. */
  onFailure?: (error: unknown) => void;
}

/** Counters of what the generator did (a change counts when it is made, whether the target then takes it or not). */
export interface LoadCounters {
  created: number;
  updated: number;
  deleted: number;
  recreated: number;
  /** Writes the target refused or could not take (threw or rejected). */
  failed: number;
  /** Changes the churn skipped because too many waited for an asynchronous target. */
  skipped: number;
}

/** A running churn. */
export interface ChurnHandle {
  /** What the churn did so far. */
  readonly counters: LoadCounters;
  /** Stops the churn. Idempotent. */
  stop(): void;
}

/**
 * Creates a load generator. Pods live in numbered slots; a change picks a slot and a kind of change
 * by the mix (an empty slot is filled instead). The same seed gives the same changes, on a
 * synchronous target or an asynchronous one, as long as the target takes every write; after a
 * failed write the generator reads the pod back to know whether its slot holds one.
 *
 * @example
 * const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), seed: 7 });
 * load.seed(2000);
 * const churn = load.churn({ ratePerSecond: 200 });
 *
 * @example
 * const target = httpChurnTarget({ url: env.url, token: env.token, ca: env.ca });
 * const load = createLoadGenerator({ target, namespaces: ['a', 'b'], seed: 7, concurrency: 16 });
 * load.seed(2000);
 * await load.settled(); // every pod written through the API
 */
export function createLoadGenerator(options: LoadGeneratorOptions) {
  const { target } = options;
  const namespaces = options.namespaces ?? ['default'];
  const rng = seededRandom(options.seed ?? 1);
  const random = () => rng.next();
  const scheduler = options.scheduler ?? asyncScheduler;
  const concurrency = options.concurrency ?? 16;
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`concurrency must be an integer >= 1, not ${concurrency}`);
  const maxBacklog = options.maxBacklog ?? 4 * concurrency;
  const counters: LoadCounters = { created: 0, updated: 0, deleted: 0, recreated: 0, failed: 0, skipped: 0 };
  // The slots holding a pod, as the changes made so far leave them: the churn decides from this,
  // not from a read, so an asynchronous target gets the same changes from the same seed.
  const occupied = new Set<number>();
  let slots = 0;
  let serial = 0;
  const place = (slot: number) => ({ namespace: namespaces[slot % namespaces.length], name: realisticPod(slot).metadata!.name! });
  const queue: ChangeQueue = createChangeQueue(concurrency, (slot, error) => {
    counters.failed++;
    options.onFailure?.(error);
    // What a failed write left is unknown: read the slot back, unless later changes of it will tell.
    if (queue.pending(slot) > 1) return undefined;
    const { namespace, name } = place(slot);
    return andThen(target.get(namespace, name), (current) => (current ? occupied.add(slot) : occupied.delete(slot)));
  });
  const writeNew = (slot: number): unknown => writePod(target, slot, place(slot).namespace, options.unalike === true);
  const create = (slot: number) => {
    occupied.add(slot);
    queue.submit(slot, () => writeNew(slot));
    counters.created++;
  };

  /** One random change on a random slot. */
  const change = (mix: Required<ChurnMix>) => {
    const total = mix.create + mix.update + mix.delete + mix.recreate;
    let pick = random() * total;
    const slot = Math.floor(random() * Math.max(1, slots));
    const { namespace, name } = place(slot);
    if (!occupied.has(slot)) {
      create(slot);
      return;
    } // an empty slot: whatever was picked, fill it
    if ((pick -= mix.create) < 0) {
      create(slots++);
      return;
    }
    if ((pick -= mix.update) < 0) {
      const n = ++serial;
      queue.submit(slot, () =>
        andThen(target.get(namespace, name), (current) => {
          if (!current) throw new Error(`${namespace}/${name} is gone: nothing to update`);
          return target.update(withSerial(current, n), namespace, name);
        }),
      );
      counters.updated++;
    } else if ((pick -= mix.delete) < 0) {
      occupied.delete(slot);
      queue.submit(slot, () => target.delete(namespace, name));
      counters.deleted++;
    } else {
      queue.submit(slot, () => andThen(target.delete(namespace, name), () => writeNew(slot)));
      counters.recreated++;
    }
  };

  return {
    counters,
    /** Creates `count` pods (at once on a synchronous target; `settled()` tells when an asynchronous one took them). */
    seed(count: number): void {
      for (let i = 0; i < count; i++) create(slots++);
    },
    /**
     * Applies `ratePerSecond` changes per second (in ticks of at most 100 ms) until `count` changes
     * or `stop()`. On an asynchronous target, a tick skips its changes while `maxBacklog` wait.
     */
    churn(churnOptions: { ratePerSecond: number; count?: number; mix?: ChurnMix }): ChurnHandle {
      const mix = { create: 2, update: 5, delete: 2, recreate: 1, ...churnOptions.mix };
      const make = () => {
        if (queue.backlog >= maxBacklog) counters.skipped++;
        else change(mix);
      };
      return startChurn(make, scheduler, churnOptions, counters);
    },
    /** Resolves once every change made so far has been taken (or refused) by the target. */
    settled: (): Promise<void> => queue.settled(),
  };
}

/** Writes the pod of `slot` in `namespace`: as a cluster does for `unalike` pods (see `LoadGeneratorOptions.unalike`). */
function writePod(target: ChurnTarget, slot: number, namespace: string, unalike: boolean): unknown {
  const made = realisticPod(slot, { unalike });
  const pod = { ...made, metadata: { ...made.metadata, namespace } } as KubeObject & { status?: unknown };
  if (unalike && target.updateStatus) {
    // As on a cluster: the ReplicaSet controller creates the pod, the kubelet reports its status.
    const { status: _status, ...created } = pod;
    return andThen(target.create(created, namespace, 'kube-controller-manager'), () =>
      target.updateStatus!(pod, namespace, made.metadata!.name!, 'kubelet'),
    );
  }
  return target.create(pod, namespace);
}

/** The update the churn makes: the same object with its `loadgen/serial` annotation set to `serial`. */
function withSerial(current: KubeObject, serial: number): KubeObject {
  const meta = current.metadata!;
  return { ...current, metadata: { ...meta, annotations: { ...meta.annotations, 'loadgen/serial': String(serial) } } };
}

/** Calls `change` `ratePerSecond` times a second, in ticks of at most 100 ms, until `count` calls or `stop()`. */
function startChurn(
  change: () => void,
  scheduler: SchedulerLike,
  options: { ratePerSecond: number; count?: number },
  counters: LoadCounters,
): ChurnHandle {
  const tickMs = Math.max(1, Math.min(100, 1000 / options.ratePerSecond));
  const perTick = (options.ratePerSecond * tickMs) / 1000;
  let owed = 0;
  let done = 0;
  const limit = options.count ?? Infinity;
  const sub: Subscription = interval(tickMs, scheduler)
    .pipe(take(Number.isFinite(limit) ? Math.ceil(limit / perTick) + 1 : Infinity))
    .subscribe(() => {
      owed += perTick;
      while (owed >= 1 && done < limit) {
        change();
        owed--;
        done++;
      }
      if (done >= limit) sub?.unsubscribe();
    });
  return { counters, stop: () => sub?.unsubscribe() };
}

/** The simulator's object store as a churn target for one resource (default pods). */
export function objectStoreTarget(objects: ObjectStore, resource = 'pods'): ChurnTarget {
  return {
    create: (obj, namespace, fieldManager) => objects.create(resource, obj, namespace, fieldManager ? { fieldManager } : {}),
    updateStatus: (obj, namespace, name, fieldManager) =>
      objects.update(resource, obj, namespace, name, { subresource: 'status', fieldManager }),
    update: (obj, namespace, name) => objects.update(resource, obj, namespace, name),
    delete: (namespace, name) => objects.delete(resource, namespace, name, { gracePeriodSeconds: 0 }),
    get: (namespace, name) => objects.find(resource, namespace, name),
  };
}

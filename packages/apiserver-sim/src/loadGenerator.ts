/**
 * The load generator: seeds N realistic pods and churns them at a given rate — creates, updates,
 * deletes, and delete-then-recreate under the same name (a new UID) — deterministically from a seed.
 * Time runs on an RxJS scheduler, so tests drive it in virtual time.
 */
import { asyncScheduler, interval, take, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubeObject } from '@rxinformer/core';
import type { ObjectStore } from './objects.ts';
import { seededRandom } from './random.ts';
import { realisticPod } from './realisticPod.ts';

/** Where the load goes: the simulator's object store, or anything with these four calls. */
export interface ChurnTarget {
  /** Creates `obj` in `namespace`. */
  create(obj: KubeObject, namespace: string): unknown;
  /** Replaces the object `namespace/name` with `obj`. */
  update(obj: KubeObject, namespace: string, name: string): unknown;
  /** Deletes `namespace/name`. */
  delete(namespace: string, name: string): unknown;
  /** Reads `namespace/name`; undefined when absent. */
  get(namespace: string, name: string): KubeObject | undefined;
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
}

/** Counters of what the generator did. */
export interface LoadCounters {
  created: number;
  updated: number;
  deleted: number;
  recreated: number;
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
 * by the mix (an empty slot is filled instead).
 *
 * @example
 * const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), seed: 7 });
 * load.seed(2000);
 * const churn = load.churn({ ratePerSecond: 200 });
 */
export function createLoadGenerator(options: LoadGeneratorOptions) {
  const { target } = options;
  const namespaces = options.namespaces ?? ['default'];
  const rng = seededRandom(options.seed ?? 1);
  const random = () => rng.next();
  const scheduler = options.scheduler ?? asyncScheduler;
  const counters: LoadCounters = { created: 0, updated: 0, deleted: 0, recreated: 0 };
  let slots = 0;
  let serial = 0;
  const place = (slot: number) => ({ namespace: namespaces[slot % namespaces.length], name: realisticPod(slot).metadata!.name! });
  const create = (slot: number) => {
    const { namespace } = place(slot);
    const pod = realisticPod(slot);
    target.create({ ...pod, metadata: { ...pod.metadata, namespace } }, namespace);
    counters.created++;
  };

  /** One random change on a random slot. */
  const change = (mix: Required<ChurnMix>) => {
    const total = mix.create + mix.update + mix.delete + mix.recreate;
    let pick = random() * total;
    const slot = Math.floor(random() * Math.max(1, slots));
    const { namespace, name } = place(slot);
    const current = target.get(namespace, name);
    if (!current) {
      create(slot);
      return;
    } // an empty slot: whatever was picked, fill it
    if ((pick -= mix.create) < 0) {
      create(slots++);
      return;
    }
    if ((pick -= mix.update) < 0) {
      target.update(withSerial(current, ++serial), namespace, name);
      counters.updated++;
    } else if ((pick -= mix.delete) < 0) {
      target.delete(namespace, name);
      counters.deleted++;
    } else {
      target.delete(namespace, name);
      create(slot);
      counters.created--;
      counters.recreated++;
    }
  };

  return {
    counters,
    /** Creates `count` pods at once. */
    seed(count: number): void {
      for (let i = 0; i < count; i++) create(slots++);
    },
    /** Applies `ratePerSecond` changes per second (in ticks of at most 100 ms) until `count` changes or `stop()`. */
    churn(churnOptions: { ratePerSecond: number; count?: number; mix?: ChurnMix }): ChurnHandle {
      const mix = { create: 2, update: 5, delete: 2, recreate: 1, ...churnOptions.mix };
      return startChurn(() => change(mix), scheduler, churnOptions, counters);
    },
  };
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
    create: (obj, namespace) => objects.create(resource, obj, namespace),
    update: (obj, namespace, name) => objects.update(resource, obj, namespace, name),
    delete: (namespace, name) => objects.delete(resource, namespace, name, { gracePeriodSeconds: 0 }),
    get: (namespace, name) => objects.find(resource, namespace, name),
  };
}

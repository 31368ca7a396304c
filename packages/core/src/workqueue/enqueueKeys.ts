/**
 * The usual way to feed a work queue from an informer: an event handler that adds keys. A
 * handler, unlike `events$`, is first handed everything the cache holds, so a controller started
 * late (a new leader, a worker added at run time) still looks at every object. And `toKeys`, for
 * streams of deltas from their start.
 */
import { concatMap, type OperatorFunction } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import type { EventHandler } from '../informer/handlerTypes.ts';
import type { Delta, KubeObject } from '../types.ts';

/**
 * An event handler that adds keys to `queue`: by default each delta's own key (the informer's
 * `keyFunc`'s, so a custom one's keys reach the queue as the cache holds them), or the keys
 * `keysOf` maps an object to (say, its owner's), none for `undefined` or `[]`. On a deletion
 * `keysOf` gets the last known object, and is not called when none is known. Register it with
 * `addEventHandler`: it gets the cache's objects first (as adds), then every change, and resyncs
 * when the handler has a `resyncPeriodMs`.
 *
 * @example
 * pods.addEventHandler(enqueueKeys(queue));
 * pods.addEventHandler(enqueueKeys(queue, (pod) => ownerKey(pod)), { resyncPeriodMs: 600_000 });
 */
export function enqueueKeys<T extends KubeObject = KubeObject, K = string>(
  queue: { add(key: K): void },
  keysOf?: (obj: T) => K | readonly K[] | undefined,
): EventHandler<T> {
  if (queue === null || typeof queue !== 'object' || typeof queue.add !== 'function')
    throw new InvalidOptionsError('enqueueKeys needs a queue with add(key)');
  if (keysOf !== undefined && typeof keysOf !== 'function') throw new InvalidOptionsError('keysOf must be a function');
  const add = (keys: K | readonly K[] | undefined): void => {
    if (keys === undefined) return;
    if (Array.isArray(keys)) for (const k of keys as readonly K[]) queue.add(k);
    else queue.add(keys as K);
  };
  const of = (obj: T, key: string) => (keysOf === undefined ? (key as K) : keysOf(obj));
  return {
    onAdd: (obj, _initial, key) => add(of(obj, key)),
    onUpdate: (_old, obj, key) => add(of(obj, key)),
    onDelete: (deleted) => {
      if (keysOf === undefined) add(deleted.key as K);
      else if (deleted.lastKnown !== undefined) add(keysOf(deleted.lastKnown));
    },
  };
}

/**
 * Maps informer deltas to work queue keys — by default each delta's own key (tombstones
 * included: a deleted object's key is reconciled too). `keysOf` maps a delta to other keys (say,
 * the owner's) or to none (`undefined` or `[]`).
 *
 * Caveat: `events$` does not replay. Piped from it, this names only the changes after the
 * subscription: subscribed once the informer has listed (a controller started on becoming leader)
 * it never names the objects already cached. Subscribe before `start()`, or feed a queue with
 * `addEventHandler(enqueueKeys(queue))`, which is first handed the cache. `toKeys` fits streams of
 * deltas from the start: `events$` subscribed before `start()`, a `deliverTo` pipeline, tests.
 *
 * @example
 * pods.events$.pipe(toKeys()).subscribe((key) => queue.add(key));
 * pods.events$.pipe(toKeys((d) => ownerKey(objectOf(d)))).subscribe((key) => queue.add(key));
 */
export function toKeys<T extends KubeObject = KubeObject, K = string>(
  keysOf?: (delta: Delta<T>) => K | readonly K[] | undefined,
): OperatorFunction<Delta<T>, K> {
  const pick = keysOf ?? ((d: Delta<T>) => d.key as K);
  return concatMap((d: Delta<T>): readonly K[] => {
    const keys = pick(d);
    return keys === undefined ? [] : Array.isArray(keys) ? (keys as readonly K[]) : [keys as K];
  });
}

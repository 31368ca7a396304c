/**
 * The prepare stage: where each object the reflector lets in is transformed and frozen, once,
 * before the delta store sees it (as kube-rs's `Event::modify`). The shared informer hands its
 * `prepare` to the reflector, which runs it on every admitted object as it arrives: the items of
 * each list page (so an initial list's objects are frozen and share structure while young), the
 * objects of a streaming list and the watch's events alike. The delta store's reducer then only
 * keys, compares and stores.
 *
 * An object that cannot be prepared is reported as a value, never thrown past the stage: left out
 * of a `LIST` (its error in `invalid`), or carried raw by its event with the error in `invalid` (a
 * `DELETED` still removes its key).
 *
 * @example
 * const prepare = createPrepare<Wire<V1Pod>>({ transform: dropManagedFields });
 * reflector(lw, { prepare }).pipe(scan((s, e) => applyEvent(s.state, e), initialDeltaStep<Wire<V1Pod>>()));
 */
import { defer, map, type OperatorFunction } from 'rxjs';
import { freezeReusing } from './deepFreeze.ts';
import { InvalidObjectError, withCause } from '../errors.ts';
import type { KubeObject, ReflectorEvent } from '../types.ts';

/** Options of `createPrepare`. */
export interface PrepareOptions<T extends KubeObject> {
  /**
   * Runs on each decoded object before it is frozen and stored, e.g. to drop
   * `metadata.managedFields`. It receives the raw object and may mutate and return it.
   * Default: none.
   */
  transform?: (obj: T) => T;
  /**
   * `false` stores objects as decoded, unfrozen and unshared (no freeze walk), so a handler that
   * mutates an object it was given changes the cache (client-node's risk). Unshared objects keep
   * more alive, so it is not faster in general: measure. Default `true`.
   */
  freeze?: boolean;
}

/** One object prepared: transformed and frozen. Throws `InvalidObjectError` when it cannot be. */
export type Prepare<T extends KubeObject> = (raw: T) => T;

/**
 * The prepare function of one informer. Each object is frozen sharing the subtrees it has in
 * common with the object prepared just before it (pods of one ReplicaSet differ in a few fields;
 * that object is still in the CPU's cache, unlike the stored version of a key in a big store):
 * only the differing parts are frozen and kept alive, so the garbage collector copies far less.
 * That reference only changes which equal, frozen instances are shared, never what is stored.
 *
 * @example
 * const prepare = createPrepare<Wire<V1Pod>>({ transform: dropManagedFields });
 * const pod = prepare(raw); // frozen, without managedFields
 */
export function createPrepare<T extends KubeObject>(options: PrepareOptions<T> = {}): Prepare<T> {
  const { transform } = options;
  const freeze = options.freeze !== false;
  let reference: T | undefined;
  return (raw) => {
    if (raw === null || typeof raw !== 'object') throw new InvalidObjectError('object is not a JSON object', raw);
    let obj: T;
    try {
      obj = transform ? transform(raw) : raw;
      if (!freeze) return obj;
      obj = freezeReusing(obj, reference);
    } catch (cause) {
      throw cause instanceof InvalidObjectError ? cause : new InvalidObjectError(withCause('transform failed', cause), raw, { cause });
    }
    reference = obj;
    return obj;
  };
}

/**
 * `items` prepared, in a new array; those that cannot be prepared are left out and their errors
 * appended to `invalid`.
 */
export function prepareItems<T extends KubeObject>(prepare: Prepare<T>, items: readonly T[], invalid: InvalidObjectError[]): T[] {
  const prepared: T[] = [];
  for (const raw of items) {
    try {
      prepared.push(prepare(raw));
    } catch (error) {
      invalid.push(error as InvalidObjectError);
    }
  }
  return prepared;
}

/** A reflector event about one object. */
export type ObjectEvent<T extends KubeObject> = Extract<ReflectorEvent<T>, { object: T }>;

/** A watch event with its object prepared, or carrying the raw object and why in `invalid`. */
export function prepareObjectEvent<T extends KubeObject>(
  prepare: Prepare<T>,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  raw: T,
): ObjectEvent<T> {
  try {
    return { type, object: prepare(raw) };
  } catch (error) {
    return { type, object: raw, invalid: error as InvalidObjectError };
  }
}

/**
 * `event` with its objects prepared: a `LIST`'s items (those that cannot be prepared left out, in
 * `invalid`), an object event's object (or the raw object and why, in `invalid`).
 *
 * @example
 * const prepare = createPrepare<Wire<V1Pod>>();
 * const { state } = applyEvent(initialDeltaState<Wire<V1Pod>>(), prepareEvent(prepare, { type: 'LIST', items, resourceVersion: '1' }));
 */
export function prepareEvent<T extends KubeObject>(prepare: Prepare<T>, event: ReflectorEvent<T>): ReflectorEvent<T> {
  switch (event.type) {
    case 'LIST': {
      const invalid: InvalidObjectError[] = [...(event.invalid ?? [])];
      const items = prepareItems(prepare, event.items, invalid);
      return invalid.length > 0 ? { ...event, items, invalid } : { ...event, items };
    }
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return event.invalid ? event : prepareObjectEvent(prepare, event.type, event.object);
    default:
      return event;
  }
}

/**
 * The prepare stage as an operator, for the events of a reflector run without `prepare` (a list's
 * items are then prepared when the list completes, not page by page). One `createPrepare` per
 * subscription.
 *
 * @example
 * reflector(lw).pipe(prepareEvents({ freeze: false }), scan((s, e) => applyEvent(s.state, e), initialDeltaStep()));
 */
export function prepareEvents<T extends KubeObject>(
  options: PrepareOptions<T> = {},
): OperatorFunction<ReflectorEvent<T>, ReflectorEvent<T>> {
  return (source) =>
    defer(() => {
      const prepare = createPrepare(options);
      return source.pipe(map((event) => prepareEvent(prepare, event)));
    });
}

/**
 * A controller's sources: informer events turned into keys of the primary resource, filtered by
 * predicates, with a priority — low for the initial list (and a late handler's replay of the cache)
 * and for resyncs, normal for real changes (controller-runtime's priority queue). Each event's key
 * is the delta's, as the informer's cache holds the object: never recomputed here.
 */
import { RxInformerError, type HandlerRegistration, type KubeObject, type ResourceDescriptor, type SharedInformer } from '@rxinformer/core';
import { InvalidPathSegmentError, pathSegmentError } from '@rxinformer/core/http';
import { clusterKey, parseClusterKey } from '@rxinformer/core/multicluster';
import { passes, type Predicate } from './predicates.ts';

/** The priority of keys from the initial list and from resyncs (controller-runtime's `LowPriority`). */
export const LOW_PRIORITY = -100;

/** The priority of keys from real changes. */
export const NORMAL_PRIORITY = 0;

/** Where a source's keys go, with their priority. */
export type Enqueue = (key: string, priority: number) => void;

/** What a source maps one event to: keys of the primary resource (none: `undefined` or `[]`). */
export type SourceKeys = string | readonly string[] | undefined;

/**
 * A key of the primary resource a source could not give: an owner reference whose name is not one
 * path segment, or a key a mapper gave that names no object of the primary (`ns/.`, `ns/a/b`, a
 * namespaced primary's key without its namespace). Reported on the controller's `errors$` (and to
 * `onError`) with the key, never queued; the event's other keys are queued as usual.
 *
 * @example
 * ctl.start().errors$.subscribe(({ error }) => { if (error instanceof InvalidSourceKeyError) log.warn(error.message); });
 */
export class InvalidSourceKeyError extends RxInformerError {
  override readonly name: string = 'InvalidSourceKeyError';
  /** The source's name, e.g. `replicator/owns/configmaps`. */
  readonly source: string;
  /** The cache key of the object whose event it was. */
  readonly objectKey: string;
  /** The key refused; undefined when none was made (an owner reference's bad name). */
  readonly key: unknown;

  constructor(source: string, objectKey: string, key: unknown, cause: RxInformerError) {
    const what = key === undefined ? 'no key' : typeof key === 'string' ? `the key ${JSON.stringify(key)}` : `a key of type ${typeof key}`;
    super('InvalidSourceKey', `${source}: ${objectKey} gave ${what}, refused: ${cause.message}`, { cause });
    this.source = source;
    this.objectKey = objectKey;
    this.key = key;
  }
}

/** Tells of a key a source refused: what was wrong, and the key when one was made. */
export type RefuseKey = (error: RxInformerError, key?: unknown) => void;

/** One source of a controller: which informer, which events, which keys. */
export interface Source<T extends KubeObject> {
  /** The handler's name (for its metrics and errors). */
  readonly name: string;
  /** The resource it follows. */
  readonly resource: ResourceDescriptor<T>;
  /** The informer whose events it follows. */
  readonly informer: SharedInformer<T>;
  /** All must pass an event for it to count. */
  readonly predicates: readonly Predicate<T>[];
  /**
   * The keys of an event: `oldObj` undefined on an add, `newObj` undefined on a delete (then
   * `oldObj` is the last known state, if any); `key` is the object's own cache key, the delta's. A key it cannot
   * make goes to `refuse`.
   */
  readonly keysOf: (oldObj: T | undefined, newObj: T | undefined, key: string, refuse: RefuseKey) => SourceKeys;
  /**
   * Checks each key before it is queued (the error refusing it, or undefined); undefined: the keys
   * are the objects' own (the primary's), queued unchecked.
   */
  readonly checkKey?: (key: unknown) => RxInformerError | undefined;
}

/**
 * The check of keys of a primary resource: `namespace/name` for a namespaced one, `name` for a
 * cluster-scoped one, each part one path segment (`InvalidPathSegmentError` otherwise); after
 * `cluster://NAME/` in a multi-cluster controller.
 */
export function primaryKeyCheck(
  primary: Pick<ResourceDescriptor, 'namespaced' | 'resource'>,
): (key: unknown) => RxInformerError | undefined {
  const check = objectKeyCheck(primary);
  return (key) => check(typeof key === 'string' ? (parseClusterKey(key)?.key ?? key) : key);
}

/** `primaryKeyCheck` of a key without its cluster. */
function objectKeyCheck(primary: Pick<ResourceDescriptor, 'namespaced' | 'resource'>): (key: unknown) => RxInformerError | undefined {
  if (!primary.namespaced) return (key) => pathSegmentError('name', key);
  return (key) => {
    if (typeof key !== 'string') return pathSegmentError('key', key);
    const slash = key.indexOf('/');
    if (slash < 0) return new InvalidPathSegmentError('key', key, [`a key of ${primary.resource} (namespaced) is namespace/name`]);
    return pathSegmentError('namespace', key.slice(0, slash)) ?? pathSegmentError('name', key.slice(slash + 1));
  };
}

/** A resync or an unchanged relist: the same instance twice, or the same resource version. */
function isResync(oldObj: KubeObject, newObj: KubeObject): boolean {
  const rv = newObj?.metadata?.resourceVersion;
  return oldObj === newObj || (rv !== undefined && oldObj?.metadata?.resourceVersion === rv);
}

/**
 * The keys of an event of a multi-cluster view (`eventKey` is `cluster://NAME/…`) in its cluster:
 * a key a source gave without a cluster is the event's cluster's; one with a cluster is kept.
 */
function inClusterOf(eventKey: string, keys: SourceKeys): SourceKeys {
  const cluster = keys === undefined ? undefined : parseClusterKey(eventKey)?.cluster;
  if (cluster === undefined) return keys;
  const place = (k: string) => (typeof k === 'string' && parseClusterKey(k) === undefined ? clusterKey(cluster, k) : k);
  return typeof keys === 'string' ? place(keys) : keys!.map(place);
}

/** Calls `enqueue` with each key of `keys`. */
function each(keys: SourceKeys, priority: number, enqueue: Enqueue): void {
  if (keys === undefined) return;
  if (typeof keys === 'string') enqueue(keys, priority);
  else for (const key of keys) enqueue(key, priority);
}

/** `enqueue` for the keys that pass `check`; the others go to `refuse`. */
function checked(enqueue: Enqueue, check: (key: unknown) => RxInformerError | undefined, refuse: RefuseKey): Enqueue {
  return (key, priority) => {
    const error = check(key);
    if (error === undefined) enqueue(key, priority);
    else refuse(error, key);
  };
}

/** Sees each event of an informer before the predicates: its key, new state (undefined: deleted). */
export type Observe = (key: string, state: KubeObject | undefined, lastKnown?: KubeObject) => void;

/** Tells of a key refused: the source, the key of the object whose event it was, the error. */
export type ReportKey = (error: InvalidSourceKeyError) => void;

/**
 * Registers `source`'s handler on its informer (which replays its cache to it first: a controller
 * started late on warm caches sees every cached object); its keys go to `enqueue` (those its
 * `checkKey` refuses to `report`), each event first to `observe` when given.
 */
export function attachSource<T extends KubeObject>(
  source: Source<T>,
  enqueueKey: Enqueue,
  report: ReportKey,
  observe?: Observe,
): HandlerRegistration {
  let objectKey = '';
  const refuse: RefuseKey = (error, key) => report(new InvalidSourceKeyError(source.name, objectKey, key, error));
  const enqueue = source.checkKey === undefined ? enqueueKey : checked(enqueueKey, source.checkKey, refuse);
  const keysOf = (oldObj: T | undefined, newObj: T | undefined, key: string): SourceKeys => {
    objectKey = key;
    return inClusterOf(key, source.keysOf(oldObj, newObj, key, refuse));
  };
  // With no predicates every event passes: skip building their argument lists per event.
  const predicates = source.predicates.length === 0 ? undefined : source.predicates;
  return source.informer.addEventHandler(
    {
      onAdd: (obj, isInInitialList, key) => {
        observe?.(key, obj);
        if (predicates === undefined || passes(predicates, 'add', obj))
          each(keysOf(undefined, obj, key), isInInitialList ? LOW_PRIORITY : NORMAL_PRIORITY, enqueue);
      },
      onUpdate: (oldObj, newObj, key) => {
        observe?.(key, newObj);
        if (predicates !== undefined && !passes(predicates, 'update', oldObj, newObj)) return;
        const priority = isResync(oldObj, newObj) ? LOW_PRIORITY : NORMAL_PRIORITY;
        each(keysOf(oldObj, newObj, key), priority, enqueue);
      },
      onDelete: ({ key, lastKnown }) => {
        observe?.(key, undefined, lastKnown);
        if (lastKnown === undefined || predicates === undefined || passes(predicates, 'delete', lastKnown))
          each(keysOf(lastKnown, undefined, key), NORMAL_PRIORITY, enqueue);
      },
    },
    { name: source.name },
  );
}

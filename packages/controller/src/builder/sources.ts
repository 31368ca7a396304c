/**
 * A controller's sources: informer events turned into keys of the primary resource, filtered by
 * predicates, with a priority — low for the initial list (and a late handler's replay of the cache)
 * and for resyncs, normal for real changes (controller-runtime's priority queue). Each event's key
 * is the delta's, as the informer's cache holds the object: never recomputed here.
 */
import type { HandlerRegistration, KubeObject, ResourceDescriptor, SharedInformer } from '@rxinformer/core';
import { passes, type Predicate } from './predicates.ts';

/** The priority of keys from the initial list and from resyncs (controller-runtime's `LowPriority`). */
export const LOW_PRIORITY = -100;

/** The priority of keys from real changes. */
export const NORMAL_PRIORITY = 0;

/** Where a source's keys go, with their priority. */
export type Enqueue = (key: string, priority: number) => void;

/** What a source maps one event to: keys of the primary resource (none: `undefined` or `[]`). */
export type SourceKeys = string | readonly string[] | undefined;

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
   * `oldObj` is the last known state, if any); `key` is the object's own cache key, the delta's.
   */
  readonly keysOf: (oldObj: T | undefined, newObj: T | undefined, key: string) => SourceKeys;
}

/** A resync or an unchanged relist: the same instance twice, or the same resource version. */
function isResync(oldObj: KubeObject, newObj: KubeObject): boolean {
  const rv = newObj?.metadata?.resourceVersion;
  return oldObj === newObj || (rv !== undefined && oldObj?.metadata?.resourceVersion === rv);
}

/** Calls `enqueue` with each key of `keys`. */
function each(keys: SourceKeys, priority: number, enqueue: Enqueue): void {
  if (keys === undefined) return;
  if (typeof keys === 'string') enqueue(keys, priority);
  else for (const key of keys) enqueue(key, priority);
}

/** Sees each event of an informer before the predicates: its key, new state (undefined: deleted). */
export type Observe = (key: string, state: KubeObject | undefined, lastKnown?: KubeObject) => void;

/**
 * Registers `source`'s handler on its informer (which replays its cache to it first: a controller
 * started late on warm caches sees every cached object); its keys go to `enqueue`, each event
 * first to `observe` when given.
 */
export function attachSource<T extends KubeObject>(source: Source<T>, enqueue: Enqueue, observe?: Observe): HandlerRegistration {
  const { keysOf } = source;
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

/**
 * Event filters of a controller's sources, with controller-runtime's semantics: a predicate may
 * judge adds, updates and deletes; what it does not judge passes. The built-in ones judge updates
 * only (adds and deletes always pass); `and`, `or` and `not` combine them per kind of event, so
 * `not(generationChanged)` also refuses every add and delete, as controller-runtime's `Not` does.
 */
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';

/** A filter of one source's events; a missing callback lets its kind of event pass. */
export interface Predicate<T extends KubeObject = KubeObject> {
  /** An object appeared (also each object of the initial list, and of a late start's replay). */
  add?: (obj: T) => boolean;
  /** An object changed; on a resync `oldObj === newObj`. */
  update?: (oldObj: T, newObj: T) => boolean;
  /** An object went away; `obj` is its last known state. */
  delete?: (obj: T) => boolean;
}

/** An update predicate comparing one part of the old and the new object. */
function changed(part: (obj: KubeObject) => unknown, same: (a: unknown, b: unknown) => boolean): Predicate {
  return Object.freeze({ update: (oldObj: KubeObject, newObj: KubeObject) => !same(part(oldObj), part(newObj)) });
}

/** Equal string maps (labels, annotations); an absent map equals an empty one. */
function sameStringMap(a: unknown, b: unknown): boolean {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && x[k] === y[k]);
}

/**
 * Updates that changed `metadata.generation` (the spec, for most resources; status-only and
 * metadata-only writes do not bump it). Resyncs never pass.
 */
export const generationChanged: Predicate = changed((o) => o?.metadata?.generation, Object.is);

/** Updates that changed `metadata.labels`. */
export const labelsChanged: Predicate = changed((o) => o?.metadata?.labels, sameStringMap);

/** Updates that changed `metadata.annotations`. */
export const annotationsChanged: Predicate = changed((o) => o?.metadata?.annotations, sameStringMap);

/** Updates that changed `metadata.resourceVersion`: every real change, no resync. */
export const resourceVersionChanged: Predicate = changed((o) => o?.metadata?.resourceVersion, Object.is);

type Kind = keyof Predicate;
const KINDS: readonly Kind[] = ['add', 'update', 'delete'];

/** `p`'s verdict on one kind of event, true when it does not judge that kind. */
function verdict<T extends KubeObject>(p: Predicate<T>, kind: Kind, args: T[]): boolean {
  const judge = p[kind] as ((...a: T[]) => boolean) | undefined;
  return judge === undefined || judge(...args) === true;
}

/** Throws `InvalidOptionsError` unless every one of `predicates` is a predicate. */
export function checkPredicates<T extends KubeObject>(predicates: readonly Predicate<T>[], where: string): readonly Predicate<T>[] {
  if (!Array.isArray(predicates as unknown)) throw new InvalidOptionsError(`${where}: predicates must be an array`);
  for (const p of predicates as readonly (Predicate<T> | null)[]) {
    const ok = p !== null && typeof p === 'object' && KINDS.every((k) => p[k] === undefined || typeof p[k] === 'function');
    if (!ok) throw new InvalidOptionsError(`${where}: a predicate must be an object of add/update/delete functions`);
  }
  return predicates;
}

/** Combines per kind of event with `every` or `some`. */
function combine<T extends KubeObject>(predicates: readonly Predicate<T>[], all: boolean, name: string): Predicate<T> {
  checkPredicates(predicates, name);
  const on =
    (kind: Kind) =>
    (...args: T[]): boolean =>
      all ? predicates.every((p) => verdict(p, kind, args)) : predicates.some((p) => verdict(p, kind, args));
  return Object.freeze({ add: on('add'), update: on('update'), delete: on('delete') });
}

/** Passes an event when every one of `predicates` passes it (none: everything passes). */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, true, 'and');
}

/** Passes an event when one of `predicates` passes it (none: nothing passes). */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, false, 'or');
}

/** Passes the events `predicate` refuses, of every kind (adds and deletes it does not judge are refused). */
export function not<T extends KubeObject>(predicate: Predicate<T>): Predicate<T> {
  checkPredicates([predicate], 'not');
  const on =
    (kind: Kind) =>
    (...args: T[]): boolean =>
      !verdict(predicate, kind, args);
  return Object.freeze({ add: on('add'), update: on('update'), delete: on('delete') });
}

/** True when every one of `predicates` passes an event of `kind` with `args`. */
export function passes<T extends KubeObject>(predicates: readonly Predicate<T>[], kind: Kind, ...args: T[]): boolean {
  return predicates.every((p) => verdict(p, kind, args));
}

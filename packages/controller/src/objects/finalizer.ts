/**
 * kube-rs's `finalizer` helper: reconcile an object through a finalizer of ours, so that its
 * deletion waits for our cleanup. The finalizer is added before `apply` first runs, and removed
 * once `cleanup` succeeded; both writes are JSON Patches on condition of the object's resourceVersion.
 */
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';
import type { JsonPatchOperation } from '../client/jsonPatch.ts';
import { guardedOperations } from '../client/jsonPatch.ts';
import { refOf, type ResourceApi } from '../client/resourceApi.ts';

/** What `finalizer` runs: `apply` while the object lives, `cleanup` once its deletion was asked. */
export interface FinalizerHandlers<T extends KubeObject, R> {
  /** Brings the world in line with `obj` (which carries our finalizer). */
  apply(obj: T): Promise<R> | R;
  /** Undoes what `apply` did; the finalizer is removed once it resolves. */
  cleanup(obj: T): Promise<R> | R;
}

/** A handler of `finalizer` ran. */
export interface FinalizerRan<T, R> {
  /** Which one. */
  event: 'apply' | 'cleanup';
  /** What it returned. */
  result: R;
  /** The object as last written (with the finalizer added, or removed), or `obj` when nothing was written. */
  object: T;
}

/** Nothing ran: the object is being deleted and does not carry our finalizer. */
export interface FinalizerSkipped<T> {
  /** `none`. */
  event: 'none';
  /** The object given. */
  object: T;
}

/** What `finalizer` did. */
export type FinalizerOutcome<T, R> = FinalizerRan<T, R> | FinalizerSkipped<T>;

/**
 * Runs `apply` or `cleanup` for `obj` under the finalizer `name`:
 *
 * - live, without the finalizer: adds it, then `apply` on the patched object;
 * - live, with it: `apply`;
 * - being deleted, with it: `cleanup`, then removes the finalizer (the server then deletes it);
 * - being deleted, without it: nothing.
 *
 * A 409 Conflict from either patch means `obj` is stale: the next reconcile sees the new version.
 *
 * @example
 * await finalizer(cms, 'example.com/cleanup', cm, { apply: (o) => mirror(o), cleanup: (o) => unmirror(o) });
 */
export async function finalizer<T extends KubeObject, R>(
  api: ResourceApi<T>,
  name: string,
  obj: T,
  handlers: FinalizerHandlers<T, R>,
): Promise<FinalizerOutcome<T, R>> {
  if (typeof name !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(name))
    throw new InvalidOptionsError(`a finalizer name is qualified, as "example.com/cleanup": got ${JSON.stringify(name)}`);
  const finalizers = obj.metadata?.finalizers ?? [];
  const at = finalizers.indexOf(name);
  if (obj.metadata?.deletionTimestamp) {
    if (at < 0) return { event: 'none', object: obj };
    const result = await handlers.cleanup(obj);
    // Removed where it is: the resourceVersion precondition makes sure the list is the one read.
    const ops: JsonPatchOperation[] = [{ op: 'remove', path: `/metadata/finalizers/${at}` }];
    const object = await api.jsonPatch(refOf(obj), guardedOperations(obj, ops));
    return { event: 'cleanup', result, object };
  }
  let object = obj;
  if (at < 0) {
    const add: JsonPatchOperation =
      obj.metadata?.finalizers === undefined
        ? { op: 'add', path: '/metadata/finalizers', value: [name] }
        : { op: 'add', path: '/metadata/finalizers/-', value: name };
    object = await api.jsonPatch(refOf(obj), guardedOperations(obj, [add]));
  }
  return { event: 'apply', result: await handlers.apply(object), object };
}

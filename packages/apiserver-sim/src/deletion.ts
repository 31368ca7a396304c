/**
 * Deleting objects as the API server does: preconditions, graceful deletion of pods (marked with a
 * `deletionTimestamp`, removed when the grace period ends), finalizers holding a marked object
 * until the update that removes the last one, the cascade of a CRD's custom resources, and a
 * namespace's lifecycle: its DELETE marks it Terminating, then a simulated namespace controller
 * deletes its contents and, once nothing is left, the namespace.
 */
import type { KubeObject } from '@rxinformer/core';
import { atNextRevision, NAMESPACES_KEY, timestamp, type Obj } from './objectMeta.ts';
import { CRD_KEY, gvrKey, resourcesOfCrd, type ResourceInfo } from './resources.ts';
import { errors } from './status.ts';
import { objectKey } from './storage.ts';
import type { DeleteOptions, WriteContext } from './writeContext.ts';

/**
 * Deletes an object (`ObjectStore.delete`). With finalizers, or a grace period, it is first marked
 * (`deletionTimestamp`, MODIFIED) and removed later. Returns the object's last state.
 */
export function deleteObject(
  ctx: WriteContext,
  res: ResourceInfo,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
): KubeObject {
  const ns = res.namespaced ? namespace : undefined;
  const current = currentFor(ctx, res, ns, name, options);
  const gvr = gvrKey(res);
  const key = objectKey(ns, name);
  if (gvr === NAMESPACES_KEY) {
    const terminating = terminateNamespace(ctx, res, key, current, options.dryRun?.includes('All') === true);
    if (terminating) return terminating;
  }
  if (options.dryRun?.includes('All')) return current;
  const finalizers = (current.metadata!.finalizers as string[] | undefined) ?? [];
  const grace = res.resource === 'pods' && res.group === '' ? (options.gracePeriodSeconds ?? ctx.podGraceSeconds) : 0;
  if (current.metadata!.deletionTimestamp !== undefined) {
    if (finalizers.length > 0 || grace > 0) return current;
  }
  if (finalizers.length > 0 || grace > 0) return markDeleted(ctx, res, gvr, key, current, grace);
  return removeNow(ctx, res, gvr, key, current);
}

/** The stored object a delete removes: 404 when absent, 409 when a precondition fails, 422 for a bad grace period. */
function currentFor(ctx: WriteContext, res: ResourceInfo, ns: string | undefined, name: string, options: DeleteOptions): Obj {
  const target = { resource: res.resource, group: res.group, name };
  const current = ctx.storage.get(gvrKey(res), objectKey(ns, name)) as Obj | undefined;
  if (!current) throw errors.notFound(target);
  const pre = options.preconditions ?? {};
  // the storage layer's precondition errors name the kind, not the resource
  const byKind = { ...target, resource: res.kind };
  if (pre.uid !== undefined && pre.uid !== current.metadata!.uid) {
    throw errors.conflict(
      byKind,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${current.metadata!.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata!.resourceVersion) {
    throw errors.conflict(
      byKind,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${current.metadata!.resourceVersion}). The object might have been modified`,
    );
  }
  if (options.gracePeriodSeconds !== undefined && (!Number.isInteger(options.gracePeriodSeconds) || options.gracePeriodSeconds < 0)) {
    throw errors.invalid(
      'DeleteOptions',
      '',
      [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be >= 0', field: 'gracePeriodSeconds' }],
      'meta.k8s.io',
    );
  }
  return current;
}

/**
 * Marks an object deleted (`deletionTimestamp`, MODIFIED) while finalizers or a grace period hold
 * it; when the grace period ends it goes, or (finalizers still there) only its grace is zeroed.
 */
function markDeleted(ctx: WriteContext, res: ResourceInfo, gvr: string, key: string, current: Obj, grace: number): KubeObject {
  const marked = atNextRevision(ctx.storage, current, {
    deletionTimestamp: timestamp(Date.now() + grace * 1000),
    deletionGracePeriodSeconds: grace,
  });
  ctx.storage.commit(gvr, 'MODIFIED', key, marked);
  if (grace > 0) {
    ctx.later(grace * ctx.graceMsPerSecond, () => {
      const now = ctx.storage.get(gvr, key) as Obj | undefined;
      if (!now || now.metadata?.uid !== current.metadata!.uid) return;
      const fins = (now.metadata!.finalizers as string[] | undefined) ?? [];
      if (fins.length === 0) removeNow(ctx, res, gvr, key, now);
      // the kubelet's final delete (grace 0) only marks an object finalizers still hold
      else ctx.storage.commit(gvr, 'MODIFIED', key, atNextRevision(ctx.storage, now, { deletionGracePeriodSeconds: 0 }));
    });
  }
  return marked;
}

/** Removes an object at once (DELETED carrying its last state); a CRD takes its custom resources and their resource along. */
export function removeNow(ctx: WriteContext, res: ResourceInfo, gvr: string, key: string, current: Obj): KubeObject {
  if (gvr === CRD_KEY) deleteCustomResources(ctx, current);
  const last = atNextRevision(ctx.storage, current);
  ctx.storage.commit(gvr, 'DELETED', key, last);
  if (gvrKey(res) === CRD_KEY) for (const r of resourcesOfCrd(last)) ctx.registry.remove(gvrKey(r));
  return last;
}

function deleteCustomResources(ctx: WriteContext, crd: Obj): void {
  for (const r of resourcesOfCrd(crd)) {
    const gvr = gvrKey(r);
    for (const o of [...ctx.storage.values(gvr)]) {
      const last = atNextRevision(ctx.storage, o as Obj);
      ctx.storage.commit(gvr, 'DELETED', objectKey(o.metadata?.namespace, o.metadata!.name as string), last);
    }
  }
}

/**
 * The namespace's own DELETE: the first one marks it Terminating (deletionTimestamp and
 * status.phase, a MODIFIED) and schedules the namespace controller; a later one, while
 * spec.finalizers remain, is a 409. Returns undefined when the generic deletion applies.
 */
function terminateNamespace(ctx: WriteContext, res: ResourceInfo, key: string, current: Obj, dryRun: boolean): KubeObject | undefined {
  const name = current.metadata!.name as string;
  if (current.metadata!.deletionTimestamp === undefined) {
    const marked: Obj = {
      ...atNextRevision(ctx.storage, current, { deletionTimestamp: timestamp() }),
      status: { ...current.status, phase: 'Terminating' },
    };
    if (dryRun) return marked;
    ctx.storage.commit(NAMESPACES_KEY, 'MODIFIED', key, marked);
    ctx.later(ctx.namespaceDeletionDelayMs, () => namespaceController(ctx, res, name, current.metadata!.uid as string));
    return marked;
  }
  if (specFinalizers(current).length > 0) {
    throw errors.conflict(
      { resource: 'namespaces', group: '', name },
      'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
    );
  }
  return undefined;
}

/**
 * One pass of the simulated namespace controller over a terminating namespace: deletes its
 * contents (graceful pods and finalizers are honoured), and once nothing is left removes its
 * `kubernetes` finalizer, which deletes the namespace when no other finalizer holds it. With
 * contents left, it tries again one simulated second later.
 */
function namespaceController(ctx: WriteContext, namespaces: ResourceInfo, ns: string, uid: string): void {
  const key = objectKey(undefined, ns);
  const current = ctx.storage.get(NAMESPACES_KEY, key) as Obj | undefined;
  if (!current || current.metadata?.uid !== uid) return;
  let left = 0;
  for (const r of ctx.registry.all()) {
    if (!r.namespaced) continue;
    for (const o of [...ctx.storage.values(gvrKey(r))]) {
      if (o.metadata?.namespace !== ns) continue;
      if (ctx.storage.get(gvrKey(r), objectKey(ns, o.metadata.name as string)) !== o) continue;
      left += deleteObject(ctx, r, ns, o.metadata.name as string, {}).metadata?.deletionTimestamp !== undefined ? 1 : 0;
    }
  }
  if (left > 0) {
    ctx.later(ctx.graceMsPerSecond, () => namespaceController(ctx, namespaces, ns, uid));
    return;
  }
  const fins = specFinalizers(current);
  const finalized: Obj = { ...current, spec: { ...(current.spec as object), finalizers: fins.filter((f) => f !== 'kubernetes') } };
  if (deletesDuringUpdate(NAMESPACES_KEY, current, finalized)) {
    removeNow(ctx, namespaces, NAMESPACES_KEY, key, current);
    return;
  }
  if (fins.includes('kubernetes')) ctx.storage.commit(NAMESPACES_KEY, 'MODIFIED', key, atNextRevision(ctx.storage, finalized));
}

/** A namespace's `spec.finalizers`. */
function specFinalizers(ns: Obj): string[] {
  return (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
}

/**
 * Whether an update deletes the object instead (the API server's rule): the new state has no
 * finalizers and the stored one is being deleted with no grace period left (0 or none).
 */
export function deletesDuringUpdate(gvr: string, current: Obj, next: Obj): boolean {
  const fins = next.metadata?.finalizers as string[] | undefined;
  if (fins !== undefined && fins.length > 0) return false;
  // a namespace also waits for its spec.finalizers
  if (gvr === NAMESPACES_KEY && specFinalizers(next).length > 0) return false;
  const cur = current.metadata!;
  return cur.deletionTimestamp !== undefined && ((cur.deletionGracePeriodSeconds as number | undefined) ?? 0) === 0;
}

/**
 * Replacing an object (PUT, and the write behind every PATCH) as the API server does: optimistic
 * concurrency on `metadata.resourceVersion` and `uid`, the metadata the server keeps (uid,
 * creationTimestamp, deletion marks, generation bumped by a spec change), the status subresource
 * split, managedFields of an Update or an Apply, no revision for a no-op, and the update that
 * removes the last finalizer of an object being deleted deleting it.
 */
import type { KubeObject, ObjectMeta } from '@rxinformer/core';
import { deletesDuringUpdate, removeNow } from './deletion.ts';
import { jsonEqual } from './json.ts';
import { sameOwnership, withManagedFields, type ManagedFieldsEntry } from './managedFields.ts';
import { checkObjectKey } from './objectKeys.ts';
import { checkNamespace, hasGeneration, timestamp, writeInput, type Obj } from './objectMeta.ts';
import { CRD_KEY, gvrKey, groupVersion, resourcesOfCrd, type ResourceInfo } from './resources.ts';
import { errors } from './status.ts';
import { objectKey } from './storage.ts';
import { withUpdatedFields } from './updateOwnership.ts';
import type { WriteContext, WriteOptions } from './writeContext.ts';

/**
 * Replaces an object (`ObjectStore.update`). A `metadata.resourceVersion` that is not the current
 * one → 409 Conflict; none → unconditional update. A no-op update keeps the revision and emits nothing.
 */
export function updateObject(
  ctx: WriteContext,
  res: ResourceInfo,
  input: KubeObject,
  namespace: string | undefined,
  name: string,
  options: WriteOptions,
): KubeObject {
  const { obj, meta } = writeInput(res, input, options);
  if (meta.name !== undefined && meta.name !== name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
  checkObjectKey(res, namespace, name);
  const ns = checkNamespace(res, meta, namespace);
  const current = currentFor(ctx, res, meta, ns, name);
  const cur = current.metadata!;
  const next = nextState(res, obj, meta, current, ns, name, options);
  const m = next.metadata!;
  const unchanged = sameIgnoringVolatile(next, current);
  // an apply that changes nothing but who owns what still writes its managedFields
  if (unchanged && options.operation !== 'Apply') return current;
  if (cur.generation !== undefined && !jsonEqual(next.spec, current.spec)) m.generation = (cur.generation as number) + 1;
  if (m.generation === undefined && hasGeneration(res) && !jsonEqual(next.spec, current.spec)) m.generation = 1;
  const now = timestamp();
  const base = options.managedFields ?? (cur.managedFields as ManagedFieldsEntry[] | undefined);
  const manager = options.fieldManager ?? 'unknown';
  // an apply owns its applied configuration (stamped only when it changed the object); a plain
  // update owns what it changed
  m.managedFields =
    options.operation === 'Apply'
      ? withManagedFields(base, options.applied ?? next, manager, 'Apply', unchanged ? undefined : now, options.subresource)
      : withUpdatedFields(base, current, next, manager, now, options.subresource);
  if (unchanged && sameOwnership(m.managedFields as ManagedFieldsEntry[], cur.managedFields as ManagedFieldsEntry[] | undefined))
    return current;
  const gvr = gvrKey(res);
  const key = objectKey(ns, name);
  if (deletesDuringUpdate(gvr, current, next)) {
    // the last finalizer is gone: the update is not stored, the object is deleted instead (its
    // DELETED event carries the stored state); the client gets the object it sent, as updated
    if (!options.dryRun) removeNow(ctx, res, gvr, key, current);
    return next;
  }
  m.resourceVersion = String(ctx.storage.nextRevision());
  if (options.dryRun) return next;
  ctx.storage.commit(gvr, 'MODIFIED', key, next);
  if (gvr === CRD_KEY) for (const r of resourcesOfCrd(next)) ctx.registry.add(r);
  return next;
}

/** The stored object an update replaces: 404 when absent, 409 when the body's resourceVersion or uid is not its. */
function currentFor(ctx: WriteContext, res: ResourceInfo, meta: ObjectMeta, ns: string | undefined, name: string): Obj {
  const target = { resource: res.resource, group: res.group, name };
  const current = ctx.storage.get(gvrKey(res), objectKey(ns, name)) as Obj | undefined;
  if (!current) throw errors.notFound(target);
  const rv = meta.resourceVersion;
  // a resourceVersion that is not a number fails in the storage layer: a 500 without a reason
  if (rv !== undefined && rv !== '' && !/^\d+$/.test(rv))
    throw errors.unclassified(`strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  if (rv !== undefined && rv !== '' && rv !== current.metadata!.resourceVersion) throw errors.conflict(target);
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== current.metadata!.uid) {
    throw errors.conflict(target, `Precondition failed: UID in precondition: ${current.metadata!.uid}, UID in object meta: ${meta.uid}`);
  }
  return current;
}

/**
 * The state an update writes, before generation and managedFields: the body (or only its status,
 * through the status subresource; never its status, through the main resource of a kind with a
 * status subresource) with the metadata the server keeps from the current object.
 */
function nextState(
  res: ResourceInfo,
  obj: Obj,
  meta: ObjectMeta,
  current: Obj,
  ns: string | undefined,
  name: string,
  options: WriteOptions,
): Obj {
  const cur = current.metadata!;
  let next: Obj;
  if (options.subresource === 'status') {
    next = { ...current, status: obj.status };
  } else {
    next = {
      ...obj,
      apiVersion: groupVersion(res),
      kind: res.kind,
      metadata: { ...meta, name, ...(ns !== undefined ? { namespace: ns } : {}) },
    };
    if (res.subresources.includes('status')) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
  }
  const m = next.metadata!;
  m.uid = cur.uid;
  m.creationTimestamp = cur.creationTimestamp;
  if (cur.deletionTimestamp !== undefined) m.deletionTimestamp = cur.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (cur.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = cur.deletionGracePeriodSeconds;
  if (cur.generateName !== undefined && m.generateName === undefined) m.generateName = cur.generateName;
  if (cur.generation !== undefined) m.generation = cur.generation;
  if (res.resource === 'namespaces' && options.subresource !== 'status') {
    m.labels = { ...m.labels, 'kubernetes.io/metadata.name': name };
  }
  m.managedFields = cur.managedFields;
  m.resourceVersion = cur.resourceVersion;
  return next;
}

/** Whether two objects are equal apart from the fields a write does not compare (resourceVersion, managedFields). */
function sameIgnoringVolatile(a: Obj, b: Obj): boolean {
  for (const k in a) if (k !== 'metadata' && a[k] !== undefined && !jsonEqual(a[k], b[k])) return false;
  for (const k in b) if (k !== 'metadata' && b[k] !== undefined && a[k] === undefined) return false;
  const am = (a.metadata ?? {}) as Record<string, unknown>;
  const bm = (b.metadata ?? {}) as Record<string, unknown>;
  const volatile = (k: string) => k === 'resourceVersion' || k === 'managedFields';
  for (const k in am) if (!volatile(k) && am[k] !== undefined && !jsonEqual(am[k], bm[k])) return false;
  for (const k in bm) if (!volatile(k) && bm[k] !== undefined && am[k] === undefined) return false;
  return true;
}

/**
 * Server-side apply on the object store: an applied configuration creates a missing object, or is
 * merged into the current one after the field-ownership checks (409 Conflict for fields another
 * manager owns unless forced, which hands them over; the fields the manager stopped applying are
 * removed unless someone else owns them) and written as an `Apply`.
 */
import type { KubeObject } from '@rxinformer/core';
import { applyConflictError, findApplyConflicts, releaseFields } from './applyConflicts.ts';
import { pruneDroppedFields } from './applyPrune.ts';
import { applyMergePatch } from './jsonPatch.ts';
import type { ManagedFieldsEntry } from './managedFields.ts';
import type { ObjectStore } from './objects.ts';
import type { ResourceInfo } from './resources.ts';
import { errors } from './status.ts';
import { mergeAppliedConfiguration } from './strategicMerge.ts';
import type { WriteOptions } from './writeContext.ts';

/**
 * Applies `applied` (the parsed body of an apply patch) as `options.fieldManager`. Returns the
 * stored object and whether it was created (never through a subresource: a missing object is a
 * 404 there). Throws `ApiStatusError`: 400 for a body that is not an object or a missing field
 * manager, 409 Conflict when the apply would change fields another manager owns (for an apply to
 * the `status` subresource, status fields such as those a kubelet's status updates own) unless
 * `force`, 409/422 from the write; `PatchError` when the configuration cannot merge.
 */
export function serverSideApply(
  objects: ObjectStore,
  res: ResourceInfo,
  namespace: string | undefined,
  name: string,
  applied: unknown,
  options: WriteOptions & { force?: boolean },
): { object: KubeObject; created: boolean } {
  const { force: _force, ...write } = options;
  if (!applied || typeof applied !== 'object' || Array.isArray(applied))
    throw errors.badRequest('an apply patch must be a JSON or YAML object');
  if (!options.fieldManager) throw errors.badRequest('fieldManager is required for apply requests');
  const patch = applied as KubeObject;
  const current = objects.find(res, namespace, name);
  if (!current) {
    // a subresource exists only with its object: applying to it never creates one
    if (options.subresource !== undefined) throw errors.notFound({ resource: res.resource, group: res.group, name });
    const object = objects.create(res, { ...patch, metadata: { ...patch.metadata, name } }, namespace, {
      ...write,
      operation: 'Apply',
      applied: patch,
    });
    return { object, created: true };
  }
  const conflicts = findApplyConflicts(current, patch, options.fieldManager, options.subresource);
  if (conflicts.length > 0 && !options.force) throw applyConflictError(conflicts);
  const entries = (current.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  if (conflicts.length > 0) write.managedFields = releaseFields(entries, conflicts);
  const merged = res.custom ? applyMergePatch(current, patch) : mergeAppliedConfiguration(current, patch);
  // fields the manager stopped applying go, unless another manager owns them
  const m = pruneDroppedFields(merged, write.managedFields ?? entries, patch, options.fieldManager, options.subresource);
  // apply never carries a precondition unless the applied config names one
  const rv = patch.metadata?.resourceVersion;
  const object = objects.update(
    res,
    { ...m, metadata: { ...m.metadata, resourceVersion: rv ?? current.metadata?.resourceVersion } },
    namespace,
    name,
    {
      ...write,
      operation: 'Apply',
      applied: patch,
    },
  );
  return { object, created: false };
}

/**
 * PATCH requests: picks the patch flavour from the Content-Type (JSON patch, JSON merge patch,
 * strategic merge patch, server-side apply), applies it with the pure functions of `patch.ts`
 * and writes the result through the object store (so conflicts and validation still apply).
 */
import type { KubeObject } from '@rxinformer/core';
import { applyConflictError, findApplyConflicts, releaseFields } from './applyConflicts.ts';
import { pruneDroppedFields } from './applyPrune.ts';
import type { ManagedFieldsEntry } from './managedFields.ts';
import type { ObjectStore, WriteOptions } from './objects.ts';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  mergeAppliedConfiguration,
  PatchError,
  type JsonPatchOp,
} from './patch.ts';
import type { ResourceInfo } from './resources.ts';
import { errors } from './status.ts';
import { parseJsonBody } from './http.ts';

/** The patch media types the simulator accepts. */
export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

function patchFailure(e: unknown): never {
  if (e instanceof PatchError) {
    // malformed patch documents are the client's syntax error; patches that cannot apply are Invalid
    if (e.reason === 'BadRequest') throw errors.badRequest(e.message);
    throw errors.invalid('Patch', '', [{ reason: 'FieldValueInvalid', message: e.message, field: '' }]);
  }
  throw e;
}

/**
 * Applies one PATCH. Returns the stored object and whether it was created (server-side apply of a
 * missing object; never through a subresource). Throws `ApiStatusError`: 415 for an unknown type
 * (and strategic merge on custom resources), 400 for a malformed body, 404 for a missing object,
 * 409 Conflict when a server-side apply would change fields another manager owns (for an apply to
 * the `status` subresource, status fields such as those a kubelet's status updates own), unless
 * `force`, which takes them over; 409/422 from the write.
 */
export function applyPatch(
  objects: ObjectStore,
  res: ResourceInfo,
  namespace: string | undefined,
  name: string,
  contentType: string,
  body: string,
  options: WriteOptions & { force?: boolean },
): { object: KubeObject; created: boolean } {
  const known = Object.values(PATCH_TYPES) as string[];
  if (!known.includes(contentType)) throw errors.unsupportedMediaType(contentType);
  if (contentType === PATCH_TYPES.strategic && res.custom) throw errors.unsupportedMediaType(contentType);
  const patch = parseJsonBody(body);
  const { force: _force, ...write } = options;
  const current = objects.find(res, namespace, name);
  if (contentType === PATCH_TYPES.apply) {
    if (!patch || typeof patch !== 'object' || Array.isArray(patch))
      throw errors.badRequest('an apply patch must be a JSON or YAML object');
    if (!options.fieldManager) throw errors.badRequest('fieldManager is required for apply requests');
    if (!current) {
      // a subresource exists only with its object: applying to it never creates one
      if (options.subresource !== undefined) throw errors.notFound({ resource: res.resource, group: res.group, name });
      const obj = patch as KubeObject;
      return {
        object: objects.create(res, { ...obj, metadata: { ...obj.metadata, name } }, namespace, {
          ...write,
          operation: 'Apply',
          applied: patch as KubeObject,
        }),
        created: true,
      };
    }
    const conflicts = findApplyConflicts(current, patch as KubeObject, options.fieldManager, options.subresource);
    if (conflicts.length > 0 && !options.force) throw applyConflictError(conflicts);
    const entries = (current.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    if (conflicts.length > 0) write.managedFields = releaseFields(entries, conflicts);
    let merged: unknown;
    try {
      merged = res.custom ? applyMergePatch(current, patch) : mergeAppliedConfiguration(current, patch);
    } catch (e) {
      patchFailure(e);
    }
    // fields the manager stopped applying go, unless another manager owns them
    const m = pruneDroppedFields(
      merged as KubeObject,
      write.managedFields ?? entries,
      patch as KubeObject,
      options.fieldManager,
      options.subresource,
    );
    // apply never carries a precondition unless the applied config names one
    const rv = (patch as KubeObject).metadata?.resourceVersion;
    return {
      object: objects.update(
        res,
        { ...m, metadata: { ...m.metadata, resourceVersion: rv ?? current.metadata?.resourceVersion } },
        namespace,
        name,
        { ...write, operation: 'Apply', applied: patch as KubeObject },
      ),
      created: false,
    };
  }
  if (!current) throw errors.notFound({ resource: res.resource, group: res.group, name });
  let result: unknown;
  try {
    if (contentType === PATCH_TYPES.json) {
      if (!Array.isArray(patch)) throw errors.badRequest('a JSON patch must be an array of operations');
      result = applyJsonPatch(current, patch as JsonPatchOp[]);
    } else {
      if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw errors.badRequest('a merge patch must be a JSON object');
      result = contentType === PATCH_TYPES.merge ? applyMergePatch(current, patch) : applyStrategicMergePatch(current, patch);
    }
  } catch (e) {
    patchFailure(e);
  }
  if (!result || typeof result !== 'object' || Array.isArray(result)) throw errors.badRequest('the patched object is not a JSON object');
  const patched = result as KubeObject;
  const requestedRv = patched.metadata?.resourceVersion;
  // a patch is unconditional unless it names a resourceVersion itself
  const patchRv = Array.isArray(patch) ? requestedRv : (patch as KubeObject).metadata?.resourceVersion;
  return {
    object: objects.update(
      res,
      { ...patched, metadata: { ...patched.metadata, resourceVersion: patchRv ?? current.metadata?.resourceVersion } },
      namespace,
      name,
      write,
    ),
    created: false,
  };
}

/**
 * PATCH requests: picks the patch type from the Content-Type (JSON patch, JSON merge patch,
 * strategic merge patch, server-side apply), applies it (`jsonPatch.ts`, `strategicMerge.ts`,
 * `serverSideApply.ts`) and writes the result through the object store (so conflicts and
 * validation still apply).
 */
import type { KubeObject } from '@rxinformer/core';
import { applyJsonPatch, applyMergePatch, PatchError, type JsonPatchOp } from './jsonPatch.ts';
import { checkObjectKey } from './objectKeys.ts';
import type { ObjectStore } from './objects.ts';
import { parseJsonBody } from './requestBody.ts';
import type { ResourceInfo } from './resources.ts';
import { serverSideApply } from './serverSideApply.ts';
import { ApiStatusError, errors, failure, forbidden, type StatusCause } from './status.ts';
import { applyStrategicMergePatch } from './strategicMerge.ts';
import type { WriteOptions } from './writeContext.ts';

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
    // kube-apiserver 1.36 names neither the operation nor the path (measured)
    throw new ApiStatusError({ ...failure(422, 'Invalid', 'the server rejected our request due to an error in our request'), details: {} });
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
  options: WriteOptions & { force?: boolean; explicitFieldManager?: boolean },
): { object: KubeObject; created: boolean } {
  const known = Object.values(PATCH_TYPES) as string[];
  const unsupported = () => new ApiStatusError({ ...failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type'), details: {} });
  if (!known.includes(contentType)) throw unsupported();
  if (contentType === PATCH_TYPES.strategic && res.custom) throw unsupported();
  const patchOptions = (field: string, cause: StatusCause) => errors.invalid('PatchOptions', '', [{ ...cause, field }], 'meta.k8s.io');
  if (contentType === PATCH_TYPES.apply && !options.explicitFieldManager)
    throw patchOptions('fieldManager', { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' });
  if (contentType !== PATCH_TYPES.apply && options.force !== undefined)
    throw patchOptions('force', forbidden('force', 'may not be specified for non-apply patch'));
  // kube-apiserver's order: the name, then (but for an apply, which may create) the object, then the body
  checkObjectKey(res, namespace, name);
  if (contentType !== PATCH_TYPES.apply && objects.find(res, namespace, name) === undefined)
    throw errors.notFound({ resource: res.resource, group: res.group, name });
  const patch = parseJsonBody(body);
  try {
    if (contentType === PATCH_TYPES.apply) return serverSideApply(objects, res, namespace, name, patch, options);
    const { force: _force, explicitFieldManager: _explicit, ...write } = options;
    return { object: patchObject(objects, res, namespace, name, contentType, patch, write), created: false };
  } catch (e) {
    patchFailure(e);
  }
}

/** A JSON, merge or strategic merge patch of the current object, written as an Update. */
function patchObject(
  objects: ObjectStore,
  res: ResourceInfo,
  namespace: string | undefined,
  name: string,
  contentType: string,
  patch: unknown,
  write: WriteOptions,
): KubeObject {
  const current = objects.find(res, namespace, name);
  if (!current) throw errors.notFound({ resource: res.resource, group: res.group, name });
  let result: unknown;
  if (contentType === PATCH_TYPES.json) {
    if (!Array.isArray(patch)) throw errors.badRequest('a JSON patch must be an array of operations');
    result = applyJsonPatch(current, patch as JsonPatchOp[]);
  } else {
    if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw errors.badRequest('a merge patch must be a JSON object');
    result = contentType === PATCH_TYPES.merge ? applyMergePatch(current, patch) : applyStrategicMergePatch(current, patch);
  }
  if (!result || typeof result !== 'object' || Array.isArray(result)) throw errors.badRequest('the patched object is not a JSON object');
  const patched = result as KubeObject;
  const uid = patched.metadata?.uid;
  if (uid !== undefined && uid !== '' && uid !== current.metadata?.uid) throw immutableUid(res.kind, name, uid);
  const requestedRv = patched.metadata?.resourceVersion;
  // a patch is unconditional unless it names a resourceVersion itself
  const patchRv = Array.isArray(patch) ? requestedRv : (patch as KubeObject).metadata?.resourceVersion;
  return objects.update(
    res,
    { ...patched, metadata: { ...patched.metadata, resourceVersion: patchRv ?? current.metadata?.resourceVersion } },
    namespace,
    name,
    write,
  );
}

/**
 * A patch that changes `metadata.uid`: kube-apiserver's 422 (its validation reports the cause
 * twice, and the message once).
 */
function immutableUid(kind: string, name: string, uid: unknown): ApiStatusError {
  const cause = {
    reason: 'FieldValueInvalid',
    field: 'metadata.uid',
    message: `Invalid value: ${JSON.stringify(uid ?? '')}: field is immutable`,
  };
  return new ApiStatusError(
    failure(422, 'Invalid', `${kind} "${name}" is invalid: ${cause.field}: ${cause.message}`, { name, kind, causes: [cause, cause] }),
  );
}

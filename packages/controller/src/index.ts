/**
 * @rxinformer/controller — writes and controller helpers over a small `ApiClient` contract that
 * fetch (here) and client-node (`kubeApiClient` in @rxinformer/client-node) implement: immer drafts
 * sent as JSON Patch with a resourceVersion test, merge patch, server-side apply, status writes,
 * delete with preconditions, `createOrUpdate`, `retryOnConflict`, typed API errors, owner
 * references, finalizers, status conditions, an event recorder, and the controller builder
 * (`controllerFor`: one primary resource, `owns`, `watches`, predicates, priorities, debounce, and
 * read-your-writes: a key's next reconcile waits until the caches show the writes its last one
 * made through `req.api`).
 * Browser-safe: rxjs, immer and core only.
 *
 * @example
 * const client = fetchApiClient({ baseUrl: 'http://127.0.0.1:8001' });
 * const cms = resourceApi(client, { group: '', version: 'v1', resource: 'configmaps', namespaced: true });
 * const cm = await cms.get({ namespace: 'default', name: 'settings' });
 * await cms.update(cm, (d) => { d.metadata!.labels = { ...d.metadata!.labels, tier: 'gold' }; });
 *
 * @module @rxinformer/controller
 */

// The contract and its fetch implementation
export { fetchApiClient, httpApiClient } from './apiClient.ts';
export type { ApiClient, ApiMethod, ApiRequest, FetchApiClientOptions, HttpRequest, HttpRequestSend } from './apiClient.ts';

// Typed errors
export { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, toApiError } from './apiError.ts';

// Writes
export { apiVersionOf, refOf, resourceApi } from './resourceApi.ts';
export type {
  ApplyOptions,
  CreateOrUpdateOutcome,
  CreateOrUpdateResult,
  DeleteOptions,
  ObjectRef,
  Preconditions,
  ResourceApi,
  WriteOptions,
} from './resourceApi.ts';
export { recordedApi } from './recordedApi.ts';
export type { WriteOutcome } from './recordedApi.ts';
export { draftPatch, toPointer } from './jsonPatch.ts';
export type { DraftPatch, JsonPatchOperation, Recipe } from './jsonPatch.ts';
export { retryOnConflict } from './retry.ts';
export type { RetryBackoff, RetryOptions } from './retry.ts';

// Owners and finalizers
export { AlreadyOwnedError, controllerOf, InvalidOwnerError, ownerKey, ownerReferenceTo, setControllerReference } from './owners.ts';
export type { OwnerKind, OwnerReference } from './owners.ts';
export { finalizer } from './finalizer.ts';
export type { FinalizerHandlers, FinalizerOutcome, FinalizerRan, FinalizerSkipped } from './finalizer.ts';

// Status conditions
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  statusConditions,
} from './conditions.ts';
export type { Condition, ConditionInput, ConditionStatus, SetConditionOptions } from './conditions.ts';

// Events
export { createEventRecorder } from './eventRecorder.ts';
export type { EventRecorder, EventRecorderOptions } from './eventRecorder.ts';
export type { EventInfo, EventObjectReference, EventSource, EventType } from './eventBody.ts';

// The controller builder
export * from './builder/index.ts';

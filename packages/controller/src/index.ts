/**
 * @rxinformer/controller — writes and controller helpers over a small `ApiClient` contract that
 * fetch (here) and client-node (`kubeApiClient` in @rxinformer/client-node) implement: immer drafts
 * sent as JSON Patch with a resourceVersion test, merge patch, server-side apply, status writes,
 * delete with preconditions, `createOrUpdate`, `retryOnConflict`, typed API errors, owner
 * references, finalizers, an event recorder, and the controller builder (`controllerFor`: one primary
 * resource, `owns`, `watches`, predicates, priorities, debounce, and read-your-writes: a key's next
 * reconcile waits until the caches show the writes its last one made through `req.api`).
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
export { fetchApiClient, httpApiClient } from './client/apiClient.ts';
export type { ApiClient, ApiMethod, ApiRequest, FetchApiClientOptions, HttpRequest, HttpRequestSend } from './client/apiClient.ts';

// Typed errors
export { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, toApiError } from './client/apiError.ts';

// Writes
export { apiVersionOf, refOf, resourceApi } from './client/resourceApi.ts';
export type {
  ApplyOptions,
  CreateOrUpdateOutcome,
  CreateOrUpdateResult,
  DeleteOptions,
  ListOptions,
  ObjectRef,
  Preconditions,
  ResourceApi,
  WriteOptions,
} from './client/resourceApi.ts';
export { recordedApi } from './client/recordedApi.ts';
export type { WriteOutcome } from './client/recordedApi.ts';
export { draftPatch, toPointer } from './client/jsonPatch.ts';
export type { DraftPatch, JsonPatchOperation, Recipe } from './client/jsonPatch.ts';
export { retryOnConflict } from './client/retry.ts';
export type { RetryBackoff, RetryOptions } from './client/retry.ts';

// Owners and finalizers
export {
  AlreadyOwnedError,
  controllerOf,
  InvalidOwnerError,
  ownerKey,
  ownerReferenceTo,
  setControllerReference,
} from './objects/owners.ts';
export type { OwnerKind, OwnerReference } from './objects/owners.ts';
export { finalizer } from './objects/finalizer.ts';
export type { FinalizerHandlers, FinalizerOutcome, FinalizerRan, FinalizerSkipped } from './objects/finalizer.ts';

// Events
export { createEventRecorder } from './events/eventRecorder.ts';
export type { EventRecorder, EventRecorderOptions } from './events/eventRecorder.ts';
export type { EventInfo, EventObjectReference, EventSource, EventType } from './events/eventBody.ts';

// The controller: the builder, its one reconcile loop, its logger
export * from './builder/index.ts';
export * from './reconcile/index.ts';
export * from './log/index.ts';
export * from './shard/index.ts';

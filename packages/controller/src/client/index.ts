/** The API client contract and what writes through it: typed errors, resource reads and writes, JSON Patch, retries. */
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
  ListOptions,
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

/**
 * The HTTP ListerWatchers and the wire decoding every HTTP transport shares: list pages, watch lines, errors, body limits,
 * and the checks of numeric and scheduler options that transports and writers built on core share.
 *
 * @module @rxinformer/core/http
 */
export { fetchListerWatcher, fetchGet, readerChunks } from './fetchListerWatcher.ts';
export type { FetchListerWatcherOptions } from './fetchListerWatcher.ts';
export { httpListerWatcher, andSelectors } from './httpListerWatcher.ts';
export type { HttpListerWatcherOptions, WireCodec } from './httpListerWatcher.ts';
export type { HttpGet, HttpResponse } from './httpGet.ts';
export { isApiClient } from './apiClient.ts';
export type { ApiClient, ApiMethod, ApiRequest } from './apiClient.ts';
export {
  DEFAULT_MAX_LIST_BODY_BYTES,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  errorBody,
  MAX_BODY_BYTES,
  readBody,
  readBodyBytes,
  resolveHttpLimits,
} from './httpLimits.ts';
export type { HttpLimitOptions, ResolvedHttpLimits } from './httpLimits.ts';
export {
  DEFAULT_MAX_WATCH_LINE_BYTES,
  lineSplitter,
  createWatchDecoder,
  decodeWatchLine,
  decodeListPage,
  parseListBody,
} from './watchDecoder.ts';
export type { WatchDecoder, WatchDecoderOptions } from './watchDecoder.ts';
export { apiErrorFromResponse, networkErrorFrom, parseRetryAfter } from './httpErrors.ts';
export { listQuery, watchQuery, resourcePath } from './listWatchQuery.ts';
export { checkRequestPath, pathSegment, pathSegmentError, pathSegmentProblems, InvalidPathSegmentError } from '../pathSegment.ts';
export { BROWSER_WATCH_OPEN_TIMEOUT_MS, inBrowser } from './browserLimits.ts';
export { INITIAL_EVENTS_END_ANNOTATION, WATCH_OPENED } from '../types.ts';
export { bodyExcerpt, checkNumber, checkScheduler, describeValue, jsonErrorDetail, withCause } from '../errors.ts';
export type { NetworkErrorReason, NumberCheck, RequestTimeoutReason, ResponsePart } from '../errors.ts';
export { PARTIAL_OBJECT_METADATA_ACCEPT } from '../partialObjectMetadata.ts';
export { PARTIAL_OBJECT_METADATA_TYPE } from '../expectedType.ts';

/**
 * The reflector: streaming or paged lists, watch, resume, relist on 410, backoff, bookmarks, idle and stalled-watch detection, as a pure step function driven by RxJS.
 *
 * @module @rxinformer/core/reflector
 */
export { reflector } from './reflector.ts';
export type { ReflectorRunOptions } from './reflector.ts';
export { step as reflectorStep } from './reflectorMachine.ts';
export { initialReflectorModel } from './reflectorModel.ts';
export type { ReflectorAction, ReflectorInput, ReflectorModel, ReflectorState, StepResult } from './reflectorModel.ts';
export type { ReflectorOptions } from './reflectorOptions.ts';
export { createStreamingListMemory, DEFAULT_STREAMING_RECHECK_MS } from './streamingListSupport.ts';
export type { StreamingListMemory, StreamingListMemoryOptions, StreamingListSupport } from './streamingListSupport.ts';
export type { ReflectorEvent } from '../types.ts';
export type { RestoredMark } from '../snapshotStatus.ts';
export {
  ListTooLargeError,
  UnknownWatchEventError,
  WatchClosedError,
  WatchIdleError,
  WatchListUnsupportedError,
  WatchStalledError,
} from './reflectorErrors.ts';
export { expectedTypeOf, UnexpectedTypeError } from '../expectedType.ts';
export type { ExpectedType, TypeMeta } from '../expectedType.ts';
export { nextBackoff, resolveBackoff, backoffSuccess } from '../time/backoff.ts';
export type { BackoffOptions, BackoffState, NextBackoffOptions } from '../time/backoff.ts';

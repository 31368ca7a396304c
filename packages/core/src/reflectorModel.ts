/**
 * The reflector's state machine, its vocabulary: the states, the inputs, the model `step` advances
 * and what a step returns (`reflectorMachine.ts` holds `step`).
 */
import type { BackoffState } from './backoff.ts';
import type { UnexpectedTypeError } from './expectedType.ts';
import type { ResolvedReflectorOptions } from './reflectorOptions.ts';
import type { KubeObject, ListOptions, ListPage, ReflectorEvent, ReflectorStatus, WatchEvent, WatchOptions } from './types.ts';

/** What the reflector does next. */
export type ReflectorAction =
  | { kind: 'list'; options: ListOptions }
  | { kind: 'watch'; options: WatchOptions; idleMs: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'continue' };

/** The state of the machine. `rv` is the last resource version seen (opaque). */
export type ReflectorState<T extends KubeObject> =
  | {
      phase: 'listing';
      consistent: boolean;
      continue?: string;
      listRv?: string;
      /**
       * The objects of the pages received so far. A new array for every list, which `step`
       * appends each page to in place (rather than copying what it holds per page): once a model
       * is stepped, its successor holds the list.
       */
      items: T[];
      /** The list's objects of another type skipped so far (see `expectedType`). */
      rejected?: UnexpectedTypeError;
    }
  | {
      phase: 'streaming';
      /** The objects streamed so far; appended to in place, as a paged list's `items`. */
      items: T[];
      /** The list's objects of another type skipped so far (see `expectedType`). */
      rejected?: UnexpectedTypeError;
    }
  | { phase: 'watching'; rv: string; startedAt: number; events: number }
  | { phase: 'backingOff'; resume: 'list' | 'watch'; consistent: boolean; rv?: string };

/** The inputs that advance the machine. */
export type ReflectorInput<T extends KubeObject> =
  | { kind: 'start' }
  | { kind: 'page'; page: ListPage<T> }
  | { kind: 'event'; event: WatchEvent<T> }
  | { kind: 'closed' }
  | { kind: 'error'; error: unknown }
  | { kind: 'waited' };

/** Everything `step` needs besides the state. */
export interface ReflectorModel<T extends KubeObject> {
  /** Where the list/watch state machine is. */
  state: ReflectorState<T>;
  /** The status last emitted. */
  status: ReflectorStatus;
  /** Failures since the last success, for the next delay. */
  backoff: BackoffState;
  /** Watches in a row that closed at once with no event (three relist after a backoff). */
  emptyWatches: number;
  /** True once the server refused a streaming list: page from then on. */
  streamingRefused: boolean;
  /** The last resource version known, kept across relists and errors. */
  rv?: string;
  /** True once full objects answered a metadata-only request since the list began (see `NotPartialMetadataError`). */
  fullObjectsReported?: boolean;
}

/** @internal What `step` needs besides the model. */
export interface StepContext {
  options: ResolvedReflectorOptions;
  now: number;
  random: () => number;
}

/** The result of one step: the new model, events to emit, and the next action. */
export interface StepResult<T extends KubeObject> {
  /** The next model. */
  model: ReflectorModel<T>;
  /** Events to emit, in order. */
  outputs: ReflectorEvent<T>[];
  /** What the driver must do next (list, watch, wait…). */
  action: ReflectorAction;
}

/** The model before the first step. */
export function initialReflectorModel<T extends KubeObject>(): ReflectorModel<T> {
  return {
    state: { phase: 'listing', consistent: false, items: [] },
    status: { phase: 'listing', relistCount: 0, hasSynced: false },
    backoff: { failures: 0 },
    emptyWatches: 0,
    streamingRefused: false,
  };
}

/**
 * The reflector's state machine, its vocabulary: the states, the inputs, the model `step` advances
 * and what a step returns (`reflectorMachine.ts` holds `step`).
 */
import type { BackoffState } from '../time/backoff.ts';
import type { UnexpectedTypeError } from '../expectedType.ts';
import type { InvalidObjectError } from '../errors.ts';
import type { Prepare } from '../store/prepare.ts';
import type { ResolvedReflectorOptions } from './reflectorOptions.ts';
import type { StreamingListSupport } from './streamingListSupport.ts';
import type { KubeObject, ListOptions, ListPage, ReflectorEvent, ReflectorStatus, WatchEvent, WatchOptions } from '../types.ts';

/** What the reflector does next. */
export type ReflectorAction =
  | { type: 'list'; options: ListOptions }
  | {
      type: 'watch';
      options: WatchOptions;
      /** The stream is dead after this long with nothing from it. */
      idleMs: number;
      /** After this long with nothing from the stream, and again each time as long, the driver sends `silent`. */
      stallMs?: number;
    }
  /** The stall check: a list run beside the open watch (which stays), answered by `checked` or `checkFailed`. */
  | { type: 'check'; options: ListOptions }
  | { type: 'wait'; ms: number }
  | { type: 'continue' };

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
      /** Why the list's objects that could not be prepared were left out; appended to in place, as `items`. */
      invalid: InvalidObjectError[];
    }
  | {
      phase: 'streaming';
      /** The objects streamed so far; appended to in place, as a paged list's `items`. */
      items: T[];
      /** Why the streamed objects that could not be prepared were left out (in place, as `items`). */
      invalid: InvalidObjectError[];
      /** The list's objects of another type skipped so far (see `expectedType`). */
      rejected?: UnexpectedTypeError;
    }
  | {
      phase: 'watching';
      rv: string;
      startedAt: number;
      events: number;
      /** True while a stall check runs; any event of the watch ends it (the watch is not stalled). */
      checking?: boolean;
      /** How long the watch has been silent, as the `silent` inputs since its last event count it (ms). */
      silentMs?: number;
    }
  | { phase: 'backingOff'; resume: 'list' | 'watch'; consistent: boolean; rv?: string };

/** The inputs that advance the machine. */
export type ReflectorInput<T extends KubeObject> =
  | { type: 'start' }
  | { type: 'page'; page: ListPage<T> }
  | { type: 'event'; event: WatchEvent<T> }
  /** The watch is open (`WATCH_OPENED`: its response has arrived). */
  | { type: 'opened' }
  | { type: 'closed' }
  | { type: 'error'; error: unknown }
  | { type: 'waited' }
  /** The watch has sent nothing for the action's `stallMs`. */
  | { type: 'silent' }
  /** The stall check's answer. */
  | { type: 'checked'; page: ListPage<T> }
  /** The stall check failed (not a stall). */
  | { type: 'checkFailed'; error: unknown };

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
  /** The last resource version known, kept across relists and errors. */
  rv?: string;
  /** True once full objects answered a metadata-only request since the list began (see `NotPartialMetadataError`). */
  fullObjectsReported?: boolean;
  /**
   * True while the run resumes from a restored snapshot's resource version (`rv`) and the server
   * has not yet answered the watch with an event or bookmark (which syncs it) or a 410 (a list).
   */
  resuming?: boolean;
}

/** @internal What `step` needs besides the model. */
export interface StepContext<T extends KubeObject = KubeObject> {
  options: ResolvedReflectorOptions;
  now: number;
  random: () => number;
  /** The prepare stage each admitted object goes through as it arrives; none: objects as decoded. */
  prepare?: Prepare<T>;
  /**
   * What is known of the server's support for streaming lists: asked before each list, told of
   * refusals and of lists streamed. None: every list streams (with `useStreamingList`), one
   * refused pages that time only.
   */
  streaming?: StreamingListSupport;
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

/**
 * The model before the first step of a run. After `previous`, the last model of an earlier run
 * that had synced, the run carries that run's accounting on (as a restarted client-go reflector
 * does): its relists, `hasSynced`, and the last resource version known, so its first list is a
 * relist, read consistently (see `step`'s `start`). Otherwise, given `resumeFrom` (a restored
 * snapshot's resource version), the run starts with a watch from it instead of a list (`resuming`).
 */
export function initialReflectorModel<T extends KubeObject>(previous?: ReflectorModel<T>, resumeFrom?: string): ReflectorModel<T> {
  const fresh: ReflectorModel<T> = {
    state: { phase: 'listing', consistent: false, items: [], invalid: [] },
    status: { phase: 'listing', relistCount: 0, hasSynced: false },
    backoff: { failures: 0 },
    emptyWatches: 0,
  };
  if (!previous?.status.hasSynced) {
    if (resumeFrom === undefined || resumeFrom === '') return fresh;
    return { ...fresh, status: { ...fresh.status, lastSyncResourceVersion: resumeFrom }, rv: resumeFrom, resuming: true };
  }
  const rv = previous.rv ?? previous.status.lastSyncResourceVersion;
  const status = { phase: 'listing' as const, relistCount: previous.status.relistCount, hasSynced: true };
  return { ...fresh, status: rv === undefined ? status : { ...status, lastSyncResourceVersion: rv }, ...(rv !== undefined && { rv }) };
}

/**
 * @internal Adds a page to the array of the list in progress, in place: that array belongs to the
 * listing state alone (`startList` makes a new one for every list), so no object held before is
 * copied and a list of n objects costs O(n), where a copy of everything held on every page cost O(n²).
 */
export function append<T>(items: T[], page: readonly T[]): T[] {
  for (const item of page) items.push(item);
  return items;
}

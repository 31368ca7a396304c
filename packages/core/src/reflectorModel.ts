/**
 * The reflector's model: its options, typed errors, the states and inputs of its state machine,
 * and how options become requests. `reflector.ts` holds the transition function and its driver.
 */
import { resolveBackoff, type BackoffOptions, type BackoffState, type ResolvedBackoff } from './backoff.ts';
import { InvalidOptionsError, RxInformerError } from './errors.ts';
import { validateExpectedType, type ExpectedType, type UnexpectedTypeError } from './expectedType.ts';
import type { KubeObject, ListOptions, ListPage, ReflectorEvent, ReflectorStatus, WatchEvent, WatchOptions } from './types.ts';
import type { SchedulerLike } from 'rxjs';

/** Options of `reflector`. */
export interface ReflectorOptions {
  /** Page size of lists. Default 500. */
  pageSize?: number;
  /** Label selector for both list and watch. Default: none. */
  labelSelector?: string;
  /** Field selector for both list and watch. Default: none. */
  fieldSelector?: string;
  /**
   * Resource version of the first list: `undefined` (default) is a consistent, paged read;
   * `"0"` lets the server answer from its cache (it then ignores `limit`). Relists after a 410
   * always use a consistent read.
   */
  initialListResourceVersion?: '0';
  /** List with a streaming watch (`sendInitialEvents`), falling back to paging when refused. Default false. */
  useStreamingList?: boolean;
  /** Watches ask the server to close after a random time in [min, 2 × min] seconds. Default 300. */
  minWatchTimeoutSeconds?: number;
  /** A watch with no event for its timeout plus this grace is considered dead. Default 30 000 ms. */
  idleGraceMs?: number;
  /**
   * Backoff after failures. Defaults: 800 ms doubling to 30 s, jitter 0.5, reset after 2 min.
   * Relists after a 410 use it too: the first after a healthy period at once, repeated ones with
   * backoff. `maxMs` also caps the wait a `Retry-After` can ask for.
   */
  backoff?: BackoffOptions;
  /** Consecutive watches closed at once (under 1 s, no event) that trigger a relist. Default 3. */
  maxEmptyWatches?: number;
  /**
   * Most pages one paged list may have: a page with a `continue` token past this many fails the
   * list with `ListTooLargeError` (then backoff and relist) instead of being followed. Guards
   * against a server handing out continue tokens forever, even with empty pages. Default 10 000:
   * 5 million objects at the default page size, 33 times the 150 000 pods of the largest cluster
   * Kubernetes' scalability thresholds describe. Raise it with a `pageSize` under 100.
   */
  maxListPages?: number;
  /**
   * Most objects one list may hold (paged, or streamed with `useStreamingList`): past this the list
   * fails with `ListTooLargeError` (then backoff and relist) and what it held is dropped. Guards the
   * process's memory against a server that never ends a list. Default 1 000 000: more than 6 times
   * the 150 000 pods of Kubernetes' scalability thresholds, the largest per-resource count they
   * give, and about 1 GB of heap for small objects.
   */
  maxListItems?: number;
  /**
   * The apiVersion and kind of the resource watched (client-go's expected GVK). A watch event or
   * list item whose object declares another one is skipped and reported as an
   * `UnexpectedTypeError` in the status's `lastError` (for a list, one error counting every item
   * skipped, on the status after the list); its resource version is not taken. Objects that
   * declare none are accepted (list items often don't). The informer factory sets it from the
   * resource descriptor. List items are checked after an informer's `transform`, which should keep
   * `apiVersion`/`kind` or drop them. Default: not checked.
   */
  expectedType?: ExpectedType;
  /** Where time runs (backoff, timeouts). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Source of randomness for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
}

/** The watch stream stayed silent past its deadline. */
export class WatchIdleError extends RxInformerError {
  constructor(ms: number) {
    super('WatchIdle', `watch stream idle for ${ms} ms; reconnecting`);
  }
}

/** Watches kept closing at once with no event. */
export class WatchClosedError extends RxInformerError {
  constructor(count: number) {
    super('WatchClosedImmediately', `${count} watches in a row closed at once with no event; relisting`);
  }
}

/** A watch event whose `type` the protocol does not define. */
export class UnknownWatchEventError extends RxInformerError {
  constructor(type: unknown) {
    super('UnknownWatchEvent', `watch event of unknown type ${JSON.stringify(type)} skipped`);
  }
}

/** A list went past `maxListPages` or `maxListItems`: it was stopped, and is retried after a backoff. */
export class ListTooLargeError extends RxInformerError {
  /** Which bound was crossed. */
  readonly limit: 'maxListPages' | 'maxListItems';
  /** Pages received when the list was stopped (0 for a streaming list). */
  readonly pages: number;
  /** Objects received when the list was stopped. */
  readonly items: number;

  constructor(limit: 'maxListPages' | 'maxListItems', max: number, received: { pages: number; items: number }) {
    super(
      'ListTooLarge',
      limit === 'maxListPages'
        ? `list stopped after ${received.pages} pages (${received.items} objects): the server kept sending continue tokens past maxListPages ${max}`
        : `list stopped at ${received.items} objects (${received.pages} pages), more than maxListItems ${max}`,
    );
    this.limit = limit;
    this.pages = received.pages;
    this.items = received.items;
  }
}

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
      items: T[];
      /** The list's objects of another type skipped so far (see `expectedType`). */
      rejected?: UnexpectedTypeError;
    }
  | {
      phase: 'streaming';
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
  /** True once full objects answered a metadata-only request (reported once, see `NotPartialMetadataError`). */
  fullObjectsReported?: boolean;
}

/** @internal What `step` needs besides the model. */
export interface StepContext {
  options: ResolvedReflectorOptions;
  now: number;
  random: () => number;
}

/** @internal Options with every default filled in. */
export type ResolvedReflectorOptions = Required<
  Omit<
    ReflectorOptions,
    'labelSelector' | 'fieldSelector' | 'initialListResourceVersion' | 'backoff' | 'scheduler' | 'random' | 'expectedType'
  >
> &
  Pick<ReflectorOptions, 'labelSelector' | 'fieldSelector' | 'initialListResourceVersion' | 'expectedType'> & { backoff: ResolvedBackoff };

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

/** @internal */
export function selectors(o: ResolvedReflectorOptions): { labelSelector?: string; fieldSelector?: string } {
  return { ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}), ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}) };
}

/** @internal */
export function listOptions(o: ResolvedReflectorOptions, consistent: boolean): ListOptions {
  return { limit: o.pageSize, ...(consistent ? {} : { resourceVersion: o.initialListResourceVersion }), ...selectors(o) };
}

/** @internal */
export function streamingOptions(o: ResolvedReflectorOptions): WatchOptions {
  return {
    sendInitialEvents: true,
    resourceVersionMatch: 'NotOlderThan',
    allowWatchBookmarks: true,
    resourceVersion: '',
    timeoutSeconds: o.minWatchTimeoutSeconds * 2,
    ...selectors(o),
  };
}

/** @internal */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new RxInformerError('Unknown', String(e), { cause: e });
}

/** @internal */
export function resolveOptions(options: ReflectorOptions): ResolvedReflectorOptions {
  const positive = (name: string, value: number | undefined, dflt: number, min = 1, integer = false): number => {
    const v = value ?? dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
      throw new InvalidOptionsError(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${value}`);
    }
    return v;
  };
  if (options.initialListResourceVersion !== undefined && options.initialListResourceVersion !== '0') {
    throw new InvalidOptionsError(
      `initialListResourceVersion must be "0" or unset, got ${JSON.stringify(options.initialListResourceVersion)}`,
    );
  }
  return {
    pageSize: positive('pageSize', options.pageSize, 500, 1, true), // the API's limit is an integer
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    initialListResourceVersion: options.initialListResourceVersion,
    useStreamingList: options.useStreamingList ?? false,
    minWatchTimeoutSeconds: positive('minWatchTimeoutSeconds', options.minWatchTimeoutSeconds, 300),
    idleGraceMs: positive('idleGraceMs', options.idleGraceMs, 30_000, 0),
    maxEmptyWatches: positive('maxEmptyWatches', options.maxEmptyWatches, 3, 1, true),
    maxListPages: positive('maxListPages', options.maxListPages, 10_000, 1, true),
    maxListItems: positive('maxListItems', options.maxListItems, 1_000_000, 1, true),
    backoff: resolveBackoff(options.backoff),
    expectedType: validateExpectedType(options.expectedType),
  };
}

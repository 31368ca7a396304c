/**
 * The reflector's options: what each one means and defaults to, their validation, and how they
 * become the list and watch requests the state machine (`reflectorMachine.ts`) asks for.
 */
import { resolveBackoff, type BackoffOptions, type ResolvedBackoff } from '../time/backoff.ts';
import { checkNumber, InvalidOptionsError } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';
import { validateExpectedType, type ExpectedType } from '../expectedType.ts';
import type { ListOptions, WatchOptions } from '../types.ts';
import { checkStreamingListSupport, type StreamingListSupport } from './streamingListSupport.ts';
import type { SchedulerLike } from 'rxjs';

/** Options of `reflector`. */
export interface ReflectorOptions {
  /** Page size of lists. Default 500. */
  pageSize?: number;
  /**
   * Resource version of the first list: `undefined` (default) is a consistent read; `"0"` lets the
   * server answer from its cache, possibly stale (a paged list's `limit` is then ignored; a
   * streaming list asks from `resourceVersion=0`). Relists (after a 410…) always read consistently.
   */
  initialListResourceVersion?: '0';
  /**
   * List with a streaming watch (KEP-3157's watch-list, client-go's `WatchListClient`, on by
   * default in client-go v0.36): one watch with `sendInitialEvents=true` sends every object, then a
   * bookmark marked `k8s.io/initial-events-end` whose resourceVersion the list takes, and goes on
   * as the watch; the server streams from its watch cache instead of building a list response.
   * Where the server refuses it (422: kube-apiserver with the `WatchList` gate off; older servers
   * name `resourceVersionMatch`) or answers it as a plain watch (a change or a plain bookmark
   * before the end bookmark, the stream ending, or silence for `stallCheck.afterMs`), the list
   * pages instead, and so do the lists of every reflector sharing its `streamingListSupport`
   * until that forgets the refusal. Default true, for a ListerWatcher that serves streaming lists
   * (its `watchList`); `false`, or a ListerWatcher without `watchList`, always pages.
   */
  useStreamingList?: boolean;
  /**
   * What is known of the server's support for streaming lists, shared with other reflectors of the
   * same server (see `createStreamingListMemory`; the informer factory passes its own, one per API
   * group version). Default: the reflector's own, which forgets a refusal after 10 minutes.
   */
  streamingListSupport?: StreamingListSupport;
  /**
   * Watches ask the server to close after a random time in [min, 2 × min] seconds (whole seconds,
   * rounded down). A number >= 1 of any length: the idle check past it waits that long too (its
   * timer is split past a JavaScript timer's 24.8 days). NaN and Infinity are refused. Default 300.
   */
  minWatchTimeoutSeconds?: number;
  /**
   * A watch with no event for its timeout plus this grace is considered dead: a number of ms >= 0
   * of any length (NaN and Infinity are refused). Default 30 000 ms.
   */
  idleGraceMs?: number;
  /**
   * Backoff after failures. Defaults: 800 ms doubling to 30 s, jitter 0.5, reset after 2 min.
   * Relists after a 410 use it too: the first after a healthy period at once, repeated ones with
   * backoff. `maxMs` also caps the wait a `Retry-After` can ask for.
   */
  backoff?: BackoffOptions;
  /**
   * Stalled-watch detection: a watch that has delivered nothing (no event, no bookmark) for
   * `afterMs` is checked with a consistent one-object list (`limit=1`, no resourceVersion). When
   * the list's resourceVersion differs from the last one the reflector has seen, the server moved
   * on while the watch stayed silent (a proxy that keeps the stream open but passes nothing, a
   * stuck watch cache): the reflector reports a `WatchStalledError` as `lastError`, counts it in
   * the status's `stalledWatches` and re-watches from its last resourceVersion (no relist). The
   * same resourceVersion is a quiet resource: it keeps watching and checks again `afterMs` later;
   * a check that fails is not a stall. Default `{ afterMs: 120_000 }`: two of kube-apiserver's
   * bookmark periods (about a minute), so a healthy watch never needs the check. `false` disables it.
   */
  stallCheck?:
    | {
        /**
         * Silence, in ms, after which a watch is checked: a number >= 1 of any length (30 days wait
         * 30 days); NaN and Infinity are refused (`stallCheck: false` turns the check off). Default 120 000.
         */
        afterMs?: number;
      }
    | false;
  /**
   * Watches closed at once in a row that make the reflector relist; fewer are watched again from the
   * last resourceVersion. Closed at once: ended less than 1 s after the watch request with no event
   * (a bookmark and an event of an unknown type count; an object of another type than
   * `expectedType`, skipped, does not), as client-go v0.36's "very short watch". Default 3: a
   * gateway closing a watch costs a watch, not a list, and handlers hear each change the server
   * replays. `1` relists at the first, as client-go does at each, and makes its handler calls
   * (see docs/concept-map.md, `very-short-watch`).
   */
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
   * Most objects one list may hold (paged or streamed): past this the list
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
   * resource descriptor (`expectedTypeOf`; for a metadata-only one, `PartialObjectMetadata` with
   * the resource's type as `metadataOf`: see `ExpectedType`). List items are checked after an informer's `transform`, which should keep
   * `apiVersion`/`kind` or drop them. Default: not checked.
   */
  expectedType?: ExpectedType;
  /** Where time runs (backoff, timeouts). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Source of randomness for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
}

/** @internal Options with every default filled in. */
export type ResolvedReflectorOptions = Required<
  Omit<
    ReflectorOptions,
    'initialListResourceVersion' | 'backoff' | 'scheduler' | 'random' | 'expectedType' | 'stallCheck' | 'streamingListSupport'
  >
> &
  Pick<ReflectorOptions, 'initialListResourceVersion' | 'expectedType'> & {
    backoff: ResolvedBackoff;
    /** Silence (ms) after which a watch is checked for a stall; `false`: never. */
    stallCheckMs: number | false;
  };

/** @internal Fills in the defaults; throws `InvalidOptionsError` for a value out of range. */
export function resolveOptions(options: ReflectorOptions): ResolvedReflectorOptions {
  if (options.initialListResourceVersion !== undefined && options.initialListResourceVersion !== '0') {
    throw new InvalidOptionsError(
      `initialListResourceVersion must be "0" or unset, got ${JSON.stringify(options.initialListResourceVersion)}`,
    );
  }
  checkStreamingListSupport(options.streamingListSupport);
  return {
    pageSize: checkNumber('pageSize', options.pageSize, 500, 1, { integer: true }), // the API's limit is an integer
    initialListResourceVersion: options.initialListResourceVersion,
    useStreamingList: options.useStreamingList ?? true,
    minWatchTimeoutSeconds: checkDuration('minWatchTimeoutSeconds', options.minWatchTimeoutSeconds, 300, { min: 1, unit: 's' }),
    idleGraceMs: checkDuration('idleGraceMs', options.idleGraceMs, 30_000),
    stallCheckMs:
      options.stallCheck === false ? false : checkDuration('stallCheck.afterMs', options.stallCheck?.afterMs, 120_000, { min: 1 }),
    maxEmptyWatches: checkNumber('maxEmptyWatches', options.maxEmptyWatches, 3, 1, { integer: true }),
    maxListPages: checkNumber('maxListPages', options.maxListPages, 10_000, 1, { integer: true }),
    maxListItems: checkNumber('maxListItems', options.maxListItems, 1_000_000, 1, { integer: true }),
    backoff: resolveBackoff(options.backoff),
    expectedType: validateExpectedType(options.expectedType),
  };
}

/** @internal The first page of a list: consistent (most recent) or from the server's cache. */
export function listOptions(o: ResolvedReflectorOptions, consistent: boolean): ListOptions {
  return { limit: o.pageSize, ...(consistent ? {} : { resourceVersion: o.initialListResourceVersion }) };
}

/** @internal The stall check's list: one object, read consistently, for the collection's resourceVersion. */
export function stallCheckOptions(): ListOptions {
  return { limit: 1, singlePage: true }; // one page, for its resourceVersion: nothing to prefetch
}

/** @internal The `stallMs` of a watch action: the stall check's silence, when it is on. */
export function stallMsOf(o: ResolvedReflectorOptions): { stallMs?: number } {
  return o.stallCheckMs === false ? {} : { stallMs: o.stallCheckMs };
}

/**
 * @internal A streaming list: a watch that first sends every current object, then a bookmark; of
 * the most recent state when `consistent`, else at `initialListResourceVersion` ("0": any the
 * server's cache holds).
 */
export function streamingOptions(o: ResolvedReflectorOptions, consistent: boolean): WatchOptions {
  return {
    sendInitialEvents: true,
    resourceVersionMatch: 'NotOlderThan',
    allowWatchBookmarks: true,
    resourceVersion: consistent ? '' : (o.initialListResourceVersion ?? ''),
    timeoutSeconds: Math.floor(o.minWatchTimeoutSeconds * 2), // the API takes whole seconds
  };
}

/**
 * The `timeoutSeconds` of a watch resuming a restored snapshot: kube-apiserver's cacher (and the
 * simulator) send a bookmark 2 s before a watch's timeout, on a timer that ticks once a second, so
 * a resource with no change since the snapshot is confirmed 1–2 s after the watch opened (with the
 * usual timeout, by a bookmark about a minute later). Any change since comes at once.
 */
export const RESUME_WATCH_SECONDS = 3;

/** @internal A watch's `timeoutSeconds`: random in [min, 2 × min], or `RESUME_WATCH_SECONDS` while `resuming`. */
export function watchSeconds(o: ResolvedReflectorOptions, random: () => number, resuming: boolean): number {
  return resuming ? RESUME_WATCH_SECONDS : Math.floor(o.minWatchTimeoutSeconds * (1 + random()));
}

/** @internal A watch from `rv` that the server closes after `seconds`. */
export function watchOptions(rv: string, seconds: number): WatchOptions {
  return { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: seconds };
}

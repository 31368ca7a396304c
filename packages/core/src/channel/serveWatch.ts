/**
 * A `watch` answered from a server's informer, as kube-apiserver's watch cache answers it: from a
 * resource version, the events after it (from the feed's history) then live; with no resource
 * version (or `"0"`), ADDED for every cached object first; with `sendInitialEvents`, those ADDED
 * then the BOOKMARK that ends them. BOOKMARKs (when allowed) whenever the informer's resource
 * version moves past the last event sent, and every `bookmarkIntervalMs`; a clean end after
 * `timeoutSeconds`.
 */
import { concatMap, Observable, of, takeUntil, type SchedulerLike } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import { intervalEvery, timerAfter } from '../time/longTimer.ts';
import type { FeedChange, InformerFeed } from './informerFeed.ts';
import { failureStatus } from './protocol.ts';
import { atLeast, expired } from './revisionWait.ts';
import { INITIAL_EVENTS_END_ANNOTATION } from '../types.ts';
import type { WatchEvent, WatchOptions } from '../types.ts';

/** What a served watch emits: `open` once, then batches of events. */
export type WatchOutput = 'open' | readonly WatchEvent[];

/** What `serveWatch` needs beside the request. */
export interface WatchContext {
  /** How long a watch from a resource version the cache has not reached waits for it, in ms. */
  readonly rvWaitMs: number;
  /** Time between periodic BOOKMARKs, in ms. */
  readonly bookmarkIntervalMs: number;
  readonly scheduler: SchedulerLike;
}

/**
 * The watch `options` ask for, over `feed`. Errors (as `KubeApiError`): 422 for options
 * kube-apiserver refuses, 410 for a resource version the history cannot place, 503 while the
 * informer cannot sync. Completes after `timeoutSeconds`, or when the informer is shut down.
 *
 * @example
 * serveWatch(feed, { resourceVersion: '1234', allowWatchBookmarks: true }, context).subscribe(send);
 */
export function serveWatch(feed: InformerFeed, options: WatchOptions, context: WatchContext): Observable<WatchOutput> {
  const invalid = refusal(options);
  if (invalid) return new Observable((s) => s.error(invalid));
  const rv = options.resourceVersion;
  const unset = rv === undefined || rv === '' || rv === '0';
  const watch = feed.ready$.pipe(
    concatMap(() => (unset ? of(undefined) : atLeast(feed, rv, context.rvWaitMs, context.scheduler))),
    concatMap(() => watchFrom(feed, options, unset, context)),
  );
  const seconds = options.timeoutSeconds ?? 0;
  // Any length, as kube-apiserver keeps it: a Node timer past 24.8 days would end the watch at once.
  return seconds > 0 ? watch.pipe(takeUntil(timerAfter(seconds * 1000, context.scheduler))) : watch;
}

/** Options kube-apiserver answers 422 Invalid, as it words them. */
function refusal(o: WatchOptions): KubeApiError | undefined {
  const invalid = (message: string) => new KubeApiError(422, { status: failureStatus(422, 'Invalid', message) });
  if (o.resourceVersionMatch !== undefined && o.sendInitialEvents === undefined)
    return invalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  if (o.sendInitialEvents === true && o.resourceVersionMatch !== 'NotOlderThan')
    return invalid('resourceVersionMatch: Unsupported value: sendInitialEvents requires resourceVersionMatch NotOlderThan');
  if (o.sendInitialEvents === true && o.allowWatchBookmarks !== true)
    return invalid('allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
  return undefined;
}

/** The watch once its resource version is reached: open, the first events, then live. */
function watchFrom(feed: InformerFeed, options: WatchOptions, unset: boolean, context: WatchContext): Observable<WatchOutput> {
  return new Observable<WatchOutput>((subscriber) => {
    const first = firstEvents(feed, options, unset);
    if (first instanceof KubeApiError) {
      subscriber.error(first);
      return;
    }
    const bookmarks = options.allowWatchBookmarks === true;
    // Changes that come while the first events go out wait behind them.
    let waiting: FeedChange[] | undefined = [];
    const onChange = (change: FeedChange): void => {
      if (waiting) waiting.push(change);
      else subscriber.next(withBookmark(change, bookmarks));
    };
    const live = feed.changes$.subscribe({ next: onChange, complete: () => subscriber.complete() });
    subscriber.next('open');
    if (first.length > 0) subscriber.next(first);
    for (const change of waiting) subscriber.next(withBookmark(change, bookmarks));
    waiting = undefined;
    if (bookmarks)
      live.add(
        intervalEvery(context.bookmarkIntervalMs, context.scheduler).subscribe(() => subscriber.next([bookmark(feed.resourceVersion())])),
      );
    return live;
  });
}

/** The events a watch starts with: the cache as ADDED (no resource version), else the history after it. */
function firstEvents(feed: InformerFeed, options: WatchOptions, unset: boolean): readonly WatchEvent[] | KubeApiError {
  const initial = options.sendInitialEvents === true || (unset && options.sendInitialEvents !== false);
  if (!initial) {
    if (unset) return [];
    const placed = feed.place(options.resourceVersion!);
    if (placed.type === 'replay') return placed.events;
    return expired(`too old resource version: ${options.resourceVersion} (${placed.type === 'expired' ? placed.oldest : placed.head})`);
  }
  const { items, resourceVersion } = feed.snapshot();
  const events: WatchEvent[] = items.map((object) => ({ type: 'ADDED', object }));
  if (options.sendInitialEvents === true) events.push(bookmark(resourceVersion, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' }));
  return events;
}

/**
 * A change's events, then a BOOKMARK at its resource version when that is not the last event's (a
 * relist's differences, the informer's own bookmark), so that a client resumes from the newest.
 */
function withBookmark(change: FeedChange, bookmarks: boolean): readonly WatchEvent[] {
  const last = change.events.at(-1)?.object.metadata?.resourceVersion;
  if (!bookmarks || last === change.resourceVersion || change.resourceVersion === '') return change.events;
  return [...change.events, bookmark(change.resourceVersion)];
}

/**
 * A BOOKMARK at `resourceVersion`. Its object declares no type (kube-apiserver's names the
 * resource's kind): a client's type check lets it through, whatever resource it watches.
 */
function bookmark(resourceVersion: string, annotations?: Record<string, string>): WatchEvent {
  return { type: 'BOOKMARK', object: { metadata: { resourceVersion, ...(annotations && { annotations }) } } };
}

/**
 * What a watch asks for (`WatchSpec`), and the lines it is sent: each stored change as the watch's
 * namespace and selectors see it (a change that leaves the selection is a DELETED, one that enters
 * it an ADDED), and bookmarks. A change every watcher without a selector sees alike is serialized
 * once for all of them.
 */
import type { KubeObject } from '@rxinformer/core';
import { INITIAL_EVENTS_END_ANNOTATION } from '@rxinformer/core/http';
import { groupVersion, type ResourceInfo } from './resources.ts';
import type { ObjectMatcher } from './selectors.ts';
import { watchLine } from './serialize.ts';
import type { StoredEvent } from './storage.ts';
import type { SchedulerLike } from 'rxjs';

/** How a watch starts. */
export type WatchStart =
  /** ADDED for every current match, then changes (RV unset or "0"). */
  | { kind: 'synthetic' }
  /** Changes after this revision. */
  | { kind: 'from'; rv: number }
  /** Streaming list: ADDED for every current match, then the initial-events-end bookmark (with `allowBookmarks`). */
  | { kind: 'initialEvents' };

/** Everything a watch stream needs. */
export interface WatchSpec {
  res: ResourceInfo;
  namespace?: string;
  matcher: ObjectMatcher;
  start: WatchStart;
  allowBookmarks: boolean;
  timeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** Where the bookmark and timeout timers run (`ApiServerOptions.scheduler`). Default: Node timers. */
  scheduler?: SchedulerLike;
  /** Converts an object for the wire (Table output); identity when absent. */
  render?: (obj: KubeObject, rv: string) => unknown;
  /** Converts a bookmark's object (its metadata) for the wire: a PartialObjectMetadata, a Table. Default: an object of the resource's kind. */
  renderBookmark?: (metadata: KubeObject['metadata']) => unknown;
  /** Closes the stream when this many bytes wait unsent (default 64 MiB: the watcher is too slow). */
  maxBufferedBytes?: number;
}

let lastEvent: StoredEvent | undefined;
let lastLine = '';

/** The line of one object event, rendered by `render` when given. */
export function objectLine(type: string, obj: KubeObject, rv: string, render?: (obj: KubeObject, rv: string) => unknown): string {
  const object = render ? render(obj, rv) : obj;
  return JSON.stringify({ type, object });
}

/** The line stored change `e` becomes on a watch of `spec`; undefined when the watch does not see it. */
export function eventLine(e: StoredEvent, spec: WatchSpec): string | undefined {
  const ns = spec.namespace;
  if (spec.res.namespaced && ns !== undefined && e.object.metadata?.namespace !== ns) return undefined;
  const rv = String(e.rv);
  if (spec.matcher.everything && !spec.render) {
    // every watcher of this event gets the same line, serialized once (and not kept with the history)
    if (lastEvent !== e) {
      lastEvent = e;
      lastLine = watchLine(e.type, e.object);
    }
    return lastLine;
  }
  const now = spec.matcher.matches(e.object);
  if (e.type === 'MODIFIED') {
    const before = e.prev !== undefined && spec.matcher.matches(e.prev);
    if (now && before) return objectLine('MODIFIED', e.object, rv, spec.render);
    if (now) return objectLine('ADDED', e.object, rv, spec.render);
    if (before && e.prev)
      return objectLine('DELETED', { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: rv } }, rv, spec.render);
    return undefined;
  }
  return now ? objectLine(e.type, e.object, rv, spec.render) : undefined;
}

/** A BOOKMARK at `rv`; `initialEnd` marks the end of a streaming list's initial events. */
export function bookmarkLine(res: ResourceInfo, rv: string, initialEnd: boolean, render?: WatchSpec['renderBookmark']): string {
  const metadata: Record<string, unknown> = { resourceVersion: rv };
  if (initialEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
  const object = render ? render(metadata) : { kind: res.kind, apiVersion: groupVersion(res), metadata };
  return JSON.stringify({ type: 'BOOKMARK', object });
}

/** Query strings of list and watch requests, with only the parameters that are set. */
import type { ListOptions, WatchOptions } from './types.ts';

/** `?limit=500&continue=…` for a list. */
export function listQuery(o: ListOptions): string {
  return query({ limit: o.limit, continue: o.continue, resourceVersion: o.resourceVersion, resourceVersionMatch: o.resourceVersionMatch, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, timeoutSeconds: o.timeoutSeconds });
}

/** `?watch=true&resourceVersion=…` for a watch. */
export function watchQuery(o: WatchOptions): string {
  return query({
    watch: true, resourceVersion: o.resourceVersion, resourceVersionMatch: o.resourceVersionMatch, allowWatchBookmarks: o.allowWatchBookmarks,
    timeoutSeconds: o.timeoutSeconds, sendInitialEvents: o.sendInitialEvents, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector,
  });
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    // An empty resourceVersion is meaningful for streaming lists ("any"); other empty strings are dropped.
    if (v === undefined || v === false || (v === '' && k !== 'resourceVersion')) continue;
    parts.push(`${k}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

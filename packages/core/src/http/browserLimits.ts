/**
 * What a browser changes for an HTTP ListerWatcher: a browser holds at most 6 HTTP/1.1 connections
 * per origin (Chromium, Firefox and Safari alike), and queues every further request until one is
 * free. Each open watch keeps a connection for minutes, so a page's 7th informer waits in that
 * queue, `connecting`. Over HTTP/2 every request of an origin shares one connection, with no
 * such limit in practice (100 or more streams at a time).
 */

/**
 * The time limit on a watch's response headers in a browser (`watchOpenTimeoutMs` of
 * `fetchListerWatcher` there), 10 s: the API server answers a watch at once, so a watch not open
 * by then is queued behind the connection limit or held by a proxy, and its informer says so
 * (`RequestTimeoutError`, reason `WatchNotOpened`) instead of waiting the 90 s of Node.
 */
export const BROWSER_WATCH_OPEN_TIMEOUT_MS = 10_000;

/**
 * True in a browser: a page (it has a `document`) or a worker (`WorkerGlobalScope`), where
 * requests share the per-origin connection limit. False in Node, Deno and Bun.
 *
 * @example
 * const watchOpenTimeoutMs = inBrowser() ? BROWSER_WATCH_OPEN_TIMEOUT_MS : undefined;
 */
export function inBrowser(): boolean {
  const g = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return g.document !== undefined || g.WorkerGlobalScope !== undefined;
}

/**
 * What a request that got no answer in time may be waiting for, in a browser (the connection
 * limit); undefined elsewhere. The end of a `RequestTimeoutError`'s message.
 */
export function waitHint(): string | undefined {
  if (!inBrowser()) return undefined;
  return (
    'the usual cause in a browser: at most 6 HTTP/1.1 connections per origin, each open watch keeping one, so further ' +
    'requests wait for a free one; serve the API over HTTP/2 (one connection for every request), or use fewer informers per origin'
  );
}

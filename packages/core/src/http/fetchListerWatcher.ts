/**
 * A ListerWatcher over `fetch`, with no Node-only imports: for browsers (through `kubectl proxy` or
 * an app's backend) and for Node's global fetch. The decoding is shared with every other HTTP
 * ListerWatcher (see `httpListerWatcher`).
 */
import { InvalidOptionsError } from '../errors.ts';
import { BROWSER_WATCH_OPEN_TIMEOUT_MS, inBrowser } from './browserLimits.ts';
import type { HttpGet, HttpResponse } from './httpGet.ts';
import { httpListerWatcher } from './httpListerWatcher.ts';
import type { HttpLimitOptions } from './httpLimits.ts';
import { resourcePath } from './listWatchQuery.ts';
import type { KubeObject, ListerWatcher, ResourceDescriptor } from '../types.ts';

/**
 * Options of `fetchListerWatcher`: a `path`, or a `resource` (with an optional `namespace`), and the
 * limits of `HttpLimitOptions` (response timeout, largest watch line and list body).
 */
export interface FetchListerWatcherOptions<T extends KubeObject = KubeObject> extends HttpLimitOptions {
  /** The API server (or proxy) URL, e.g. `http://127.0.0.1:8001` or `/k8s` behind an app's backend. Required. */
  baseUrl: string;
  /** The collection path, e.g. `/api/v1/pods`. Default: built from `resource` and `namespace`. */
  path?: string;
  /** The resource to list and watch, when no `path` is given. */
  resource?: ResourceDescriptor<T>;
  /** The namespace of a namespaced `resource`. Default: all namespaces. */
  namespace?: string;
  /** Label selector on every list and watch. Default: none. */
  labelSelector?: string;
  /** Field selector on every list and watch. Default: none. */
  fieldSelector?: string;
  /** Ask for `PartialObjectMetadata` only. Default: the `resource`'s `metadataOnly` (see `metadataOnly()`), else false. */
  metadataOnly?: boolean;
  /** Ask for the server's Table rows (`TableRowObject`s). Default: the `resource`'s `table` (see `tableRows()`), else false. */
  table?: boolean;
  /** Extra headers on every request (e.g. `Authorization`). Default: none. */
  headers?: Record<string, string>;
  /** Extra `RequestInit` fields on every request (e.g. `credentials: 'include'`). Default: none. */
  init?: Omit<RequestInit, 'signal' | 'headers' | 'method' | 'body'>;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * Lists and watches one collection with fetch. Unsubscribing aborts the request; HTTP errors are
 * `KubeApiError`s, a malformed watch line a `WatchDecodeError`, a failed connection a `NetworkError`
 * (fetch's `TypeError` as its `cause`), a list's headers later than `responseTimeoutMs` a
 * `RequestTimeoutError`, a watch's later than `watchOpenTimeoutMs` one with reason
 * `WatchNotOpened`, a watch line or list body over its limit a `ResponseTooLargeError`. A watch
 * emits `WATCH_OPENED` when its headers are in: its informer is `connecting` until then.
 *
 * Caveat: browsers hold 6 connections per origin over HTTP/1.1, and every informer keeps one watch
 * open: serve the API over HTTP/2, or keep to 5 informers per origin (a 6th connection stays for
 * lists and writes). In a browser `watchOpenTimeoutMs` defaults to 10 s
 * (`BROWSER_WATCH_OPEN_TIMEOUT_MS`), so a watch queued behind the limit says so on `status$`
 * within seconds; the message of its error names the limit.
 *
 * @example
 * const lw = fetchListerWatcher<Wire<V1Pod>>({ baseUrl: 'http://127.0.0.1:8001', resource: pods, namespace: 'default' });
 * const informer = createSharedInformer(lw);
 */
export function fetchListerWatcher<T extends KubeObject = KubeObject>(options: FetchListerWatcherOptions<T>): ListerWatcher<T> {
  if (!options || typeof options.baseUrl !== 'string') throw new InvalidOptionsError('fetchListerWatcher needs a baseUrl');
  if (!options.path && !options.resource) throw new InvalidOptionsError('fetchListerWatcher needs a path or a resource');
  const path = options.path ?? resourcePath(options.resource!, options.namespace);
  const metadataOnly = options.metadataOnly ?? options.resource?.metadataOnly === true;
  // A page gives up on a watch sooner (see `BROWSER_WATCH_OPEN_TIMEOUT_MS`), unless told otherwise.
  const watchOpenTimeoutMs = options.watchOpenTimeoutMs ?? (inBrowser() ? BROWSER_WATCH_OPEN_TIMEOUT_MS : undefined);
  const table = options.table ?? options.resource?.table === true;
  // The selectors and the limits, as they are: httpListerWatcher reads only its own fields.
  return httpListerWatcher<T>(fetchGet(options), { ...options, path, metadataOnly, table, watchOpenTimeoutMs });
}

/**
 * The `HttpGet` of a base URL over fetch.
 *
 * @example
 * const lw = httpListerWatcher<Wire<V1Pod>>(fetchGet({ baseUrl: 'http://127.0.0.1:8001' }), { path: '/api/v1/pods' });
 */
export function fetchGet(options: Pick<FetchListerWatcherOptions, 'baseUrl' | 'headers' | 'init' | 'fetch'>): HttpGet {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { Accept: 'application/json', ...options.headers };
  return async (pathAndQuery, signal, _kind, accept) =>
    fetchResponse(
      await doFetch(base + pathAndQuery, {
        ...options.init,
        method: 'GET',
        headers: accept ? { ...headers, Accept: accept } : headers,
        signal,
      }),
    );
}

/** A fetch `Response` as an `HttpResponse` (its body read through `readBody`, bounded). @internal */
export function fetchResponse(r: Response): HttpResponse {
  return {
    status: r.status,
    header: (name) => r.headers.get(name) ?? undefined,
    chunks: () => readerChunks(r.body),
  };
}

/**
 * The chunks of a fetch `Response` body, read through its reader (`for await` over a
 * ReadableStream is not in every browser); none for a null body. Leaving early (a `break`, a
 * thrown error, a body over its limit) cancels the stream, so the connection is freed.
 *
 * @example
 * const r = await fetch(url);
 * for await (const chunk of readerChunks(r.body)) bytes += chunk.byteLength;
 */
export async function* readerChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Early exit (unsubscribe, decode error): release the stream so the connection is freed.
    reader.cancel().catch(() => undefined);
  }
}

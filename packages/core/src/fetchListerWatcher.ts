/**
 * A ListerWatcher over `fetch`, with no Node-only imports: for browsers (through `kubectl proxy` or
 * an app's backend) and for Node 22's global fetch.
 */
import { Observable } from 'rxjs';
import { apiErrorFromResponse } from './httpErrors.ts';
import { listQuery, watchQuery } from './listWatchQuery.ts';
import type { KubeObject, ListerWatcher, ListPage, WatchEvent } from './types.ts';
import { decodeListPage, decodeWatchLine, lineSplitter } from './watchDecoder.ts';

/** Options of `fetchListerWatcher`. */
export interface FetchListerWatcherOptions {
  /** The API server (or proxy) URL, e.g. `http://127.0.0.1:8001`. */
  baseUrl: string;
  /** The collection path, e.g. `/api/v1/pods` or `/apis/apps/v1/namespaces/default/deployments`. */
  path: string;
  /** Extra headers on every request (e.g. `Authorization`). Default: none. */
  headers?: Record<string, string>;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * Lists and watches one collection with fetch. Unsubscribing aborts the request; HTTP errors are
 * `KubeApiError`s, a malformed watch line a `WatchDecodeError`.
 *
 * @example
 * const lw = fetchListerWatcher<V1Pod>({ baseUrl: 'http://127.0.0.1:8001', path: '/api/v1/pods' });
 * const pods = createSharedInformer(lw);
 */
export function fetchListerWatcher<T extends KubeObject = KubeObject>(options: FetchListerWatcherOptions): ListerWatcher<T> {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const url = options.baseUrl.replace(/\/$/, '') + options.path;
  const request = (q: string, signal: AbortSignal) => doFetch(url + q, { headers: { Accept: 'application/json', ...options.headers }, signal });
  const failed = async (r: Response) => apiErrorFromResponse(r.status, await r.text().catch(() => ''), r.headers.get('Retry-After'));

  return {
    list: (listOptions) => new Observable<ListPage<T>>((subscriber) => {
      const ac = new AbortController();
      (async () => {
        const r = await request(listQuery(listOptions), ac.signal);
        if (!r.ok) throw await failed(r);
        subscriber.next(decodeListPage<T>(await r.json()));
        subscriber.complete();
      })().catch((e: unknown) => { if (!ac.signal.aborted) subscriber.error(e); });
      return () => ac.abort();
    }),
    watch: (watchOptions) => new Observable<WatchEvent<T>>((subscriber) => {
      const ac = new AbortController();
      (async () => {
        const r = await request(watchQuery(watchOptions), ac.signal);
        if (!r.ok) throw await failed(r);
        if (!r.body) { subscriber.complete(); return; }
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        const split = lineSplitter();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const line of split(value)) {
            subscriber.next(decodeWatchLine<T>(line));
            if (subscriber.closed) return;
          }
        }
        subscriber.complete();
      })().catch((e: unknown) => { if (!ac.signal.aborted) subscriber.error(e); });
      return () => ac.abort();
    }),
  };
}

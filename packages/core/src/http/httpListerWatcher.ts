/**
 * The HTTP ListerWatcher over a minimal transport: every HTTP client (fetch in browsers, undici
 * under client-node) supplies only "GET this URL", and shares the query building, the list and
 * watch decoding, the error mapping, the limits (`httpLimits.ts`) and the abort-on-unsubscribe
 * behaviour written here.
 */
import { Observable } from 'rxjs';
import { InvalidOptionsError, NetworkError } from '../errors.ts';
import { checkSelectors } from '../labels/fieldSelector.ts';
import { checkRequestPath } from '../pathSegment.ts';
import { apiErrorFromResponse } from './httpErrors.ts';
import type { HttpGet, HttpResponse } from './httpGet.ts';
import {
  answerWithin,
  bodyChunks,
  errorBody,
  readBody,
  readBodyBytes,
  resolveHttpLimits,
  type HttpLimitOptions,
  type ResolvedHttpLimits,
} from './httpLimits.ts';
import { listQuery, watchQuery } from './listWatchQuery.ts';
import { PARTIAL_OBJECT_METADATA_ACCEPT } from '../partialObjectMetadata.ts';
import { TABLE_ACCEPT } from '../tableRow.ts';
import {
  WATCH_OPENED,
  type KubeObject,
  type ListerWatcher,
  type ListOptions,
  type ListPage,
  type WatchEvent,
  type WatchItem,
  type WatchOptions,
} from '../types.ts';
import { createTableCodec } from './tableRows.ts';
import { createWatchDecoder, parseListBody, type WatchDecoder } from './watchDecoder.ts';

/** Options of `httpListerWatcher`: the collection, its selectors, and the limits (`HttpLimitOptions`). */
export interface HttpListerWatcherOptions extends HttpLimitOptions {
  /** The collection path, e.g. `/api/v1/namespaces/default/pods`. Required. */
  path: string;
  /**
   * Label selector of every list and watch: where an informer's scope goes. ANDed with one a
   * request carries (a wrapping ListerWatcher's, like the shard ring's own label). Default: none.
   */
  labelSelector?: string;
  /** Field selector of every list and watch, ANDed with one a request carries. Default: none. */
  fieldSelector?: string;
  /**
   * Ask for `PartialObjectMetadata` (`PARTIAL_OBJECT_METADATA_ACCEPT`): each object's metadata only.
   * Default false. A descriptor made by `metadataOnly()` sets it in the ListerWatchers built from one.
   */
  metadataOnly?: boolean;
  /**
   * Ask for the server's Table rows (`Accept: …as=Table…`, `includeObject=Metadata`), each kept as
   * a `TableRowObject` (its metadata and cells by column name). Default false. A descriptor made by
   * `tableRows()` sets it in the ListerWatchers built from one. Not with `metadataOnly`.
   */
  table?: boolean;
  /**
   * A binary wire to ask for besides JSON (client-node's protobuf): its `accept` goes out on every
   * list and watch, and each answer is decoded by its `Content-Type`, the codec's or JSON (a
   * server may answer JSON, as kube-apiserver does for custom resources). Not with `metadataOnly`
   * or `table`. Default: JSON only.
   */
  codec?: WireCodec;
}

/**
 * A wire besides JSON for lists and watches, chosen by each answer's `Content-Type`: what an
 * `httpListerWatcher` needs to read it. Limits are the JSON path's: a list body within
 * `maxListBodyBytes`, a watch frame within `maxWatchLineBytes`.
 */
export interface WireCodec {
  /** The `Accept` header of lists and watches, e.g. `application/vnd.kubernetes.protobuf, application/json`. */
  readonly accept: string;
  /** The media type its answers carry (parameters aside), e.g. `application/vnd.kubernetes.protobuf`. */
  readonly mediaType: string;
  /** A list page from a whole body (items with their `apiVersion` and `kind`, as the JSON path gives them). */
  list(body: Uint8Array): ListPage<KubeObject>;
  /** The list's continue token, read from the body's first bytes (for the prefetch of the next page). */
  peekContinue(body: Uint8Array): string | undefined;
  /** A decoder of one watch stream (its `push` takes byte chunks). */
  watch(maxFrameBytes: number): WatchDecoder;
  /** An error answer's Status body as JSON text, for `apiErrorFromResponse` (`''` when it is none). */
  statusText(body: Uint8Array): string;
}

/**
 * A ListerWatcher over any HTTP transport. Lists parse the body as JSON (`InvalidObjectError` when
 * it is not a list); watches decode the stream line by line (`WatchDecodeError` for a malformed
 * line); non-2xx answers are `KubeApiError`s with the Status and `Retry-After`; a connection that
 * fails is a `NetworkError`, but a watch stream the network cuts after the server answered simply
 * ends, like a clean close (the reflector re-watches); a list's response headers later than
 * `responseTimeoutMs` a `RequestTimeoutError`, a watch's later than `watchOpenTimeoutMs` a
 * `WatchConnectTimeoutError`; a list body or watch line over its limit a `ResponseTooLargeError`.
 * A watch emits `WATCH_OPENED` as soon as its answer's headers are in, before any event.
 * Unsubscribing, or any of these errors, aborts the request. Invalid limits, and selectors the API
 * server would refuse, throw `InvalidOptionsError` here; a path with a `.` or `..` segment (which a
 * URL parser would resolve to another collection) `InvalidPathSegmentError`.
 *
 * Caveat: the selectors given here apply to list and watch alike; a selector on only one of them
 * would corrupt the cache.
 *
 * @example
 * const lw = httpListerWatcher<Wire<V1Pod>>(myGet, { path: '/api/v1/pods', labelSelector: 'app=web', responseTimeoutMs: 30_000 });
 */
export function httpListerWatcher<T extends KubeObject = KubeObject>(get: HttpGet, options: HttpListerWatcherOptions): ListerWatcher<T> {
  const limits = resolveHttpLimits(options);
  checkSelectors(options);
  if (typeof options?.path !== 'string' || options.path === '') throw new InvalidOptionsError('httpListerWatcher needs a path');
  checkRequestPath(options.path);
  if (options.metadataOnly === true && options.table === true)
    throw new InvalidOptionsError('a ListerWatcher asks for metadata only or for Table rows, not both');
  const codec = options.codec;
  if (codec !== undefined && (options.metadataOnly === true || options.table === true))
    throw new InvalidOptionsError('a wire codec is for whole objects: not with metadataOnly or table');
  const table = options.table === true ? createTableCodec() : undefined;
  const accept = table
    ? { list: TABLE_ACCEPT, watch: TABLE_ACCEPT }
    : options.metadataOnly === true
      ? PARTIAL_OBJECT_METADATA_ACCEPT
      : codec && { list: codec.accept, watch: codec.accept };
  const http: Http = {
    send: (url, signal, kind) => answerWithin(get, url, signal, kind, limits, accept?.[kind]),
    failed: async (r, url) => apiErrorFromResponse(r.status, await failedBody(r, url, codec), r.header('retry-after')),
    limits,
    parse: table ? (text) => table.page(text) : parseListBody,
    convert: table && (() => table.stream()),
    codec,
  };
  // Table rows need their objects' metadata: their keys, uids and resource versions.
  const rows = table ? 'includeObject=Metadata' : '';
  const withRows = (url: string) => (rows === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${rows}`);
  const selected = <O extends ListOptions | WatchOptions>(o: O): O => ({
    ...o,
    labelSelector: andSelectors(options.labelSelector, o.labelSelector),
    fieldSelector: andSelectors(options.fieldSelector, o.fieldSelector),
  });
  return {
    list: pagedLister<T>(http, (o) => withRows(options.path + listQuery(selected(o)))),
    watch: streamWatcher<T>(http, (o) => withRows(options.path + watchQuery(selected(o)))),
    watchList: true,
  };
}

/** What lists and watches share: a request with its time limit, the error of a non-2xx answer, the limits. */
interface Http {
  send(url: string, signal: AbortSignal, kind: 'list' | 'watch'): Promise<HttpResponse>;
  failed(r: HttpResponse, url: string): Promise<Error>;
  limits: ResolvedHttpLimits;
  /** A list page from its body's text. */
  parse(text: string): ListPage<KubeObject>;
  /** Makes the converter of one watch stream's events (Table rows), if they need one. */
  convert?: () => (event: WatchEvent, emit: (event: WatchEvent) => boolean | void) => boolean;
  /** The wire besides JSON, if one is asked for. */
  codec?: WireCodec;
}

/** Whether `r` is in the codec's media type (rather than JSON). */
function inCodec(r: HttpResponse, codec: WireCodec | undefined): codec is WireCodec {
  return codec !== undefined && (r.header('content-type') ?? '').startsWith(codec.mediaType);
}

/** The text of an error answer: its JSON, or the codec's Status as JSON. */
async function failedBody(r: HttpResponse, url: string, codec: WireCodec | undefined): Promise<string> {
  if (!inCodec(r, codec)) return errorBody(r, url);
  try {
    return codec.statusText(await readBodyBytes(r, url, 'errorBody'));
  } catch {
    return '';
  }
}

/**
 * The `watch` of an HTTP ListerWatcher: `WATCH_OPENED` once a 2xx answer's headers are in, then the
 * events of the stream, decoded line by line.
 */
function streamWatcher<T extends KubeObject>(http: Http, pathOfWatch: (o: WatchOptions) => string): ListerWatcher<T>['watch'] {
  return (watchOptions) =>
    abortable<WatchItem<T>>(async (signal, emit) => {
      const url = pathOfWatch(watchOptions);
      const r = await http.send(url, signal, 'watch');
      if (r.status < 200 || r.status > 299) throw await http.failed(r, url);
      if (!emit(WATCH_OPENED)) return;
      const decoder = inCodec(r, http.codec)
        ? (http.codec.watch(http.limits.maxWatchLineBytes) as WatchDecoder<T>)
        : createWatchDecoder<T>({ maxLineBytes: http.limits.maxWatchLineBytes });
      const convert = http.convert?.();
      const deliver = convert ? (e: WatchEvent<T>) => convert(e, emit as (e: WatchEvent) => boolean) : emit;
      try {
        for await (const chunk of bodyChunks(r, url)) {
          if (!decoder.push(chunk, deliver)) return;
        }
      } catch (e) {
        // The network cut a stream the server had started (reset, closed, terminated): the end of
        // this watch, as client-go's stream watcher takes a probable EOF. A line cut in the middle
        // is dropped; the reflector re-watches from the last resource version, and backs off if
        // such watches keep ending empty.
        if (e instanceof NetworkError) return;
        throw e;
      }
      decoder.end();
    });
}

/**
 * The `list` of an HTTP ListerWatcher: one page per call, the next one requested ahead (`Prefetch`)
 * unless the call says it wants this page only (`singlePage`).
 */
function pagedLister<T extends KubeObject>(http: Http, pathOfList: (o: ListOptions) => string): ListerWatcher<T>['list'] {
  // The next page, requested while this one is parsed; at most one at a time.
  let prefetched: Prefetch | undefined;
  /** The answer to `url`: the prefetch's, if it asked for that, else a new request. */
  const answerTo = (url: string, signal: AbortSignal): Promise<HttpResponse> => {
    if (prefetched?.url !== url) return http.send(url, signal, 'list');
    const adopted = prefetched;
    prefetched = undefined;
    signal.addEventListener('abort', () => adopted.ac.abort(), { once: true });
    return adopted.answer;
  };
  /** Requests the page after the one whose continue token is `token`, in place of any prefetch. */
  const prefetch = (listOptions: ListOptions, token: string): Prefetch => {
    prefetched?.ac.abort();
    const ac = new AbortController();
    const url = pathOfList({ ...listOptions, continue: token, resourceVersion: undefined });
    const answer = http.send(url, ac.signal, 'list');
    answer.catch(() => undefined); // its owner, if any, sees the error
    return (prefetched = { url, ac, answer });
  };
  return (listOptions) =>
    abortable<ListPage<T>>(async (signal, emit) => {
      const url = pathOfList(listOptions);
      const r = await answerTo(url, signal);
      if (r.status < 200 || r.status > 299) throw await http.failed(r, url);
      const codec = inCodec(r, http.codec) ? http.codec : undefined;
      const body = codec
        ? await readBodyBytes(r, url, 'listBody', http.limits.maxListBodyBytes)
        : await readBody(r, url, 'listBody', http.limits.maxListBodyBytes);
      const token = typeof body === 'string' ? peekContinue(body) : codec!.peekContinue(body);
      const mine = token === undefined || listOptions.singlePage === true ? undefined : prefetch(listOptions, token);
      try {
        // One task boundary, so that the transport writes the prefetch request before this page's
        // synchronous parse and hand-over (the consumer's work on 500 objects takes milliseconds).
        if (mine !== undefined) {
          await nextTask(signal);
          if (signal.aborted) return;
        }
        emit((typeof body === 'string' ? http.parse(body) : codec!.list(body)) as ListPage<T>); // a consumer asking for the next page now adopts `mine`
      } finally {
        if (mine !== undefined && prefetched === mine) {
          prefetched = undefined;
          mine.ac.abort(); // not asked for at once: never left running
        }
      }
    });
}

/**
 * A list page requested ahead. When a page has a continue token, the request for the next page goes
 * out before this page is parsed (the page is handed over a task later, once the request has been
 * written), so the server prepares it while the client parses and stores this one; the consumer's
 * request for it (made while this page is handed over, as the reflector does) adopts the answer
 * instead of sending another. A prefetch not asked for by then is aborted at once: it never
 * outlives the page that started it. The adopted request is matched by its full URL, so a wrong
 * guess costs one aborted request and never a wrong page.
 */
interface Prefetch {
  url: string;
  ac: AbortController;
  answer: Promise<HttpResponse>;
}

/**
 * Resolves in a later task, once pending I/O had its turn (the event loop writes queued requests
 * first), or at once, with the task cancelled, when `signal` aborts. See `laterTask`.
 */
function nextTask(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = laterTask(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `fn` in a later macrotask; returns its cancellation. A zero timer, except in a web page: a
 * `MessageChannel` message there, since background tabs throttle timers to one a second. (In Node
 * a zero timer measured best of the three, `setImmediate` no better than no hand-over at all:
 * docs/benchmarks.md, "client-node adapter".)
 */
function laterTask(fn: () => void): () => void {
  const page = globalThis as { document?: unknown; MessageChannel?: typeof MessageChannel };
  if (page.document !== undefined && typeof page.MessageChannel === 'function') {
    const channel = new page.MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      fn();
    };
    channel.port2.postMessage(undefined);
    return () => channel.port1.close();
  }
  const timer = setTimeout(fn, 0);
  return () => clearTimeout(timer);
}

/**
 * The `metadata.continue` of a list body, read from its first bytes without parsing the whole body
 * (servers write `metadata` before `items`). `undefined` when it is not there; a wrong guess only
 * wastes a prefetch.
 */
function peekContinue(body: string): string | undefined {
  // Only the list's own metadata: an item may carry a "continue" key of its own (a label, a field).
  const head = body.slice(0, 4096);
  const itemsAt = Math.min(...['"items"', '"columnDefinitions"', '"rows"'].map((k) => head.indexOf(k)).filter((i) => i >= 0));
  const m = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(Number.isFinite(itemsAt) ? head.slice(0, itemsAt) : head);
  if (!m || !m[1]) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * ANDs two selectors (`a,b`); either may be unset.
 *
 * @example
 * andSelectors('app=web', 'tier!=db'); // 'app=web,tier!=db'
 * andSelectors(undefined, 'app=web');  // 'app=web'
 */
export function andSelectors(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b || undefined;
  if (!b || a === b) return a;
  return `${a},${b}`;
}

/**
 * A cold Observable over an async job with an AbortSignal: `emit` returns false once the
 * subscriber is gone; the job's rejection is the Observable's error unless the subscriber left
 * first (the abort's own error is then swallowed).
 */
function abortable<R>(job: (signal: AbortSignal, emit: (value: R) => boolean) => Promise<void>): Observable<R> {
  return new Observable<R>((subscriber) => {
    const ac = new AbortController();
    const emit = (value: R): boolean => {
      if (subscriber.closed) return false;
      subscriber.next(value);
      return !subscriber.closed;
    };
    job(ac.signal, emit).then(
      () => subscriber.complete(),
      (e: unknown) => {
        if (!ac.signal.aborted) subscriber.error(e);
      },
    );
    return () => ac.abort();
  });
}

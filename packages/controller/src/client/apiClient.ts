/**
 * The implementations of the write contract (`ApiClient`, declared in core, which leader election
 * writes through too): `fetchApiClient` (browsers and Node's fetch) and, in
 * @rxinformer/client-node, `kubeApiClient(kubeConfig)`; both are `httpApiClient` over a function
 * that sends one HTTP request.
 */
import { InvalidObjectError, InvalidOptionsError } from '@rxinformer/core';
import {
  bodyExcerpt,
  checkRequestPath,
  errorBody,
  networkErrorFrom,
  readBody,
  readerChunks,
  type ApiClient,
  type ApiMethod,
  type ApiRequest,
  type HttpResponse,
} from '@rxinformer/core/http';
import { ApiError } from './apiError.ts';

export type { ApiClient, ApiMethod, ApiRequest } from '@rxinformer/core/http';

/** One HTTP request as `httpApiClient` sends it: the path carries the query, the body is text. */
export interface HttpRequest {
  /** The method. */
  method: ApiMethod;
  /** Path and query, e.g. `/api/v1/namespaces/a/configmaps/x?fieldManager=me`. */
  pathAndQuery: string;
  /** The body's text, if any. */
  body?: string;
  /** The body's media type, when there is a body. */
  contentType?: string;
  /** Ends the request (and its body) when aborted. */
  signal: AbortSignal;
}

/** Sends one HTTP request; resolves once the answer's headers arrived. */
export type HttpRequestSend = (req: HttpRequest) => Promise<HttpResponse>;

/**
 * The `ApiClient` over any HTTP client: `send` sends one request. An error answer is an `ApiError`
 * (with its Status), a failed connection a core `NetworkError`, an answer that is not JSON an
 * `InvalidObjectError`; bodies are bounded as core's readers bound them (4 MiB for one object).
 * A path with a `.` or `..` segment (or `%2e` for a dot) rejects with `InvalidPathSegmentError`,
 * unsent: fetch and undici resolve them, so the request would reach the collection or namespace.
 *
 * @example
 * const client = httpApiClient(async ({ method, pathAndQuery, body, contentType, signal }) => mySend(...));
 */
export function httpApiClient(send: HttpRequestSend): ApiClient {
  if (typeof send !== 'function') throw new InvalidOptionsError('httpApiClient needs a send function');
  return {
    async request<T>(req: ApiRequest): Promise<T> {
      checkRequestPath(req.path); // `.` and `..` segments: a URL parser would send it elsewhere
      const pathAndQuery = req.path + queryString(req.query);
      // The caller's signal aborts ours (no AbortSignal.any: older browsers lack it).
      const done = new AbortController();
      const signal = done.signal;
      const onAbort = () => done.abort(req.signal?.reason);
      if (req.signal?.aborted) onAbort();
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      const contentType = body === undefined ? undefined : (req.contentType ?? 'application/json');
      try {
        let r: HttpResponse;
        let text: string;
        try {
          r = await send({ method: req.method, pathAndQuery, body, contentType, signal });
          const ok = r.status >= 200 && r.status <= 299;
          text = ok ? await readBody(r, pathAndQuery, 'objectBody') : await errorBody(r, pathAndQuery);
        } catch (e) {
          throw req.signal?.aborted ? e : networkErrorFrom(e, pathAndQuery);
        }
        if (r.status < 200 || r.status > 299) throw errorOf(r.status, text, `${req.method} ${req.path}`);
        return parseJson(text) as T;
      } finally {
        req.signal?.removeEventListener('abort', onAbort);
        done.abort(); // releases a body left unread
      }
    },
  };
}

/** Options of `fetchApiClient`. */
export interface FetchApiClientOptions {
  /** The API server (or `kubectl proxy`) URL, e.g. `http://127.0.0.1:8001`. Required. */
  baseUrl: string;
  /** Headers on every request (e.g. `Authorization: Bearer …`). Default: none. */
  headers?: Record<string, string>;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The `ApiClient` over fetch: browsers (through a proxy that adds credentials) and Node.
 *
 * @example
 * const client = fetchApiClient({ baseUrl: 'http://127.0.0.1:8001' });
 */
export function fetchApiClient(options: FetchApiClientOptions): ApiClient {
  if (!options || typeof options.baseUrl !== 'string') throw new InvalidOptionsError('fetchApiClient needs a baseUrl');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');
  return httpApiClient(async ({ method, pathAndQuery, body, contentType, signal }) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    const r = await doFetch(base + pathAndQuery, { method, headers, body, signal });
    return { status: r.status, header: (name) => r.headers.get(name) ?? undefined, chunks: () => readerChunks(r.body) };
  });
}

/** `?a=1&b=x`, or `''` when no parameter is set. */
export function queryString(query: ApiRequest['query']): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** The ApiError of an error answer: its Status when the body is one, its text's start otherwise. */
function errorOf(code: number, text: string, request: string): ApiError {
  let status: ApiError['status'];
  try {
    const parsed = JSON.parse(text) as ApiError['status'];
    if (parsed?.kind === 'Status') status = parsed;
  } catch {
    // a proxy's page: its start is the message
  }
  return new ApiError(code, { status, message: status ? undefined : bodyExcerpt(text, 300), request });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidObjectError(`the answer is not JSON: ${bodyExcerpt(text, 100)}`, undefined, { cause });
  }
}

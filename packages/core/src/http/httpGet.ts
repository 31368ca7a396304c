/**
 * The HTTP contract under every HTTP ListerWatcher: an HTTP client (fetch in browsers, undici under
 * client-node) supplies only "GET this URL" and the answer's status, headers and body.
 */

/** One HTTP answer, as much of it as the ListerWatcher reads. */
export interface HttpResponse {
  /** The HTTP status code. */
  readonly status: number;
  /** A response header, by lower-case name. */
  header(name: string): string | undefined;
  /** The body as it arrives, in text or byte chunks (read whole through `readBody`, which bounds it). */
  chunks(): AsyncIterable<string | Uint8Array>;
}

/**
 * Sends `GET pathAndQuery` (e.g. `/api/v1/pods?limit=500`) and resolves with the answer once its
 * headers arrive; the request (and its body) must stop when `signal` aborts. `kind` lets the
 * transport tune timeouts: a watch body may stay silent for minutes. `accept`, when given, is the
 * request's `Accept` header (metadata-only requests); otherwise `application/json`.
 */
export type HttpGet = (pathAndQuery: string, signal: AbortSignal, kind: 'list' | 'watch', accept?: string) => Promise<HttpResponse>;

/**
 * One request on an HTTP/2 connection: its stream opened with the request's headers and body, its
 * answer as core's `HttpResponse` (the body is the stream), and how it ended when no answer came —
 * refused unprocessed (safe to send again), refused for HTTP/1.1, or failed.
 */
import { constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { HttpResponse } from '@rxinformer/core/http';

/** One request as the pool sends it. */
export interface StreamRequest {
  method: string;
  pathAndQuery: string;
  /** Header names in any case (sent lower case, as HTTP/2 requires). */
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /**
   * Longest silence allowed on the stream, in ms, before its answer's headers and (unless `watch`)
   * in its body; past it the stream fails with a `StreamIdleError`.
   */
  idleTimeoutMs: number;
  /** A watch: no limit on the silence of its body (the reflector's own check ends a stalled one). */
  watch: boolean;
}

/** How a stream with no answer ended. */
export type Unanswered =
  /** The server refused it before processing it (REFUSED_STREAM, or past a GOAWAY's last stream): send it again. */
  | { kind: 'refused' }
  /** The server wants HTTP/1.1 for it (HTTP_1_1_REQUIRED). */
  | { kind: 'http1' }
  | { kind: 'failed'; error: unknown };

/** A stream silent for longer than its `idleTimeoutMs` (typed a `NetworkError` by core). */
export class StreamIdleError extends Error {
  /** Always `StreamIdleError`: set as a string, so it survives minification. */
  override readonly name: string = 'StreamIdleError';
  /** The code core's `networkErrorFrom` reports on the `NetworkError`. */
  readonly code = 'ERR_HTTP2_STREAM_IDLE';

  constructor(ms: number) {
    super(`the HTTP/2 stream was silent for ${ms} ms`);
  }
}

/** What the pool hears of a stream. */
export interface StreamEvents {
  /** The answer's headers arrived. */
  answered(response: HttpResponse): void;
  /** The stream ended without an answer. */
  unanswered(how: Unanswered): void;
  /** The stream's slot is free: both sides ended it, or it closed (after either of the above); once. */
  closed(): void;
}

/**
 * Opens the stream of `r` on `session` (which must be able to take one) and reports on it. Throws
 * what `session.request` throws (a session closing meanwhile).
 *
 * @example
 * sendOnStream(session, { method: 'GET', pathAndQuery: '/version', headers, signal, idleTimeoutMs: 300_000, watch: false }, events);
 */
export function sendOnStream(session: ClientHttp2Session, r: StreamRequest, events: StreamEvents): ClientHttp2Stream {
  const headers: Record<string, string> = { ':method': r.method, ':path': r.pathAndQuery };
  for (const [name, value] of Object.entries(r.headers)) headers[name.toLowerCase()] = value;
  const stream = session.request(headers, { endStream: r.body === undefined, signal: r.signal });
  let answered = false;
  let failure: unknown;
  stream.setTimeout(r.idleTimeoutMs, () => stream.destroy(new StreamIdleError(r.idleTimeoutMs)));
  stream.on('error', (error: Error) => {
    failure ??= error; // kept for `unanswered`; a body's reader sees it too
  });
  stream.once('response', (h: IncomingHttpHeaders) => {
    answered = true;
    if (r.watch) stream.setTimeout(0);
    events.answered(responseOf(stream, h));
  });
  // The slot is free once both sides have ended the stream (the server's END_STREAM is read, so
  // nghttp2 has closed it): a list's last page read frees it for the watch that follows at once,
  // where 'close' comes a turn later and would have the pool open a connection for that watch.
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    events.closed();
  };
  stream.once('end', () => (stream.writableFinished ? free() : stream.once('finish', free)));
  stream.once('close', () => {
    if (!answered) events.unanswered(unansweredOf(stream.rstCode, failure, r.signal));
    free();
  });
  if (r.body !== undefined) stream.end(r.body);
  return stream;
}

function unansweredOf(rstCode: number | undefined, failure: unknown, signal: AbortSignal): Unanswered {
  if (signal.aborted) return { kind: 'failed', error: failure ?? signal.reason };
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return { kind: 'refused' };
  if (rstCode === constants.NGHTTP2_HTTP_1_1_REQUIRED) return { kind: 'http1' };
  return {
    kind: 'failed',
    error: failure ?? Object.assign(new Error(`the HTTP/2 stream closed with code ${rstCode}`), { code: 'ERR_HTTP2_STREAM_ERROR' }),
  };
}

function responseOf(stream: ClientHttp2Stream, headers: IncomingHttpHeaders): HttpResponse {
  return {
    status: Number(headers[':status']),
    header: (name) => {
      const v = headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
    chunks: () => stream,
  };
}

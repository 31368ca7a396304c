/**
 * What the HTTP clients accept from a server and how long they wait for it: a time limit on the
 * response headers (on an RxJS scheduler), a size limit on every body read whole (`readBody`: lists,
 * objects such as Leases, discovery answers, errors) and on watch lines, and the typing of every
 * transport failure as a `NetworkError`. A server, proxy or network that misbehaves then costs a
 * typed error and a retry, never an unbounded wait or an unbounded buffer.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { checkNumber, checkScheduler, RequestTimeoutError, ResponseTooLargeError, type ResponsePart } from '../errors.ts';
import { networkErrorFrom } from './httpErrors.ts';
import type { HttpGet, HttpResponse } from './httpGet.ts';
import { checkDuration } from '../time/duration.ts';
import { scheduleAfter } from '../time/longTimer.ts';
import { waitHint } from './browserLimits.ts';
import { DEFAULT_MAX_WATCH_LINE_BYTES } from './watchDecoder.ts';

/**
 * The default time limit on a list or watch response's headers, 90 s: the API server ends a request
 * it cannot answer within its `--request-timeout` (60 s by default) with a 504, and sends a watch's
 * headers at once, so only a dead connection or a stuck proxy waits longer.
 */
export const DEFAULT_RESPONSE_TIMEOUT_MS = 90_000;

/**
 * The default largest list body, 256 MiB: a page of 500 objects of 100 KiB each is ~50 MiB, and a
 * body twice the size of the largest string JavaScript can hold (~512 MiB) could never be parsed.
 * An unpaged list (`initialListResourceVersion: '0'` is served unpaged) of a large cluster may need
 * more.
 */
export const DEFAULT_MAX_LIST_BODY_BYTES = 256 * 1024 * 1024;

/**
 * The largest body of each kind read whole, in bytes; the one place these limits are decided.
 * - `listBody`: `DEFAULT_MAX_LIST_BODY_BYTES` (256 MiB), the default of an HTTP ListerWatcher's
 *   `maxListBodyBytes`; also what `KubeTransport.getJson` reads by default.
 * - `objectBody`: 4 MiB, one object or document (a Lease, a discovery `APIResourceList`): the API
 *   server refuses request bodies over 3 MiB and etcd stores values up to 1.5 MiB, so no object it
 *   serves comes near; a Lease is usually under 2 KiB.
 * - `errorBody`: 1 MiB, an error answer read for its Status; a larger one gives the error without it.
 */
export const MAX_BODY_BYTES: Readonly<Record<Exclude<ResponsePart, 'watchLine'>, number>> = Object.freeze({
  listBody: DEFAULT_MAX_LIST_BODY_BYTES,
  objectBody: 4 * 1024 * 1024,
  errorBody: 1024 * 1024,
});

/** Limits of an HTTP ListerWatcher. Each must be a finite number > 0: there is no "off", give a large value. */
export interface HttpLimitOptions {
  /**
   * Time limit, in ms, from sending a list or watch request to its response headers; past it the
   * request is aborted with a `RequestTimeoutError`. A watch's body may then stay silent for as
   * long as it likes (the reflector's idle check covers it). Raise it with the API server's
   * `--request-timeout`; any length is waited out (past a JavaScript timer's 24.8 days too).
   * Default `DEFAULT_RESPONSE_TIMEOUT_MS` (90 s).
   */
  responseTimeoutMs?: number;
  /**
   * Time limit, in ms, from sending a watch request to its response headers: the watch is
   * `connecting` until they arrive; past it the request is aborted with a `RequestTimeoutError`
   * (`reason` `WatchNotOpened`) and the reflector backs off and watches again. A browser may hold
   * the request back (6 HTTP/1.1 connections per origin, each open watch keeping one), and the API
   * server answers a watch at once, so a page gives up sooner than Node. Default
   * `responseTimeoutMs`; `fetchListerWatcher` in a browser: `BROWSER_WATCH_OPEN_TIMEOUT_MS` (10 s).
   * Any length is waited out, as `responseTimeoutMs`.
   */
  watchOpenTimeoutMs?: number;
  /**
   * The longest watch line (one event) accepted, in bytes; a longer one aborts the watch with a
   * `ResponseTooLargeError`. Default `DEFAULT_MAX_WATCH_LINE_BYTES` (16 MiB).
   */
  maxWatchLineBytes?: number;
  /**
   * The largest list body accepted, in bytes; a larger one (by its `Content-Length`, or as it
   * arrives) aborts the list with a `ResponseTooLargeError`. Default `DEFAULT_MAX_LIST_BODY_BYTES`
   * (256 MiB).
   */
  maxListBodyBytes?: number;
  /** Where the response timeout runs: a `TestScheduler` or `VirtualTimeScheduler` controls it. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** `HttpLimitOptions` with every default filled in. */
export type ResolvedHttpLimits = Required<HttpLimitOptions>;

/**
 * Validates the limits and fills in their defaults; throws `InvalidOptionsError` for a value that
 * is not a finite number > 0 (`NaN`, `Infinity`, `0`, a negative number, a string).
 *
 * @example
 * resolveHttpLimits({ responseTimeoutMs: 10_000 }).maxWatchLineBytes; // 16777216
 * resolveHttpLimits({ maxListBodyBytes: -1 });                         // throws InvalidOptionsError
 */
export function resolveHttpLimits(options: HttpLimitOptions = {}): ResolvedHttpLimits {
  const scheduler = options.scheduler ?? asyncScheduler;
  checkScheduler(scheduler);
  // Any length: answerWithin waits it out on scheduleAfter.
  const responseTimeoutMs = checkDuration('responseTimeoutMs', options.responseTimeoutMs, DEFAULT_RESPONSE_TIMEOUT_MS, { exclusive: true });
  return {
    responseTimeoutMs,
    watchOpenTimeoutMs: checkDuration('watchOpenTimeoutMs', options.watchOpenTimeoutMs, responseTimeoutMs, { exclusive: true }),
    maxWatchLineBytes: checkNumber('maxWatchLineBytes', options.maxWatchLineBytes, DEFAULT_MAX_WATCH_LINE_BYTES, 0, { exclusive: true }),
    maxListBodyBytes: checkNumber('maxListBodyBytes', options.maxListBodyBytes, DEFAULT_MAX_LIST_BODY_BYTES, 0, { exclusive: true }),
    scheduler,
  };
}

/**
 * `get(path)` with its response headers due within `limits.responseTimeoutMs` (a watch's within
 * `watchOpenTimeoutMs`): past it the request is aborted and the answer rejects with a
 * `RequestTimeoutError` (`reason` `WatchNotOpened` for a watch). Aborting `signal` aborts the
 * request (and its body, later). Every other failure is typed with `networkErrorFrom`.
 * @internal
 */
export function answerWithin(
  get: HttpGet,
  path: string,
  signal: AbortSignal,
  kind: 'list' | 'watch',
  limits: ResolvedHttpLimits,
  accept?: string,
): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const ac = new AbortController();
    // Stays linked after the headers: the body is read on the same signal.
    if (signal.aborted) ac.abort(signal.reason);
    else signal.addEventListener('abort', () => ac.abort(signal.reason), { once: true });
    const ms = kind === 'watch' ? limits.watchOpenTimeoutMs : limits.responseTimeoutMs;
    const timer = scheduleAfter(limits.scheduler, ms, () => {
      const error = new RequestTimeoutError(path, ms, { reason: kind === 'watch' ? 'WatchNotOpened' : 'Timeout', hint: waitHint() });
      reject(error);
      ac.abort(error);
    });
    // A transport that throws instead of rejecting is typed the same way.
    new Promise<HttpResponse>((sent) => sent(accept === undefined ? get(path, ac.signal, kind) : get(path, ac.signal, kind, accept))).then(
      (r) => {
        timer.unsubscribe();
        resolve(r);
      },
      (e: unknown) => {
        timer.unsubscribe();
        reject(networkErrorFrom(e, path));
      },
    );
  });
}

/** The chunks of a body, a failure to read them typed with `networkErrorFrom`. @internal */
export async function* bodyChunks(r: HttpResponse, path: string): AsyncGenerator<string | Uint8Array> {
  const chunks = r.chunks()[Symbol.asyncIterator]();
  try {
    for (;;) {
      let step: IteratorResult<string | Uint8Array>;
      try {
        step = await chunks.next();
      } catch (e) {
        throw networkErrorFrom(e, path);
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Left early (a limit passed, an unsubscribe): release the body and its connection.
    await chunks.return?.()?.catch(() => undefined);
  }
}

/**
 * The whole body as text, refused with a `ResponseTooLargeError` for `part` once it passes
 * `maxBytes` (by its `Content-Length` before reading, or as it arrives); what was read is dropped,
 * and the body left for the caller's abort to release (a body left in the middle is released at
 * once). Every body read whole goes through it: lists, Leases, discovery, errors.
 *
 * @example
 * const r = await get('/apis/coordination.k8s.io/v1/namespaces/default/leases/x', signal, 'list');
 * const lease = JSON.parse(await readBody(r, path, 'objectBody')); // ResponseTooLargeError past 4 MiB
 */
export async function readBody(
  r: HttpResponse,
  path: string,
  part: Exclude<ResponsePart, 'watchLine'>,
  maxBytes: number = MAX_BODY_BYTES[part],
): Promise<string> {
  const parts = await collectBody(r, path, part, maxBytes);
  const utf8 = new TextDecoder(); // replaces invalid bytes and drops a byte-order mark, as Response.text() does
  if (parts.every((p) => typeof p !== 'string')) return utf8.decode(concatBytes(parts as Uint8Array[]));
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : utf8.decode(part, { stream: true });
  return text + utf8.decode();
}

/**
 * The whole body as bytes, bounded as `readBody` bounds it: for the bodies a binary wire decodes
 * (client-node's protobuf). Text chunks (a transport that decodes) are encoded back to UTF-8.
 *
 * @example
 * const page = decodeProtobufList(await readBodyBytes(r, path, 'listBody'));
 */
export async function readBodyBytes(
  r: HttpResponse,
  path: string,
  part: Exclude<ResponsePart, 'watchLine'>,
  maxBytes: number = MAX_BODY_BYTES[part],
): Promise<Uint8Array> {
  const parts = await collectBody(r, path, part, maxBytes);
  const utf8 = new TextEncoder();
  return concatBytes(parts.map((p) => (typeof p === 'string' ? utf8.encode(p) : p)));
}

/** `parts` as one array of bytes (the one part itself when there is only one). */
function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const whole = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of parts) {
    whole.set(b, at);
    at += b.length;
  }
  return whole;
}

/** The chunks of a body, refused past `maxBytes` (see `readBody`). */
async function collectBody(
  r: HttpResponse,
  path: string,
  part: Exclude<ResponsePart, 'watchLine'>,
  maxBytes: number,
): Promise<(string | Uint8Array)[]> {
  // Refused unread: the caller's abort (every HTTP client here aborts on error) releases it.
  if (Number(r.header('content-length')) > maxBytes) throw new ResponseTooLargeError(part, maxBytes, { path });
  const parts: (string | Uint8Array)[] = [];
  let size = 0;
  for await (const chunk of bodyChunks(r, path)) {
    size += chunk.length;
    if (size > maxBytes) throw new ResponseTooLargeError(part, maxBytes, { path, receivedBytes: size });
    parts.push(chunk);
  }
  return parts;
}

/**
 * The text of an error answer, for its Status; `''` when it cannot be read or is larger than
 * `MAX_BODY_BYTES.errorBody`.
 *
 * @example
 * if (r.status >= 300) throw apiErrorFromResponse(r.status, await errorBody(r, path), r.header('retry-after'));
 */
export function errorBody(r: HttpResponse, path: string): Promise<string> {
  return readBody(r, path, 'errorBody').catch(() => '');
}

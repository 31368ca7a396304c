/**
 * Named error classes. Each carries a machine-readable `reason` and, where there is one, an
 * ES2022 `cause`. They are exported from the package root so callers can `instanceof` them.
 */
import type { Status } from './types.ts';

/**
 * Base class of every rxinformer error. Each class of the packages sets its `name` as a string
 * (`override readonly name: string = 'KubeApiError'`), so that it survives minification, which
 * renames classes: `status.lastError.name` and the factory's log lines read it.
 *
 * Caveat: a subclass of your own that sets no `name` is named after its constructor, which a
 * minifier renames; set it as ours do.
 *
 * @example
 * class QuotaError extends RxInformerError {
 *   override readonly name: string = 'QuotaError';
 *   constructor(message: string) { super('QuotaExceeded', message); }
 * }
 */
export class RxInformerError extends Error {
  /** Always `RxInformerError`: set as a string, so it survives minification. */
  override readonly name: string = 'RxInformerError';
  /** A stable, machine-readable reason, e.g. `Expired`, `MalformedWatchLine`, `InvalidOptions`. */
  readonly reason: string;

  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    // A subclass that names itself overwrites this once this constructor has returned.
    if (new.target !== RxInformerError) this.name = new.target.name;
    this.reason = reason;
  }
}

/** @internal A thrown value as an `Error` (a status's `lastError`): an `Error` as it is, anything else wrapped. */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new RxInformerError('Unknown', String(e), { cause: e });
}

/**
 * An error answer of the Kubernetes API: an HTTP error status or a watch ERROR event.
 *
 * @example
 * if (err instanceof KubeApiError && err.code === 410) relist();
 */
export class KubeApiError extends RxInformerError {
  /** Always `KubeApiError`: set as a string, so it survives minification. */
  override readonly name: string = 'KubeApiError';
  /** The HTTP status code (or the `code` of the Status of an ERROR event). */
  readonly code: number;
  /** The Status body, when the server sent one. */
  readonly status?: Status;
  /**
   * Seconds to wait before retrying, from `Retry-After` or `details.retryAfterSeconds`; only a
   * finite number >= 0 is kept (a malformed value is dropped, as if absent).
   */
  readonly retryAfterSeconds?: number;

  constructor(
    code: number,
    init: { status?: Status; message?: string; reason?: string; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    const reason = init.reason ?? init.status?.reason ?? reasonForCode(code);
    const message = init.message ?? init.status?.message ?? `the server answered ${code} ${reason}`;
    super(reason, message, { cause: init.cause });
    this.code = code;
    this.status = init.status;
    this.retryAfterSeconds = validSeconds(init.retryAfterSeconds) ?? validSeconds(init.status?.details?.retryAfterSeconds);
  }

  /** True for 410 Gone / Expired: the resource version is too old, relist. */
  get isGone(): boolean {
    return this.code === 410;
  }
}

/**
 * A watch line or list body that is not the JSON the protocol promises. The message never quotes
 * the line (it may hold a Secret's data); `line` keeps its start.
 */
export class WatchDecodeError extends RxInformerError {
  /** Always `WatchDecodeError`: set as a string, so it survives minification. */
  override readonly name: string = 'WatchDecodeError';
  /** The offending line (truncated to 200 characters): not in the message, since it may hold a Secret's data. */
  readonly line: string;

  constructor(line: string, detail: string, options?: { cause?: unknown }) {
    super('MalformedWatchLine', `malformed watch line (${detail})`, options);
    this.line = line.slice(0, 200);
  }
}

/**
 * A server's body as an error message may show it: the start of an answer that is not JSON (the
 * HTML or text page of a proxy says what is in the way), else only its size — JSON from the API
 * may be a Secret's data, which no message may carry.
 *
 * @example
 * bodyExcerpt('<html>Sign in</html>');            // '<html>Sign in</html>'
 * bodyExcerpt('{"kind":"Secret","data":{"a":"…'); // '(31 characters of JSON, not shown)'
 */
export function bodyExcerpt(text: string, max = 200): string {
  const t = text.trim();
  if (t === '') return '(empty)';
  if (t[0] === '{' || t[0] === '[' || t[0] === '"') return `(${text.length} characters of JSON, not shown)`;
  return t.slice(0, max);
}

/**
 * A `JSON.parse` error's message without V8's quotation of the input (`Unexpected token 'x', "…"
 * is not valid JSON`), which may hold a Secret's data: what is wrong and where, never what.
 *
 * @example
 * jsonErrorDetail(new SyntaxError('Unexpected token \'p\', "password=x" is not valid JSON')); // "Unexpected token 'p'"
 */
export function jsonErrorDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoted = message.indexOf('"');
  return (quoted < 0 ? message : message.slice(0, quoted).replace(/[,\s]+$/, '')) || 'not valid JSON';
}

/** An object or list page the store cannot accept: no `metadata.name`, no resourceVersion… */
export class InvalidObjectError extends RxInformerError {
  /** Always `InvalidObjectError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidObjectError';
  /** The object that was refused. */
  readonly object: unknown;

  constructor(message: string, object: unknown, options?: { cause?: unknown }) {
    super('InvalidObject', message, options);
    this.object = object;
  }
}

/** Options that make no sense, thrown synchronously at the call that received them. */
export class InvalidOptionsError extends RxInformerError {
  /** Always `InvalidOptionsError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidOptionsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('InvalidOptions', message, options);
  }
}

/** Why a connection failed: the `reason` of a `NetworkError`. */
export type NetworkErrorReason =
  | 'ConnectionRefused'
  | 'ConnectionReset'
  | 'Terminated'
  | 'ConnectTimeout'
  | 'HeadersTimeout'
  | 'BodyTimeout'
  | 'HostNotFound'
  | 'TlsFailure'
  | 'NetworkFailure';

/**
 * The connection failed before or during an answer: refused, reset, cut in the middle of a body,
 * a DNS or TLS failure, or a timeout of the HTTP client itself. `reason` says which (see
 * `NetworkErrorReason`; `NetworkFailure` when the transport does not tell), `code` is the system or
 * HTTP client code found on the error (`ECONNRESET`, `UND_ERR_SOCKET`…) and `cause` the transport's
 * own error (fetch's `TypeError: terminated`, undici's `SocketError`…). The reflector retries it
 * after a backoff, as any failure but a 410.
 *
 * @example
 * informer.status$.subscribe((s) => { if (s.lastError instanceof NetworkError) console.warn(s.lastError.reason, s.lastError.code); });
 */
export class NetworkError extends RxInformerError {
  /** Always `NetworkError`: set as a string, so it survives minification. */
  override readonly name: string = 'NetworkError';
  declare readonly reason: NetworkErrorReason;
  /** The request's path and query, when known. */
  readonly path?: string;
  /** The system or HTTP client error code found on the cause chain, e.g. `ECONNREFUSED`. */
  readonly code?: string;

  constructor(reason: NetworkErrorReason, message: string, options: { path?: string; code?: string; cause?: unknown } = {}) {
    super(reason, options.path === undefined ? message : `${message} (GET ${options.path})`, { cause: options.cause });
    this.path = options.path;
    this.code = options.code;
  }
}

/**
 * Why a request timed out, the `reason` of a `RequestTimeoutError`: `Timeout`, no answer in time
 * (a list's headers, a discovery request); `WatchNotOpened`, a watch whose response headers did not
 * arrive within `watchOpenTimeoutMs`: it never opened.
 */
export type RequestTimeoutReason = 'Timeout' | 'WatchNotOpened';

/**
 * A request that must answer within a time limit did not, and was aborted: a list whose response
 * headers did not arrive within its `responseTimeoutMs`, or a discovery request past its
 * `timeoutMs` (`reason` `Timeout`); a watch that did not open, its headers not in within
 * `watchOpenTimeoutMs` (`reason` `WatchNotOpened`: its status was `connecting` until then, never
 * `watching`). In a browser the usual cause is the connection limit: at most 6 HTTP/1.1 connections
 * per origin, each open watch holding one, so a 7th informer's requests wait in the browser's queue;
 * the message says so there. The reflector backs off and tries again.
 *
 * @example
 * if (status.lastError instanceof RequestTimeoutError && status.lastError.reason === 'WatchNotOpened') showBanner(status.lastError.message);
 */
export class RequestTimeoutError extends RxInformerError {
  /** Always `RequestTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'RequestTimeoutError';
  declare readonly reason: RequestTimeoutReason;
  /** The request path. */
  readonly path: string;
  /** The time limit, in milliseconds. */
  readonly timeoutMs: number;

  /** `reason` defaults to `Timeout`; `hint`, when given, ends the message: what may be in the way. */
  constructor(path: string, timeoutMs: number, options: { cause?: unknown; hint?: string; reason?: RequestTimeoutReason } = {}) {
    const reason = options.reason ?? 'Timeout';
    const what =
      reason === 'WatchNotOpened'
        ? `the watch ${path} did not open within ${timeoutMs} ms (no response headers)`
        : `no answer to ${path} within ${timeoutMs} ms`;
    super(reason, options.hint ? `${what}: ${options.hint}` : what, { cause: options.cause });
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * What part of an answer a size limit applies to: one line of a watch stream, or a body read whole
 * (a list's, one object's or document's such as a Lease or a discovery answer, an error's Status).
 */
export type ResponsePart = 'watchLine' | 'listBody' | 'objectBody' | 'errorBody';

/**
 * An answer larger than the client accepts: a watch line longer than `maxWatchLineBytes`, a list
 * body larger than `maxListBodyBytes`, or another body larger than its limit (`MAX_BODY_BYTES`: a
 * Lease, a discovery answer). The request was aborted as soon as the limit was passed, so the
 * memory it held is released; the reflector (or leader election) retries after a backoff.
 *
 * @example
 * if (err instanceof ResponseTooLargeError && err.part === 'listBody') console.warn('use a smaller pageSize');
 */
export class ResponseTooLargeError extends RxInformerError {
  /** Always `ResponseTooLargeError`: set as a string, so it survives minification. */
  override readonly name: string = 'ResponseTooLargeError';
  /** What was too large. */
  readonly part: ResponsePart;
  /** The limit that was passed, in bytes (UTF-16 code units for a transport that yields text). */
  readonly limitBytes: number;
  /**
   * How much of it was read when the client stopped, the chunk that passed the limit included (so
   * at most one network chunk past `limitBytes`); undefined when refused unread (`Content-Length`).
   */
  readonly receivedBytes?: number;

  constructor(part: ResponsePart, limitBytes: number, options?: { cause?: unknown; receivedBytes?: number; path?: string }) {
    const what = part === 'watchLine' ? 'a watch line is longer' : `${bodyName[part]} is larger`;
    const where = options?.path === undefined ? '' : ` (${options.path})`;
    super('ResponseTooLarge', `${what} than ${limitBytes} bytes${where}; the request was aborted`, options);
    this.part = part;
    this.limitBytes = limitBytes;
    if (options?.receivedBytes !== undefined) this.receivedBytes = options.receivedBytes;
  }
}

const bodyName = { listBody: 'a list body', objectBody: 'the body of an object', errorBody: 'an error body' } as const;

/** An index function threw, or an unknown index was asked for. The store is left unchanged. */
export class IndexerError extends RxInformerError {
  /** Always `IndexerError`: set as a string, so it survives minification. */
  override readonly name: string = 'IndexerError';
  /** The name of the index concerned. */
  readonly indexName: string;

  constructor(indexName: string, message: string, options?: { cause?: unknown }) {
    super('IndexerError', message, options);
    this.indexName = indexName;
  }
}

/** A number of seconds a server sent, or undefined when it is not a finite number >= 0 (NaN, Infinity, -1, "7"). */
function validSeconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

/** A short, readable rendering of any value for an error message (JSON for objects, never `[object Object]`). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' || value === null) return String(value as number | boolean | bigint | symbol | undefined | null);
  try {
    const json = JSON.stringify(value);
    return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * `message` followed by what `cause` says — its message (an error's, its name when it has none),
 * or the value described — so that a wrapper's message tells why, not only what: a log line that
 * prints only `message` (or `String(error)`) then holds the words that say what to do. `message`
 * as is when there is no cause or it already ends with the cause's words.
 *
 * @example
 * withCause('waiting for the caches to sync failed', new Error('call start() first'));
 * // 'waiting for the caches to sync failed: call start() first'
 */
export function withCause(message: string, cause: unknown): string {
  if (cause === undefined) return message;
  // Any error-like value: a DOMException or another realm's Error is no `instanceof Error`.
  const { message: said, name } = (typeof cause === 'object' && cause !== null ? cause : {}) as { message?: unknown; name?: unknown };
  const words = typeof said === 'string' ? said || String(name) : describeValue(cause);
  return words === '' || message.endsWith(words) ? message : `${message}: ${words}`;
}

/** What `checkNumber` accepts beyond a finite number >= its `min`. */
export interface NumberCheck {
  /** Refuse `min` itself: the number must be > `min`. Default false. */
  exclusive?: boolean;
  /** Accept whole numbers only. Default false. */
  integer?: boolean;
  /** Accept `Infinity` too (e.g. "no cap"). Default false. */
  infinite?: boolean;
}

/**
 * Throws `InvalidOptionsError` unless `value` (or its default `fallback`) is a finite number >= `min`
 * (`how` may ask for > `min`, a whole number, or allow `Infinity`); returns it. NaN is always refused.
 *
 * @example
 * const burst = checkNumber('burst', options.burst, 100, 1, { integer: true });
 * const capMs = checkNumber('capMs', options.capMs, Infinity, 0, { infinite: true });
 */
export function checkNumber(name: string, value: number | undefined, fallback: number, min: number, how: NumberCheck = {}): number {
  const x = value ?? fallback;
  const { exclusive = false, integer = false, infinite = false } = how;
  const finiteOk = Number.isFinite(x) || (infinite && x === Infinity);
  if (typeof x !== 'number' || !finiteOk || x < min || (exclusive && x === min) || (integer && x !== Infinity && !Number.isInteger(x))) {
    const what = integer ? 'an integer' : infinite ? 'a number' : 'a finite number';
    throw new InvalidOptionsError(`${name} must be ${what} ${exclusive ? '>' : '>='} ${min}, got ${String(value)}`);
  }
  return x;
}

/** Throws `InvalidOptionsError` (`<prefix>scheduler must be an RxJS scheduler`) unless `value` is undefined or has `now()` and `schedule()`. */
export function checkScheduler(value: unknown, prefix = ''): void {
  const s = value as { now?: unknown; schedule?: unknown } | null;
  if (value !== undefined && (typeof s?.now !== 'function' || typeof s.schedule !== 'function'))
    throw new InvalidOptionsError(`${prefix}scheduler must be an RxJS scheduler`);
}

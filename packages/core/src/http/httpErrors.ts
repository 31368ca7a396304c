/**
 * Turns an HTTP error answer into a `KubeApiError`: a JSON `Status` body when the server sent one,
 * plain text otherwise (as the API server's 429 limiter does), with `Retry-After`; and a failure of
 * the connection itself into a `NetworkError`.
 */
import { KubeApiError, NetworkError, RxInformerError, type NetworkErrorReason, bodyExcerpt } from '../errors.ts';
import type { Status } from '../types.ts';

/**
 * The error for an answer with HTTP `code`, its body text and its `Retry-After` header (seconds or
 * an HTTP date; Node's array form accepted). A Status body gives reason, message and details; its
 * `details.retryAfterSeconds` is used when the header is absent.
 *
 * @example
 * apiErrorFromResponse(429, 'Too many requests, please try again later.', '2').retryAfterSeconds; // 2
 */
export function apiErrorFromResponse(
  code: number,
  bodyText: string,
  retryAfter: string | readonly string[] | null | undefined,
): KubeApiError {
  let status: Status | undefined;
  if (bodyText.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(bodyText) as Status;
      if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') status = parsed;
    } catch {
      // not JSON: keep the text as the message
    }
  }
  // Not a Status: the start of a proxy's page, never JSON (it may hold a Secret's data).
  const text = bodyText.trim() === '' ? undefined : bodyExcerpt(bodyText, 500);
  return new KubeApiError(code, {
    status,
    message: status?.message ?? text,
    retryAfterSeconds: parseRetryAfter(retryAfter) ?? status?.details?.retryAfterSeconds,
  });
}

/**
 * Seconds from a `Retry-After` header: delta-seconds or an HTTP date; `undefined` when absent or unreadable.
 *
 * @example
 * parseRetryAfter('3');                              // 3
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT');  // seconds from now until then (0 if past)
 */
export function parseRetryAfter(header: string | readonly string[] | null | undefined, now: number = Date.now()): number | undefined {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Error codes (system, undici, OpenSSL) and the `NetworkError` reason each means. */
const REASON_OF_CODE: Record<string, NetworkErrorReason> = {
  ECONNREFUSED: 'ConnectionRefused',
  ECONNRESET: 'ConnectionReset',
  EPIPE: 'ConnectionReset',
  ECONNABORTED: 'ConnectionReset',
  UND_ERR_SOCKET: 'ConnectionReset',
  UND_ERR_CLOSED: 'ConnectionReset',
  ETIMEDOUT: 'ConnectTimeout',
  UND_ERR_CONNECT_TIMEOUT: 'ConnectTimeout',
  UND_ERR_HEADERS_TIMEOUT: 'HeadersTimeout',
  UND_ERR_BODY_TIMEOUT: 'BodyTimeout',
  ENOTFOUND: 'HostNotFound',
  EAI_AGAIN: 'HostNotFound',
};

/** OpenSSL and Node TLS codes: certificate and handshake failures. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/;

/**
 * The typed form of a transport's failure: an `RxInformerError` (a `CredentialError`, a timeout of
 * ours…) is returned as is; anything else becomes a `NetworkError` whose `reason` comes from the
 * first known error code on the `cause` chain (`ECONNRESET`, undici's `UND_ERR_SOCKET`, a TLS
 * code…), `Terminated` for fetch's bare `TypeError: terminated`, else `NetworkFailure` (a browser's
 * `TypeError: Failed to fetch` says no more). The original error is the `cause`.
 *
 * @example
 * networkErrorFrom(new TypeError('terminated', { cause: socketError }), '/api/v1/pods?watch=true').reason; // 'ConnectionReset'
 */
export function networkErrorFrom(error: unknown, path?: string): RxInformerError {
  if (error instanceof RxInformerError) return error;
  let reason: NetworkErrorReason | undefined;
  let code: string | undefined;
  let detail = '';
  let e: unknown = error;
  for (let depth = 0; depth < 8 && typeof e === 'object' && e !== null && reason === undefined; depth++) {
    const { code: c, message } = e as { code?: unknown; message?: unknown };
    if (typeof message === 'string' && message !== '' && !detail.includes(message)) detail += (detail ? ': ' : '') + message;
    if (typeof c === 'string') {
      code ??= c;
      reason = REASON_OF_CODE[c] ?? (TLS_CODE.test(c) ? 'TlsFailure' : undefined);
      if (reason !== undefined) code = c;
    }
    e = (e as { cause?: unknown }).cause;
  }
  if (reason === undefined) reason = error instanceof TypeError && error.message === 'terminated' ? 'Terminated' : 'NetworkFailure';
  return new NetworkError(reason, `${MESSAGE_OF_REASON[reason]}${code ? ` [${code}]` : ''}${detail ? `: ${detail}` : ''}`, {
    path,
    code,
    cause: error,
  });
}

const MESSAGE_OF_REASON: Record<NetworkErrorReason, string> = {
  ConnectionRefused: 'connection refused',
  ConnectionReset: 'connection reset',
  Terminated: 'connection terminated in the middle of the answer',
  ConnectTimeout: 'connection timed out',
  HeadersTimeout: "the HTTP client's headers timeout passed",
  BodyTimeout: "the HTTP client's body timeout passed",
  HostNotFound: 'host not found',
  TlsFailure: 'TLS failure',
  NetworkFailure: 'network failure',
};

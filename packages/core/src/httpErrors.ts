/**
 * Turns an HTTP error answer into a `KubeApiError`: a JSON `Status` body when the server sent one,
 * plain text otherwise (as the API server's 429 limiter does), with `Retry-After`.
 */
import { KubeApiError } from './errors.ts';
import type { Status } from './types.ts';

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
  const text = bodyText.trim().slice(0, 500);
  return new KubeApiError(code, {
    status,
    message: status?.message ?? (text || undefined),
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

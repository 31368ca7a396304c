/**
 * Turns an HTTP error answer into a `KubeApiError`: a JSON `Status` body when the server sent one,
 * plain text otherwise (as the API server's 429 limiter does), with `Retry-After`.
 */
import { KubeApiError } from './errors.ts';
import type { Status } from './types.ts';

/** The error for an answer with HTTP `code`, its body text and its `Retry-After` header. */
export function apiErrorFromResponse(code: number, bodyText: string, retryAfter: string | null | undefined): KubeApiError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(bodyText) as Status;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') status = parsed;
  } catch {
    // not JSON: keep the text as the message
  }
  const seconds = retryAfter ? Number(retryAfter) : undefined;
  return new KubeApiError(code, {
    status,
    message: status?.message ?? (bodyText.trim().slice(0, 500) || undefined),
    retryAfterSeconds: seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : status?.details?.retryAfterSeconds,
  });
}

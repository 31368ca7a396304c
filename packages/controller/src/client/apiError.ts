/**
 * The API's error answers, typed: one `ApiError` whichever client sent the request (fetch, the
 * client-node transport, or client-node's own generated API, whose `ApiException` carries the Status
 * as a JSON string), and the `isNotFound`-style tests client-go's `apierrors` package offers.
 */
import { KubeApiError, type Status } from '@rxinformer/core';

/**
 * An error answer of the API server, with the `Status` body it sent. It is a core `KubeApiError`
 * (same `code`, `reason`, `status`), and `String(err)` reads like kubectl's message:
 *
 *   `Conflict: Operation cannot be fulfilled on configmaps "x": the object has been modified; …`
 *
 * @example
 * try { await cms.create(cm); } catch (e) { if (isAlreadyExists(e)) return; throw e; }
 */
export class ApiError extends KubeApiError {
  /** Always `ApiError`: set as a string, so it survives minification. */
  override readonly name: string = 'ApiError';
  /** The request that failed, `PATCH /api/v1/namespaces/a/configmaps/x`, when known. */
  readonly request?: string;

  constructor(code: number, init: { status?: Status; message?: string; request?: string; cause?: unknown } = {}) {
    super(code, { status: init.status, message: init.message, cause: init.cause });
    this.request = init.request;
    // `message` is what kubectl prints: the Status's message, prefixed by its reason.
    this.message = `${this.reason}: ${this.message}`;
  }

  /** `Conflict: Operation cannot be fulfilled on …`, without the class name. */
  override toString(): string {
    return this.message;
  }
}

/**
 * Any error of a request, as an `ApiError` when it is an API answer: an `ApiError` as is, a core
 * `KubeApiError`, or an error with a numeric `code` and a Status `body` (client-node's
 * `ApiException`, whose body is the Status JSON text). Anything else (a `NetworkError`, an abort)
 * is returned unchanged.
 *
 * @example
 * const e = toApiError(new ApiException(404, 'Not Found', '{"kind":"Status","reason":"NotFound","code":404}', {}));
 * e instanceof ApiError && e.reason; // 'NotFound'
 */
export function toApiError(error: unknown, request?: string): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof KubeApiError)
    return new ApiError(error.code, { status: error.status, message: plainMessage(error), request, cause: error });
  const e = error as { code?: unknown; body?: unknown } | null;
  if (typeof e !== 'object' || e === null || typeof e.code !== 'number' || !('body' in e)) return error;
  if (e.code < 400 || e.code > 599) return error;
  const status = statusOf(e.body);
  return new ApiError(e.code, { status, message: status ? undefined : `the server answered ${e.code}`, request, cause: error });
}

/** The HTTP code and reason of an error, whatever client it came from; undefined when it is no API answer. */
function answerOf(error: unknown): { code: number; reason: string } | undefined {
  const e = toApiError(error);
  return e instanceof KubeApiError ? { code: e.code, reason: e.reason } : undefined;
}

/** True for a 404: the object (or its namespace, or the resource) does not exist. */
export function isNotFound(error: unknown): boolean {
  return answerOf(error)?.code === 404;
}

/** True for a 409 Conflict: the object changed since it was read (a stale resourceVersion). Not AlreadyExists. */
export function isConflict(error: unknown): boolean {
  const a = answerOf(error);
  return a?.code === 409 && a.reason !== 'AlreadyExists';
}

/** True for a 409 AlreadyExists: a create of a name that is taken. */
export function isAlreadyExists(error: unknown): boolean {
  const a = answerOf(error);
  return a?.code === 409 && a.reason === 'AlreadyExists';
}

/** True for a 410 Gone / Expired: a resourceVersion too old for a list or watch. */
export function isGone(error: unknown): boolean {
  return answerOf(error)?.code === 410;
}

/** True for a 422 Invalid: the object failed validation (`status.details.causes` says where). */
export function isInvalid(error: unknown): boolean {
  const a = answerOf(error);
  return a?.code === 422 || a?.reason === 'Invalid';
}

/** True for a 403 Forbidden: RBAC refused the request (or a namespace is being terminated). */
export function isForbidden(error: unknown): boolean {
  return answerOf(error)?.code === 403;
}

/** A Status from a body given as an object or as its JSON text; undefined otherwise. */
function statusOf(body: unknown): Status | undefined {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && (value as Status).kind === 'Status' ? (value as Status) : undefined;
}

/** A KubeApiError's message without the reason prefix an ApiError adds (never doubled). */
function plainMessage(error: KubeApiError): string {
  return error.status?.message ?? error.message;
}

/**
 * meta/v1 Status answers: the `ApiStatusError` every handler throws, and builders for the
 * reasons the Kubernetes API uses (NotFound, AlreadyExists, Conflict, Invalid, Expired…).
 */
import type { Status } from '@rxinformer/core';

/** One entry of `details.causes`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** An error that the HTTP layer answers with the Status it carries. */
export class ApiStatusError extends Error {
  /** Always `ApiStatusError`: set as a string, so it survives minification. */
  override readonly name: string = 'ApiStatusError';
  /** The Status body sent to the client. */
  readonly status: Status & { code: number };

  constructor(status: Status & { code: number }) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.status = status;
  }

  /** The HTTP code. */
  get code(): number {
    return this.status.code;
  }
}

/** Builds a failure Status. */
export function failure(code: number, reason: string, message: string, details?: Status['details']): Status & { code: number } {
  const status: Status & { code: number } = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) status.details = details;
  return status;
}

/** Identifies the object an error is about. */
export interface ErrorTarget {
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  /** API group, `''` for the core group. */
  group: string;
  name?: string;
}

const qualified = (t: ErrorTarget): string => (t.group ? `${t.resource}.${t.group}` : t.resource);
const details = (t: ErrorTarget, extra: Status['details'] = {}): Status['details'] => ({
  ...(t.name !== undefined ? { name: t.name } : {}),
  ...(t.group ? { group: t.group } : {}),
  kind: t.resource,
  ...extra,
});

/** Typed builders of the errors the simulator answers. */
export const errors = {
  notFound: (t: ErrorTarget) => new ApiStatusError(failure(404, 'NotFound', `${qualified(t)} "${t.name ?? ''}" not found`, details(t))),
  unknownPath: () => new ApiStatusError(failure(404, 'NotFound', 'the server could not find the requested resource', {})),
  alreadyExists: (t: ErrorTarget) =>
    new ApiStatusError(failure(409, 'AlreadyExists', `${qualified(t)} "${t.name ?? ''}" already exists`, details(t))),
  conflict: (t: ErrorTarget, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
    new ApiStatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(t)} "${t.name ?? ''}": ${why}`, details(t))),
  invalid: (kind: string, name: string, causes: StatusCause[], group = '') => {
    const each = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
    // as the API server: several causes are listed in brackets, and an empty name is left out of details
    const list = each.length > 1 ? `[${each.join(', ')}]` : (each[0] ?? '');
    return new ApiStatusError(
      failure(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${list}`, {
        ...(name ? { name } : {}),
        ...(group ? { group } : {}),
        kind,
        causes,
      }),
    );
  },
  badRequest: (message: string, causes?: StatusCause[]) =>
    new ApiStatusError(failure(400, 'BadRequest', message, causes ? { causes } : undefined)),
  expired: (message: string) => new ApiStatusError(failure(410, 'Expired', message)),
  gone: (message: string) => new ApiStatusError(failure(410, 'Gone', message)),
  // kube-apiserver's 405s carry an empty `details` (measured)
  methodNotAllowed: (message = 'the server does not allow this method on the requested resource') =>
    new ApiStatusError(failure(405, 'MethodNotAllowed', message, {})),
  unsupportedMediaType: (
    contentType: string,
    accepted = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
  ) =>
    new ApiStatusError(
      failure(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${accepted} (got ${contentType || 'none'})`,
      ),
    ),
  notAcceptable: (message = 'only the following media types are accepted: application/json, application/yaml') =>
    new ApiStatusError(failure(406, 'NotAcceptable', message)),
  /** A 500 without a reason, as the API server answers errors it does not classify (a bad resourceVersion, a bad shard selector). */
  unclassified: (message: string) =>
    new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 }),
  internal: (message: string) =>
    new ApiStatusError(failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] })),
  unavailable: (message: string) => new ApiStatusError(failure(503, 'ServiceUnavailable', message)),
  /** 504 for a resourceVersion the server has not reached (the storage layer's wording). */
  tooLarge: (requested: number, current: number) =>
    new ApiStatusError(
      failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      }),
    ),
  /** 403 for an object (admission's wording: `pods "x" is forbidden: <why>`, or `pods is forbidden` without a name). */
  forbiddenObject: (t: ErrorTarget, why: string, causes?: StatusCause[]) =>
    new ApiStatusError(
      failure(
        403,
        'Forbidden',
        `${qualified(t)}${t.name ? ` "${t.name}"` : ''} is forbidden: ${why}`,
        details({ ...t, name: t.name ?? '' }, causes ? { causes } : {}),
      ),
    ),
  unauthorized: () => new ApiStatusError(failure(401, 'Unauthorized', 'Unauthorized')),
  forbidden: (verb: string, resource: string, group: string, namespace?: string, username = 'sim') =>
    new ApiStatusError(
      failure(
        403,
        'Forbidden',
        `${group ? `${resource}.${group}` : resource} is forbidden: User "${username}" cannot ${verb} resource "${resource}" in API group "${group}"${namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope'}`,
        { kind: resource, ...(group ? { group } : {}) },
      ),
    ),
};

/** The ERROR a compacted watch receives (410 Expired, "too old resource version"). */
export function tooOldStatus(requested: number, compacted: number): Status {
  return failure(410, 'Expired', `too old resource version: ${requested} (${compacted + 1})`);
}

/** A FieldValueForbidden cause. */
export function forbidden(field: string, message: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field };
}

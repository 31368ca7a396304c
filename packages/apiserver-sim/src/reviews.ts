/**
 * The review APIs a hub or a webhook asks the API server: `authentication.k8s.io/v1` TokenReview
 * (who is this token?), `authorization.k8s.io/v1` SubjectAccessReview (may this user?) and
 * SelfSubjectAccessReview (may I?). Answered, never stored, as kube-apiserver does.
 */
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '@rxinformer/core';
import type { Faults } from './faults.ts';
import type { ObjectStore } from './objects.ts';
import { rbacDecision, type RequestAttributes, type SimUser } from './rbac.ts';
import type { ResourceInfo } from './resources.ts';
import { errors } from './status.ts';

/** The audiences the simulator's tokens are for (envtest's service-account issuer). */
export const API_AUDIENCES = ['https://kubernetes.default.svc.cluster.local'];

/** The review resources: create-only, answered by `answerReview`. */
export const REVIEW_RESOURCES = new Set([
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
]);

/** True for a resource answered by `answerReview` (never stored). */
export const isReview = (r: ResourceInfo): boolean => REVIEW_RESOURCES.has(`${r.group}/${r.resource}`);

interface ReviewSpec {
  token?: string;
  audiences?: string[];
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: { namespace?: string; verb?: string; group?: string; resource?: string; subresource?: string; name?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/**
 * The answer to a review `body` of resource `r` from `requester` (the admin when auth is off):
 * the review with its `status` filled in.
 */
export function answerReview(
  ctx: { faults: Faults; objects: ObjectStore },
  r: ResourceInfo,
  body: KubeObject,
  requester: SimUser | undefined,
): KubeObject {
  const spec = ((body as { spec?: ReviewSpec }).spec ?? {}) as ReviewSpec;
  const base = {
    apiVersion: `${r.group}/${r.version}`,
    kind: r.kind,
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null },
    spec,
  };
  if (r.resource === 'tokenreviews') return { ...base, status: tokenStatus(ctx.faults, spec) } as unknown as KubeObject;
  const attrs = attributesOf(r.kind, spec);
  const user: SimUser =
    r.resource === 'selfsubjectaccessreviews'
      ? (requester ?? { username: 'sim', groups: ['system:masters', 'system:authenticated'] })
      : subjectOf(r.kind, spec);
  const decision = rbacDecision(ctx.objects, user, attrs);
  return { ...base, status: { allowed: decision.allowed, ...(decision.reason && { reason: decision.reason }) } } as unknown as KubeObject;
}

/** A TokenReview's status: the token's user, for the audiences asked that the simulator serves. */
function tokenStatus(faults: Faults, spec: ReviewSpec): object {
  if (typeof spec.token !== 'string' || spec.token === '')
    throw errors.invalid('TokenReview', '', [{ field: 'spec.token', reason: 'FieldValueRequired', message: 'Required value' }]);
  const audiences = spec.audiences?.length ? spec.audiences.filter((a) => API_AUDIENCES.includes(a)) : API_AUDIENCES;
  const user = faults.userOf(spec.token);
  if (!user || audiences.length === 0)
    return { user: {}, error: user ? 'token audiences is invalid for the target audiences' : 'invalid bearer token' };
  return {
    authenticated: true,
    user: { username: user.username, ...(user.uid && { uid: user.uid }), groups: [...user.groups] },
    audiences,
  };
}

/** The attributes a (self) subject access review asks about; 422 without either kind. */
function attributesOf(kind: string, spec: ReviewSpec): RequestAttributes {
  const ra = spec.resourceAttributes;
  const na = spec.nonResourceAttributes;
  if (ra && na)
    throw errors.invalid(kind, '', [
      {
        field: 'spec.nonResourceAttributes',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "null": cannot be specified in combination with resourceAttributes',
      },
    ]);
  if (na) return { verb: na.verb ?? '', path: na.path ?? '' };
  if (!ra)
    throw errors.invalid(kind, '', [
      {
        field: 'spec.resourceAttributes',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  return {
    verb: ra.verb ?? '',
    group: ra.group ?? '',
    resource: ra.resource ?? '',
    ...(ra.subresource && { subresource: ra.subresource }),
    ...(ra.name && { name: ra.name }),
    ...(ra.namespace && { namespace: ra.namespace }),
  };
}

/** The user a SubjectAccessReview names; 422 with neither user nor groups. */
function subjectOf(kind: string, spec: ReviewSpec): SimUser {
  if (!spec.user && !spec.groups?.length)
    throw errors.invalid(kind, '', [
      { field: 'spec.user', reason: 'FieldValueInvalid', message: 'Invalid value: "": at least one of user or group must be specified' },
    ]);
  return { username: spec.user ?? '', groups: spec.groups ?? [], ...(spec.uid && { uid: spec.uid }) };
}

/**
 * A TokenRequest (`POST .../serviceaccounts/{name}/token`): a new token that authenticates as the
 * ServiceAccount (added to the static token list; with auth off, every token is the admin's).
 * 404 for a ServiceAccount that does not exist.
 *
 * Caveat: the token is random, not a signed JWT, and does not expire in the simulator.
 */
export function answerTokenRequest(
  ctx: { faults: Faults; objects: ObjectStore },
  namespace: string,
  name: string,
  body: KubeObject,
): KubeObject {
  const sa = ctx.objects.get('/v1/serviceaccounts', namespace, name);
  const spec = ((body as { spec?: { audiences?: string[]; expirationSeconds?: number } }).spec ?? {}) as {
    audiences?: string[];
    expirationSeconds?: number;
  };
  const token = randomBytes(32).toString('base64url');
  const expirationSeconds = spec.expirationSeconds ?? 3600;
  if (ctx.faults.token !== undefined)
    ctx.faults.addUser({
      token,
      username: `system:serviceaccount:${namespace}:${name}`,
      ...(sa.metadata?.uid && { uid: sa.metadata.uid }),
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    });
  const expires = new Date(Math.floor(Date.now() / 1000) * 1000 + expirationSeconds * 1000).toISOString().replace('.000Z', 'Z');
  const out: Record<string, unknown> = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: spec.audiences?.length ? spec.audiences : API_AUDIENCES, expirationSeconds, boundObjectRef: null },
    status: { token, expirationTimestamp: expires },
  };
  return out as unknown as KubeObject;
}

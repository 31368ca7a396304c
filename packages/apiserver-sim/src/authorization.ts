/**
 * Each request's authorization: the `forbid` faults (any user), then, for a user other than the
 * admin, RBAC over the stored Roles and bindings (`rbac.ts`), answered with kube-apiserver's 403.
 */
import type { Faults } from './faults.ts';
import type { ObjectStore } from './objects.ts';
import { forbiddenMessage, rbacDecision, type RequestAttributes, type SimUser } from './rbac.ts';
import { ApiStatusError, failure } from './status.ts';

/** Throws kube-apiserver's 403 unless `user` (undefined: auth off) may do what `attrs` ask. */
export function authorizeRequest(ctx: { faults: Faults; objects: ObjectStore }, user: SimUser | undefined, attrs: RequestAttributes): void {
  if (!user) return;
  if (attrs.resource !== undefined) ctx.faults.checkForbidden(user, attrs.verb, attrs.resource, attrs.group ?? '', attrs.namespace);
  const decision = rbacDecision(ctx.objects, user, attrs);
  if (decision.allowed) return;
  const group = attrs.group ?? '';
  const details =
    attrs.resource === undefined ? {} : { ...(attrs.name ? { name: attrs.name } : {}), ...(group ? { group } : {}), kind: attrs.resource };
  throw new ApiStatusError(failure(403, 'Forbidden', forbiddenMessage(user, attrs, decision.reason), details));
}

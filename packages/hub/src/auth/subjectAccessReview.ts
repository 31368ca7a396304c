/**
 * An `Authorizer` that asks the API server: `authorization.k8s.io/v1` SubjectAccessReview for the
 * user and the subscription's verb, resource and namespace, decisions cached briefly (allow and deny
 * TTLs, as kube-apiserver's webhook authorizer) and re-checked for the streams still open.
 */
import { InvalidOptionsError } from '@rxinformer/core';
import { checkDuration, intervalEvery } from '@rxinformer/core/time';
import { asyncScheduler, filter, map, merge, share, Subject, type Observable, type SchedulerLike } from 'rxjs';
import type { AccessChange, AccessDecision, AccessRequest, Authorizer, HubUser } from '../auth.ts';
import { review, type ReviewClient } from './reviewClient.ts';
import { coalescing, TtlCache } from './ttlCache.ts';

/** Options of `subjectAccessReviewAuthorizer`. */
export interface SubjectAccessReviewAuthorizerOptions {
  /** How long an allow is remembered, in ms. Default 10 000. */
  allowTtlMs?: number;
  /** How long a denial is remembered, in ms. Default 5 000. */
  denyTtlMs?: number;
  /** How often expired decisions are dropped and their users' open streams re-checked, in ms. Default 5 000. */
  recheckIntervalMs?: number;
  /** Most decisions remembered at once. Default 10 000. */
  maxEntries?: number;
  /** The clock of the cache and the re-checks. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** `subjectAccessReviewAuthorizer`'s authorizer, with a way to drop decisions at once. */
export interface SubjectAccessReviewAuthorizer extends Authorizer {
  readonly changes$: Observable<AccessChange>;
  /**
   * Drops the cached decisions `change` concerns (all when empty) and re-checks their open streams
   * now: call it from an informer of RBAC objects to withdraw access without waiting for the TTL.
   */
  invalidate(change?: AccessChange): void;
}

interface CachedDecision {
  readonly username: string;
  readonly cluster: string;
  readonly allowed: boolean;
  readonly reason?: string;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * Decides each subscription with a SubjectAccessReview sent by `clients` (one `ReviewClient`, or one
 * per cluster by the hub's cluster names; the hub's credentials need `create` on
 * `subjectaccessreviews`). Allows are remembered `allowTtlMs`, denials `denyTtlMs`; every
 * `recheckIntervalMs` the expired ones are dropped and `changes$` names their users, so the hub
 * re-checks their open streams with fresh reviews: access withdrawn by RBAC ends within
 * `allowTtlMs + recheckIntervalMs` (plus kube-apiserver's own RBAC propagation).
 *
 * @example
 * import { kubeApiClient } from '@rxinformer/client-node';
 * const authorizer = subjectAccessReviewAuthorizer(kubeApiClient(kc), { allowTtlMs: 10_000 });
 * const hub = createHub({ clusters: { default: factory }, authenticator, authorizer });
 *
 * Caveat: a review that fails rejects with a `ReviewFailedError` (the hub fails closed: 503) and is
 * not cached; a cluster the authorizer has no client for is denied. The hub filters a cluster-wide
 * subscription by asking this authorizer once per namespace: each of those decisions is cached too.
 */
export function subjectAccessReviewAuthorizer(
  clients: ReviewClient | Readonly<Record<string, ReviewClient>>,
  options: SubjectAccessReviewAuthorizerOptions = {},
): SubjectAccessReviewAuthorizer {
  const { allowTtlMs = 10_000, denyTtlMs = 5_000, recheckIntervalMs = 5_000, maxEntries = 10_000, scheduler = asyncScheduler } = options;
  // Times compared with the scheduler's clock (any length; Infinity: never expires), and a period of any length.
  for (const [name, v] of Object.entries({ allowTtlMs, denyTtlMs }))
    checkDuration(`subjectAccessReviewAuthorizer: ${name}`, v, 0, { infinite: true });
  checkDuration('subjectAccessReviewAuthorizer: recheckIntervalMs', recheckIntervalMs, 0, { exclusive: true, infinite: true });
  if (!(maxEntries >= 1)) throw new InvalidOptionsError('subjectAccessReviewAuthorizer: maxEntries must be ≥ 1');
  const clientOf = (cluster: string): ReviewClient | undefined =>
    typeof (clients as ReviewClient).request === 'function'
      ? (clients as ReviewClient)
      : Object.hasOwn(clients, cluster)
        ? (clients as Record<string, ReviewClient>)[cluster]
        : undefined;
  const cache = new TtlCache<CachedDecision>(maxEntries, () => scheduler.now());
  const once = coalescing<AccessDecision>();
  const invalidations = new Subject<AccessChange>();
  let generation = 0; // bumped by each invalidation: a review begun before it is not cached

  const expired$ = intervalEvery(recheckIntervalMs, scheduler).pipe(
    map(() => cache.sweep()),
    filter((dropped) => dropped.length > 0),
    map((dropped) => ({ users: [...new Set(dropped.map((d) => d.username))] })),
  );
  const changes$ = merge(expired$, invalidations).pipe(share());

  const fresh = async (user: HubUser, r: AccessRequest, key: string): Promise<AccessDecision> => {
    const begun = generation;
    const client = clientOf(r.cluster);
    if (!client) return { allowed: false, reason: `no SubjectAccessReview client for cluster "${r.cluster}"`, cached: false };
    const status = await review<SubjectAccessReviewStatus>(
      client,
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      reviewOf(user, r),
      'SubjectAccessReviewFailed',
    );
    const allowed = status?.allowed === true && status.denied !== true;
    const reason = status?.reason || status?.evaluationError || undefined;
    if (begun === generation)
      cache.set(key, { username: user.username, cluster: r.cluster, allowed, ...(reason && { reason }) }, allowed ? allowTtlMs : denyTtlMs);
    return { allowed, ...(reason && { reason }), cached: false };
  };

  return {
    changes$,
    invalidate: (change = {}) => {
      generation++;
      cache.sweep((d) => concerns(change, d));
      invalidations.next(change);
    },
    authorize: async (user, r) => {
      const key = decisionKey(user, r);
      const hit = cache.get(key);
      if (hit) return { allowed: hit.allowed, ...(hit.reason && { reason: hit.reason }), cached: true };
      return once(key, () => fresh(user, r, key));
    },
  };
}

/** Whether `change` concerns decision `d`. */
const concerns = (change: AccessChange, d: CachedDecision): boolean =>
  (change.users === undefined || change.users.includes(d.username)) &&
  (change.clusters === undefined || change.clusters.includes(d.cluster));

/** The SubjectAccessReview of `user` for `r`. */
export function reviewOf(user: HubUser, r: AccessRequest): object {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: user.username,
      groups: [...user.groups],
      ...(user.uid !== undefined && { uid: user.uid }),
      ...(user.extra && { extra: user.extra }),
      resourceAttributes: {
        verb: r.verb,
        group: r.group,
        resource: r.resource,
        ...(r.namespace !== undefined && { namespace: r.namespace }),
      },
    },
  };
}

/** A decision's cache key: everything the decision depends on (no credential is part of it). */
function decisionKey(user: HubUser, r: AccessRequest): string {
  const extra = Object.entries(user.extra ?? {})
    .map(([k, v]) => [k, [...v].sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    r.cluster,
    user.username,
    user.uid ?? '',
    [...user.groups].sort(),
    extra,
    r.verb,
    r.group,
    r.resource,
    r.namespace ?? null,
  ]);
}

/**
 * Each subscription's authorization: the `Authorizer`'s decisions turned into what the stream may
 * carry (a `Grant`: all of the resource, or the objects of some namespaces), refusals as the
 * `KubeApiError`s kube-apiserver would answer (403, 503), and the re-checks that end a stream when
 * its grant changes (403 for a namespaced or cluster-scoped stream, 410 for a cluster-wide one, whose
 * client relists the filtered set). docs/hub-security.md is the model.
 */
import { KubeApiError, type Status } from '@rxinformer/core';
import type { StreamRequest } from '@rxinformer/core/channel';
import type { AccessRequest, Authorizer, HubUser } from './auth.ts';

/** What a subscription may carry: all of the resource, or the objects of these namespaces only. */
export type Grant = { readonly kind: 'all' } | { readonly kind: 'some'; readonly namespaces: ReadonlySet<string> };

/** Told of each decision taken: allowed, denied or an error, and whether it came from the authorizer's cache. */
export type DecisionRecorder = (outcome: 'allowed' | 'denied' | 'error', cached: boolean) => void;

/** What a subscription's grant is decided with. */
export interface AccessDeps {
  readonly authorizer: Authorizer;
  /** The namespaces of `cluster` now (the hub's namespaces informer, synced). */
  namespaces(cluster: string): Promise<readonly string[]>;
  readonly record: DecisionRecorder;
  /** How many decisions run at once for one cluster-wide subscription's namespaces. Default 16. */
  readonly concurrency?: number;
}

/** A subscription as authorization sees it. */
export interface Subscription {
  readonly user: HubUser;
  readonly cluster: string;
  readonly request: StreamRequest;
}

/** True for a subscription to a namespaced resource in every namespace: the one that can be filtered. */
export const isClusterWide = (s: Subscription): boolean => s.request.resource.namespaced && s.request.scope.namespace === undefined;

/**
 * The grant of `s` now: `all` when allowed as asked; for a cluster-wide subscription not allowed
 * cluster-wide, the namespaces where the user may both list and watch (its reflector needs both).
 * Throws a 403 `KubeApiError` when nothing is allowed, a 503 when the authorizer failed; with
 * `orNone`, a cluster-wide subscription allowed in no namespace gets a grant of none instead of the
 * 403 (a client served before holds objects that an empty list takes away; a 403 would leave them).
 *
 * @example
 * const grant = await grantOf(deps, { user, cluster: 'default', request });
 */
export async function grantOf(deps: AccessDeps, s: Subscription, { orNone = false } = {}): Promise<Grant> {
  const { request } = s;
  const base = { group: request.resource.group, resource: request.resource.resource, cluster: s.cluster };
  const namespace = request.scope.namespace;
  const ask = (verb: 'list' | 'watch', ns?: string) => decide(deps, s.user, { verb, ...base, ...(ns !== undefined && { namespace: ns }) });
  if (!isClusterWide(s)) {
    const decision = await ask(request.t, namespace);
    if (decision.allowed) return { kind: 'all' };
    throw forbidden(s, request.t, namespace, decision.reason);
  }
  const [list, watch] = await Promise.all([ask('list'), ask('watch')]);
  if (list.allowed && watch.allowed) return { kind: 'all' };
  const names = await deps.namespaces(s.cluster);
  const allowed = new Set<string>();
  await eachLimited(names, deps.concurrency ?? 16, async (ns) => {
    const [l, w] = await Promise.all([ask('list', ns), ask('watch', ns)]);
    if (l.allowed && w.allowed) allowed.add(ns);
  });
  if (allowed.size === 0 && !orNone) throw forbidden(s, list.allowed ? 'watch' : 'list', undefined, (list.allowed ? watch : list).reason);
  return { kind: 'some', namespaces: allowed };
}

/** One decision, recorded; an authorizer's failure as a 503. */
async function decide(deps: AccessDeps, user: HubUser, request: AccessRequest) {
  try {
    const decision = await deps.authorizer.authorize(user, request);
    deps.record(decision.allowed ? 'allowed' : 'denied', decision.cached === true);
    return decision;
  } catch (error) {
    deps.record('error', false);
    throw unavailable(error);
  }
}

/** Runs `fn` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A grant as a comparable text: `*`, or the sorted namespaces. */
export const fingerprint = (grant: Grant): string => (grant.kind === 'all' ? '*' : [...grant.namespaces].sort().join(','));

/** Whether a stream's object falls within its grant. */
export const admits = (grant: Grant) =>
  grant.kind === 'all' ? undefined : (o: { metadata?: { namespace?: string } }) => grant.namespaces.has(o.metadata?.namespace ?? '');

/** kube-apiserver's 403, in its words. */
export function forbidden(s: Subscription, verb: string, namespace: string | undefined, reason?: string): KubeApiError {
  const { group, resource } = s.request.resource;
  const where = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
  const message =
    `${resource} is forbidden: User "${s.user.username}" cannot ${verb} resource "${resource}" in API group "${group}" ${where}` +
    (s.cluster === 'default' ? '' : ` of cluster "${s.cluster}"`) +
    (reason ? `: ${reason}` : '');
  return statusError(403, 'Forbidden', message, { kind: resource, group });
}

/** The 503 of an authorizer that failed (fail closed: the client retries with backoff). */
export function unavailable(error: unknown): KubeApiError {
  const why = error instanceof Error ? error.message : String(error);
  const message = `the hub could not authorize the request: ${why}`;
  return statusError(503, 'ServiceUnavailable', message, { retryAfterSeconds: 1 });
}

/** The 410 of a cluster-wide stream whose grant changed: its client relists the filtered set. */
export function regranted(): KubeApiError {
  return statusError(410, 'Expired', 'the namespaces this subscription may see changed: list again');
}

/** A `KubeApiError` carrying the `Status` kube-apiserver would answer. */
export function statusError(code: number, reason: string, message: string, details?: Status['details']): KubeApiError {
  return new KubeApiError(code, {
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details && { details }) },
  });
}

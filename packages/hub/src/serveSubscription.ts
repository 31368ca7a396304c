/**
 * One subscription served by the hub: its cluster, projection and grant, the resume rule for
 * filtered streams, and the re-checks that end it when its grant changes. What the channel
 * server's `informerFor` is on a hub.
 */
import { KubeApiError, tableRows, type InformerScope, type ResourceDescriptor } from '@rxinformer/core';
import type { InformerView, StreamRequest } from '@rxinformer/core/channel';
import { catchError, concatMap, defer, EMPTY, filter, map, merge, of, take, type Observable } from 'rxjs';
import {
  admits,
  fingerprint,
  grantOf,
  isClusterWide,
  regranted,
  statusError,
  type AccessDeps,
  type Grant,
  type Subscription,
} from './access.ts';
import type { HubUser } from './auth.ts';
import type { Clusters } from './clusters.ts';
import type { Projections } from './projections.ts';

/** What the hub knows of a connection: its user. */
export interface HubPeer {
  readonly user: HubUser;
}

/** What serving a subscription needs. */
export interface SubscriptionDeps extends AccessDeps {
  readonly clusters: Clusters;
  readonly projections: Projections;
  readonly resumes: ResumeRecords;
}

/**
 * The view a subscription is served: the shared informer of its resource and scope in its cluster,
 * the objects its grant admits, as its projection shapes them, until a re-check ends it.
 */
export async function serveSubscription(
  deps: SubscriptionDeps,
  resource: ResourceDescriptor,
  scope: InformerScope,
  request: StreamRequest,
  peer: HubPeer,
): Promise<InformerView> {
  const cluster = deps.clusters.clusterOf(request.extra);
  const form = deps.projections.formOf(request.extra?.projection);
  const s: Subscription = { user: peer.user, cluster, request };
  const key = resumeKey(s);
  // Served before on this replica: a revocation of every namespace is an empty view, not a 403.
  const grant = await grantOf(deps, s, { orNone: isClusterWide(s) && deps.resumes.has(key) });
  const print = fingerprint(grant);
  if (isClusterWide(s) && resumes(request) && !deps.resumes.mayResume(key, print)) throw expiredView();
  deps.resumes.served(key, print);
  const informer = deps.clusters.informer(cluster, form.table ? tableRows(resource) : resource, scope);
  return { informer, admit: admits(grant), transform: form.transform, end$: rechecks(deps, s, grant) };
}

/** A watch from a resource version, without initial events: it relies on what its client holds. */
const resumes = (r: StreamRequest): boolean => {
  if (r.t !== 'watch' || r.options.sendInitialEvents === true) return false;
  const rv = r.options.resourceVersion;
  return rv !== undefined && rv !== '' && rv !== '0';
};

/**
 * The error that ends a stream once its grant is no longer `grant`: a re-check on every change of
 * the authorizer's that concerns its user and cluster, and, for a grant of some namespaces, on every
 * namespace added to the cluster. A cluster-wide stream's new grant is a 410 (relist the new set,
 * which may be empty: the client's store empties); a namespaced stream's denial, the 403 (or 503) itself.
 */
function rechecks(deps: SubscriptionDeps, s: Subscription, grant: Grant): Observable<KubeApiError> {
  const changes = deps.authorizer.changes$ ?? EMPTY;
  const triggers = merge(
    changes.pipe(filter((c) => (!c.users || c.users.includes(s.user.username)) && (!c.clusters || c.clusters.includes(s.cluster)))),
    grant.kind === 'some' ? deps.clusters.namespaceAdded$(s.cluster) : EMPTY,
  );
  const print = fingerprint(grant);
  return triggers.pipe(
    concatMap(() =>
      defer(() => grantOf(deps, s, { orNone: isClusterWide(s) })).pipe(
        map((next): KubeApiError | undefined => (fingerprint(next) === print ? undefined : regranted())),
        catchError((error: unknown) => of(error instanceof KubeApiError ? error : regranted())),
      ),
    ),
    filter((e): e is KubeApiError => e !== undefined),
    take(1),
  );
}

const resumeKey = (s: Subscription): string => {
  const { resource, scope } = s.request;
  return JSON.stringify([
    s.user.username,
    s.user.uid,
    s.cluster,
    resource.group,
    resource.resource,
    scope.labelSelector,
    scope.fieldSelector,
  ]);
};

function expiredView(): KubeApiError {
  return statusError(410, 'Expired', 'this hub cannot tell which namespaces the client holds for this subscription: list again');
}

/**
 * The grant last served to each user for each cluster-wide subscription, on this replica (at most
 * `max`, the least recently served forgotten first). A watch that resumes from a resource version is
 * served only under the grant its client's objects were served under: the same as recorded, or,
 * with no record, a grant of everything (a grant of some namespaces never resumes unrecorded).
 */
export class ResumeRecords {
  readonly #served = new Map<string, string>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  /** Whether `key` was served on this replica (and is still remembered). */
  has(key: string): boolean {
    return this.#served.has(key);
  }

  /** Whether a watch under `print` may resume for `key`. */
  mayResume(key: string, print: string): boolean {
    const last = this.#served.get(key);
    return last === undefined ? print === '*' : last === print;
  }

  /** Records that `key` was served under `print`. */
  served(key: string, print: string): void {
    this.#served.delete(key);
    this.#served.set(key, print);
    if (this.#served.size > this.#max) this.#served.delete(this.#served.keys().next().value!);
  }
}

/**
 * The hub's two security contracts: an `Authenticator` names the user of each WebSocket connection
 * at its upgrade, an `Authorizer` decides each subscription (a list or a watch of one resource in
 * one namespace, or cluster-wide, of one cluster) and says when its decisions may have changed, so
 * that the hub re-checks the streams that are open. docs/hub-security.md is the model they serve.
 *
 * Both are asynchronous and may be called concurrently; neither throws for an expected outcome: a
 * refusal and a denial are values. A rejected promise is an error of the checker itself (the API
 * server unreachable): the hub fails closed (503) and counts it apart.
 */
import type { IncomingMessage } from 'node:http';
import type { Observable } from 'rxjs';

/**
 * Who a connection speaks for, as kube-apiserver's `UserInfo` (what a TokenReview returns and a
 * SubjectAccessReview takes).
 *
 * @example
 * const alice: HubUser = { username: 'alice', groups: ['system:authenticated', 'team-a'] };
 */
export interface HubUser {
  /** The user's name (`system:serviceaccount:ns:name` for a service account). */
  readonly username: string;
  /** A unique id, when the authenticator knows one (distinguishes a user deleted and re-created). */
  readonly uid?: string;
  /** The groups the user is a member of. */
  readonly groups: readonly string[];
  /** Further attributes (a service account's `authentication.kubernetes.io/pod-name`, scopes), passed on to SubjectAccessReview as they are. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What an `Authenticator` concluded of an upgrade request: a user, or a refusal.
 *
 * - `{ user }`: the connection is accepted for `user`. `expiresAt` (ms since the epoch), when given,
 *   is when the credential stops being valid (a bound token's `exp`): the hub closes the connection
 *   then, and the client reconnects with a fresh credential.
 * - `{ refused: 401 }`: no credential, or one that does not authenticate (an expired token, a
 *   request-header from an untrusted peer). `{ refused: 403 }`: authenticated, but not admitted.
 *   `message` is sent to the client: it must not quote the credential.
 */
export type Authentication = Authenticated | AuthenticationRefused;

/** The connection is accepted for `user`. */
export interface Authenticated {
  /** Who the connection speaks for. */
  readonly user: HubUser;
  /** When the credential stops being valid, in ms since the epoch: the hub closes the connection then. */
  readonly expiresAt?: number;
}

/** The connection is refused. */
export interface AuthenticationRefused {
  /** 401: no credential, or one that does not authenticate; 403: authenticated but not admitted. */
  readonly refused: 401 | 403;
  /** Sent to the client: never quoting the credential. */
  readonly message: string;
}

/**
 * Names the user of each WebSocket connection, once, at its HTTP upgrade (headers, the peer's
 * address and TLS certificate are all on `request`). Implementations: a bearer token checked with
 * TokenReview; headers set by an authenticating proxy, trusted only from a configured client
 * certificate or address.
 *
 * @example
 * // A fixed user per header, for a test that is not about authentication:
 * const authenticator: Authenticator = {
 *   authenticate: async (req) => {
 *     const name = req.headers['x-test-user'];
 *     return typeof name === 'string' ? { user: { username: name, groups: ['system:authenticated'] } } : { refused: 401, message: 'no user' };
 *   },
 * };
 *
 * A browser cannot set an `Authorization` header on a WebSocket: its bearer token arrives in
 * `Sec-WebSocket-Protocol` as kube-apiserver's `base64url.bearer.authorization.k8s.io.<base64url
 * token>` (`hubListerWatcherSource`'s `token` option sends it; the hub selects `rxinformer.channel.v1`,
 * never echoing the token's).
 *
 * Caveat: the request's headers carry the credential: never log them, nor put them in `message`.
 * A rejected promise (the API server unreachable) refuses the upgrade with 503.
 */
export interface Authenticator {
  /** The user `request` authenticates as, or why not. */
  authenticate(request: IncomingMessage): Promise<Authentication>;
  /**
   * Emits when authentications may have changed (a cached answer expired): the hub authenticates
   * every open connection again with its upgrade request, and closes those that no longer
   * authenticate as the same user (4001), or that it could not check (1013). Absent: a connection
   * is authenticated once, at its upgrade (and closed at its `expiresAt`).
   */
  readonly changes$?: Observable<unknown>;
}

/** The verbs a subscription is authorized for: a channel `list` request needs `list`, a `watch` needs `watch`. */
export type AccessVerb = 'list' | 'watch';

/**
 * One decision to take: may `user` `verb` `resource` (of `group`) in `namespace` (absent:
 * cluster-wide, all namespaces) of `cluster`? The attributes of a SubjectAccessReview's
 * `resourceAttributes`, plus the cluster the hub serves it from.
 */
export interface AccessRequest {
  /** `list` or `watch`. */
  readonly verb: AccessVerb;
  /** The API group (`''` for the core group). */
  readonly group: string;
  /** The resource's plural name (`pods`, `deployments`). */
  readonly resource: string;
  /** The namespace; absent for cluster-wide (every namespace, or a cluster-scoped resource). */
  readonly namespace?: string;
  /** The cluster's name as the hub knows it (`'default'` when the hub serves one). */
  readonly cluster: string;
}

/**
 * An `Authorizer`'s answer. `cached` says it came from the authorizer's cache, not a fresh review
 * (for the hub's metrics); `reason` is for the client's 403 message and the logs.
 */
export interface AccessDecision {
  /** True to allow. */
  readonly allowed: boolean;
  /** Why (the SubjectAccessReview's `reason`, or the authorizer's own words). */
  readonly reason?: string;
  /** True when answered from a cache. */
  readonly cached?: boolean;
}

/**
 * Decisions that may have changed: the hub re-authorizes every open subscription they concern.
 * `users` absent: every user; else only those usernames. `clusters` absent: every cluster.
 */
export interface AccessChange {
  /** The usernames concerned; absent for all. */
  readonly users?: readonly string[];
  /** The clusters concerned; absent for all. */
  readonly clusters?: readonly string[];
}

/**
 * Decides each subscription, and tells when decisions may have changed. The hub calls `authorize`
 * when a subscription arrives (once per `list` page and per `watch`), for each namespace when a
 * cluster-wide subscription is not allowed cluster-wide (to filter it to the namespaces the user
 * may list), and again for every open subscription a `changes$` emission concerns. A decision that
 * flips from allow to deny ends a namespaced stream with 403 and sends a filtered cluster-wide
 * stream a 410 (its client relists the filtered set).
 *
 * @example
 * // Allow everything: only for tests that are not about authorization.
 * const allowAllForTests: Authorizer = { authorize: async () => ({ allowed: true, reason: 'allow-all (tests)' }) };
 *
 * Caveat: a cache of decisions belongs in the authorizer, and so does its expiry: the hub re-checks
 * only when `changes$` says so, so an authorizer that caches must emit there at least once per
 * cache lifetime (or on an RBAC change it watches). A rejected promise is an error: the hub refuses
 * a new subscription with 503 and ends an open one with 503 (fail closed).
 */
export interface Authorizer {
  /** The decision for `user` and `request`. Must reflect the withdrawal a `changes$` emission announced. */
  authorize(user: HubUser, request: AccessRequest): Promise<AccessDecision>;
  /** Emits when decisions may have changed (a cache expired, an RBAC object changed); absent: decisions never change. */
  readonly changes$?: Observable<AccessChange>;
}

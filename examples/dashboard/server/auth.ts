/**
 * Who each tab is, and what it may see: the hub's two contracts over the cluster's own checks.
 *
 * - `tokenReviewAuthenticator`: the tab's bearer token (a ServiceAccount token, an OIDC token…)
 *   reviewed by the API server (TokenReview), as kube-apiserver itself would authenticate it.
 * - `staticTokenAuthenticator`: a file of `token,user,uid,"group1,group2"` lines (kube-apiserver's
 *   `--token-auth-file` format), for the simulator, which has no TokenReview.
 * - `subjectAccessReviewAuthorizer`: each subscription decided by a SubjectAccessReview of the
 *   user's list or watch, decisions kept until the next re-check, when the hub re-decides every open
 *   stream (a Role revoked takes the user's rows away within `recheckMs`).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AccessDecision, AccessRequest, Authenticator, Authorizer, HubUser } from '@rxinformer/hub';
import { interval, map, share, tap } from 'rxjs';

/** Sends one request with the hub's own credentials (`kubeApiClient(kc)` of @rxinformer/client-node is one). */
export interface ReviewClient {
  request<T = unknown>(req: { method: 'POST'; path: string; body: unknown }): Promise<T>;
}

const TOKEN_PROTOCOL = 'base64url.bearer.authorization.k8s.io.';

/** The bearer token of an upgrade: `Authorization: Bearer`, or the subprotocol a browser sends it in. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const [scheme, token] = (request.headers.authorization ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() === 'bearer' && token) return token;
  for (const p of String(request.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const entry = p.trim();
    if (entry.startsWith(TOKEN_PROTOCOL)) return Buffer.from(entry.slice(TOKEN_PROTOCOL.length), 'base64url').toString('utf8') || undefined;
  }
  return undefined;
}

const NO_TOKEN = { refused: 401, message: 'no bearer token: sign in with a token' } as const;
const BAD_TOKEN = { refused: 401, message: 'the bearer token does not authenticate' } as const;

/** TokenReview of each connection's token (one review per connection). */
export function tokenReviewAuthenticator(client: ReviewClient): Authenticator {
  return {
    authenticate: async (request) => {
      const token = bearerToken(request);
      if (token === undefined) return NO_TOKEN;
      const review = await client.request<{ status?: { authenticated?: boolean; user?: HubUser } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const user = review.status?.user;
      if (review.status?.authenticated !== true || !user?.username) return BAD_TOKEN;
      return { user: { username: user.username, uid: user.uid, groups: user.groups ?? [], extra: user.extra } };
    },
  };
}

/** The users of a static token file's text, by the SHA-256 of their token (the tokens are not kept). */
export function staticTokenAuthenticator(text: string, file = 'tokens'): Authenticator {
  const users = new Map<string, HubUser>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?$/.exec(line.trim());
    if (!m) throw new Error(`${file}:${i + 1}: expected token,user,uid,"group1,group2"`);
    const groups = (m[4] ?? '').split(',').filter((g) => g !== '');
    users.set(sha256(m[1]), { username: m[2], uid: m[3] || undefined, groups: [...groups, 'system:authenticated'] });
  }
  return {
    authenticate: (request) => {
      const token = bearerToken(request);
      const user = token === undefined ? undefined : users.get(sha256(token));
      return Promise.resolve(token === undefined ? NO_TOKEN : user ? { user } : BAD_TOKEN);
    },
  };
}

/**
 * A SubjectAccessReview per distinct decision; every `recheckMs` the decisions are forgotten and
 * the hub re-decides each open stream (`changes$`).
 */
export function subjectAccessReviewAuthorizer(client: ReviewClient, recheckMs: number): Authorizer {
  let decisions = new Map<string, Promise<AccessDecision>>();
  const changes$ = interval(recheckMs).pipe(
    tap(() => (decisions = new Map())),
    map(() => ({})),
    share(),
  );
  return {
    changes$,
    authorize: (user, request) => {
      const key = JSON.stringify([user.username, user.uid, user.groups, request.verb, request.group, request.resource, request.namespace]);
      const known = decisions.get(key);
      if (known) return known.then((d) => ({ ...d, cached: true }));
      const decision = review(client, user, request);
      decisions.set(key, decision);
      decision.catch(() => decisions.delete(key)); // an error is not kept: the next subscription asks again
      return decision;
    },
  };
}

async function review(client: ReviewClient, user: HubUser, r: AccessRequest): Promise<AccessDecision> {
  const answer = await client.request<{ status?: { allowed?: boolean; reason?: string } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: user.username,
        groups: user.groups,
        ...(user.uid !== undefined && { uid: user.uid }),
        ...(user.extra !== undefined && { extra: user.extra }),
        resourceAttributes: {
          verb: r.verb,
          group: r.group,
          resource: r.resource,
          ...(r.namespace !== undefined && { namespace: r.namespace }),
        },
      },
    },
  });
  return { allowed: answer.status?.allowed === true, reason: answer.status?.reason, cached: false };
}

/** Allows every subscription: the simulator has no RBAC to ask. */
export const allowEveryone: Authorizer = { authorize: () => Promise.resolve({ allowed: true, reason: 'the simulator has no RBAC' }) };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

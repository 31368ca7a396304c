/**
 * An `Authenticator` that asks the API server who a bearer token is: `authentication.k8s.io/v1`
 * TokenReview, sent with the hub's own credentials, the answer cached briefly by the token's hash.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { InvalidOptionsError } from '@rxinformer/core';
import { checkDuration, intervalEvery } from '@rxinformer/core/time';
import { asyncScheduler, map, share, type Observable, type SchedulerLike } from 'rxjs';
import type { Authentication, Authenticator, HubUser } from '../auth.ts';
import { bearerTokenOf } from './bearerToken.ts';
import { review, type ReviewClient } from './reviewClient.ts';
import { coalescing, TtlCache } from './ttlCache.ts';

/** Options of `tokenReviewAuthenticator`. */
export interface TokenReviewAuthenticatorOptions {
  /** The audiences the token must be for (TokenReview's `spec.audiences`); the answer must name one of them. Default: none asked (the API server's own). */
  audiences?: readonly string[];
  /** Name of a cookie that may carry the token (for a same-origin app). Default: none: header and subprotocol only. */
  cookie?: string;
  /** How long a token that authenticated is remembered, in ms; never past its expiry when it is a JWT with `exp`. Default 10 000 (kube-apiserver's). */
  successTtlMs?: number;
  /** How long a token refused is remembered, in ms. Default 0 (kube-apiserver's). */
  failureTtlMs?: number;
  /**
   * How often the hub authenticates its open connections again, in ms (`changes$`): each time, a
   * token whose answer is older than `successTtlMs` is reviewed afresh, and a connection whose token
   * no longer authenticates is closed (4001). A revoked token's connections close within
   * `recheckIntervalMs + successTtlMs`. Any length; `Infinity`: never (only at the upgrade). Default 30 000.
   */
  recheckIntervalMs?: number;
  /** Most tokens remembered at once. Default 10 000. */
  maxEntries?: number;
  /** The clock of the cache and the re-checks. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** `tokenReviewAuthenticator`'s authenticator, with its cache's keys to inspect. */
export interface TokenReviewAuthenticator extends Authenticator {
  /** Emits every `recheckIntervalMs`: the hub authenticates its open connections again. */
  readonly changes$: Observable<void>;
  /** The cache's keys: SHA-256 hashes of tokens, never a token. */
  cachedKeys(): string[];
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

const REFUSED: Authentication = { refused: 401, message: 'the bearer token does not authenticate' };

/**
 * Authenticates each upgrade's bearer token (`Authorization: Bearer`, kube-apiserver's
 * `base64url.bearer.authorization.k8s.io.` subprotocol, or the `cookie`) with a TokenReview sent
 * by `client` (the hub's credentials: it needs `create` on `tokenreviews`, as in the
 * `system:auth-delegator` ClusterRole). A token that authenticates is remembered `successTtlMs`
 * under its SHA-256 hash, never past the `exp` of a JWT; the connection's `expiresAt` is that `exp`.
 *
 * @example
 * import { kubeApiClient } from '@rxinformer/client-node';
 * const authenticator = tokenReviewAuthenticator(kubeApiClient(kc), { audiences: ['https://kubernetes.default.svc'] });
 * const hub = createHub({ clusters: { default: factory }, authenticator, authorizer });
 *
 * Caveat: a TokenReview that fails (the API server unreachable, the hub's credentials refused)
 * rejects with a `ReviewFailedError`: the hub answers 503, not 401, and closes an open connection it
 * re-checks with 1013 (fail closed; the tab reconnects with backoff). A token revoked is still
 * accepted for new connections until its cache entry expires (`successTtlMs`), and its open
 * connections last until the next re-check after that (`recheckIntervalMs`).
 */
export function tokenReviewAuthenticator(client: ReviewClient, options: TokenReviewAuthenticatorOptions = {}): TokenReviewAuthenticator {
  const { audiences, cookie, successTtlMs = 10_000, failureTtlMs = 0, maxEntries = 10_000, scheduler = asyncScheduler } = options;
  // Compared with the scheduler's clock: any length; Infinity: never expires.
  for (const [name, v] of Object.entries({ successTtlMs, failureTtlMs }))
    checkDuration(`tokenReviewAuthenticator: ${name}`, v, 0, { infinite: true });
  const recheckIntervalMs = checkDuration('tokenReviewAuthenticator: recheckIntervalMs', options.recheckIntervalMs, 30_000, {
    exclusive: true,
    infinite: true,
  });
  if (!(maxEntries >= 1)) throw new InvalidOptionsError('tokenReviewAuthenticator: maxEntries must be ≥ 1');
  if (audiences !== undefined && audiences.length === 0)
    throw new InvalidOptionsError('tokenReviewAuthenticator: audiences, when given, must name one');
  const now = () => scheduler.now();
  const cache = new TtlCache<Authentication>(maxEntries, now);
  const once = coalescing<Authentication>();

  const check = async (token: string): Promise<Authentication> => {
    const status = await review<TokenReviewStatus>(
      client,
      '/apis/authentication.k8s.io/v1/tokenreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences && { audiences }) } },
      'TokenReviewFailed',
    );
    const user = status?.authenticated === true ? userOf(status) : undefined;
    if (!user || (audiences && !status?.audiences?.some((a) => audiences.includes(a)))) return REFUSED;
    const exp = jwtExpiry(token);
    return exp === undefined ? { user } : { user, expiresAt: exp };
  };

  return {
    // each period: expired answers dropped (a revoked token is reviewed afresh), open connections re-checked
    changes$: intervalEvery(recheckIntervalMs, scheduler).pipe(
      map(() => void cache.sweep()),
      share(),
    ),
    cachedKeys: () => cache.keys(),
    authenticate: async (request: IncomingMessage) => {
      const found = bearerTokenOf(request, { cookie });
      if (found === undefined) return { refused: 401, message: 'no bearer token (Authorization header or subprotocol)' };
      if ('malformed' in found) return { refused: 401, message: found.malformed };
      const key = createHash('sha256').update(found.token).digest('base64url');
      const cached = cache.get(key);
      if (cached) return cached;
      return once(key, async () => {
        const result = await check(found.token);
        const ttl =
          'user' in result ? Math.min(successTtlMs, result.expiresAt === undefined ? Infinity : result.expiresAt - now()) : failureTtlMs;
        cache.set(key, result, ttl);
        return result;
      });
    },
  };
}

/** The user of a TokenReview that authenticated (none without a username). */
function userOf(status: TokenReviewStatus): HubUser | undefined {
  const u = status.user;
  if (typeof u?.username !== 'string' || u.username === '') return undefined;
  return {
    username: u.username,
    groups: Array.isArray(u.groups) ? u.groups.filter((g) => typeof g === 'string') : [],
    ...(typeof u.uid === 'string' && u.uid !== '' && { uid: u.uid }),
    ...(u.extra && typeof u.extra === 'object' && { extra: u.extra }),
  };
}

/** The `exp` of a JWT (in ms), read without verifying: the TokenReview verified the token. */
function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Fault injection, deterministic from the simulator's seed: drop, stall, corrupt or fail watches,
 * compact the history, fail the next N requests, add latency, restart, and bearer-token auth with
 * 403 for chosen resources. The same operations are served over HTTP under `/_sim/faults/...` for
 * out-of-process use (`control.ts`, with the `controlEndpoints` option).
 */
import type { Status } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import type { Random } from './random.ts';
import type { SimUser } from './rbac.ts';
import { ApiStatusError, errors, failure, tooOldStatus } from './status.ts';
import type { Storage } from './storage.ts';
import type { WatchHub, WatchTarget } from './watchHub.ts';

/** The kind of request a failure applies to. */
export type RequestClass = 'any' | 'read' | 'list' | 'watch' | 'write' | 'discovery';

/** Options of `failNext`. */
export interface FailOptions {
  /** HTTP code (default 500). 429 answers text/plain with Retry-After, like the API server's limiter. */
  code?: 500 | 503 | 429 | 410 | 504;
  /**
   * `Retry-After` seconds (default 1 for 429 and 503, none otherwise): a whole number >= 0 of any
   * size (the client decides how long it waits); else `failNext` throws `InvalidOptionsError`.
   */
  retryAfterSeconds?: number;
  /** Which requests count (default `any` API request, discovery excluded; `read` = get + list). */
  on?: RequestClass;
}

/** Which requests `failRequests` fails: every field given must match. */
export interface RequestFilter {
  /** The client's `User-Agent`, exactly (say `rxinformer-demo/replica-2`). Default: any. */
  userAgent?: string;
  /** The resource (plural, `name.group` outside the core group: `leases.coordination.k8s.io`, or the plural alone). Default: any. */
  resource?: string;
  /** Which requests (default `any`; `write` = create, update, patch, delete). */
  on?: RequestClass;
  /** HTTP code (default 500). */
  code?: 500 | 503 | 504;
}

/** Bearer-token authentication and per-resource denial. */
export interface AuthOptions {
  /** The token every request must carry (`Authorization: Bearer <token>`); 401 otherwise. */
  token: string;
  /** Resources (plural, `pods` or `deployments.apps`) answered 403, optionally only for some verbs. */
  forbidden?: { resource: string; verbs?: string[] }[];
  /**
   * More users, by token (kube-apiserver's `--token-auth-file`): each authenticates as its
   * `username` (with `system:authenticated` added to its groups) and is authorized by the RBAC
   * objects stored in the simulator. `token` itself is the admin `sim`, in `system:masters`.
   */
  users?: SimTokenUser[];
}

/** A line of the static token list: a token and the user it authenticates as. */
export interface SimTokenUser {
  /** The bearer token. */
  token: string;
  /** The user's name. */
  username: string;
  /** The user's uid. Default: none. */
  uid?: string;
  /** The user's groups (`system:authenticated` is added). Default: none. */
  groups?: string[];
}

/** The admin user the simulator's own token authenticates as. */
export const SIM_ADMIN: SimUser = { username: 'sim', groups: ['system:masters', 'system:authenticated'] };

interface PendingFailure {
  remaining: number;
  code: number;
  retryAfterSeconds?: number;
  on: RequestClass;
}

/** What `Faults.clearPending` forgot: faults that never met what they were waiting for. */
export interface PendingFaults {
  /** Request failures (`failNext`) still to be served. */
  failures: number;
  /** Watch faults (`next`) still waiting for a watch to open. */
  watchFaults: number;
}

/**
 * The fault controller of one simulator (`sim.faults`).
 *
 * @example
 * sim.faults.failNext(2, { code: 503, retryAfterSeconds: 1, on: 'list' });
 * sim.faults.dropWatches('one');
 */
export class Faults {
  readonly #random: Random;
  readonly #hub: WatchHub;
  readonly #storage: Storage;
  readonly #restart: () => void;
  #failures: PendingFailure[] = [];
  #filters: RequestFilter[] = [];
  #latencyMs = 0;
  #jitterMs = 0;
  #auth: AuthOptions | undefined;

  constructor(init: { random: Random; hub: WatchHub; storage: Storage; restart: () => void; auth?: AuthOptions }) {
    this.#random = init.random;
    this.#hub = init.hub;
    this.#storage = init.storage;
    this.#restart = init.restart;
    this.#auth = init.auth;
  }

  /** Abruptly closes every open watch (`all`), a seeded-random one (`one`), or the next to open (`next`). Returns how many were hit now. */
  dropWatches(target: WatchTarget = 'all'): number {
    return this.#hub.apply(
      target,
      (n) => this.#random.int(n),
      (s) => s.drop(),
    );
  }

  /** Sends an ERROR event (default: 410 Expired "too old resource version") and ends the stream. */
  injectWatchError(status?: Status, target: WatchTarget = 'all'): number {
    const rv = this.#storage.resourceVersion;
    const body = status ?? tooOldStatus(rv, rv);
    return this.#hub.apply(
      target,
      (n) => this.#random.int(n),
      (s) => s.error({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...body }),
    );
  }

  /** Compacts the history now: watches and continue tokens older than the current revision get 410. */
  compact(): void {
    this.#storage.compact();
  }

  /** Answers the next `count` matching requests with an error. */
  failNext(count: number, options: FailOptions = {}): void {
    const code = options.code ?? 500;
    if (options.retryAfterSeconds !== undefined)
      checkDuration('retryAfterSeconds', options.retryAfterSeconds, 0, { integer: true, unit: 's' });
    const retry = options.retryAfterSeconds ?? (code === 429 || code === 503 ? 1 : undefined);
    this.#failures.push({ remaining: count, code, on: options.on ?? 'any', ...(retry !== undefined ? { retryAfterSeconds: retry } : {}) });
  }

  /**
   * Fails every request that matches `filter` — say, one client's writes of Leases, so a leader's
   * renewals fail while everything else works — until the returned function is called (or `reset`).
   */
  failRequests(filter: RequestFilter): () => void {
    const f = { ...filter };
    this.#filters.push(f);
    return () => {
      this.#filters = this.#filters.filter((x) => x !== f);
    };
  }

  /** The failure of `failRequests` that applies to a request, if one does. */
  requestFailure(request: { userAgent: string; resource: string; group: string; cls: RequestClass }): ApiStatusError | undefined {
    const f = this.#filters.find(
      (x) =>
        (x.userAgent === undefined || x.userAgent === request.userAgent) &&
        (x.resource === undefined || x.resource === request.resource || x.resource === `${request.resource}.${request.group}`) &&
        classMatches(x.on ?? 'any', request.cls),
    );
    return f && failureError({ code: f.code ?? 500 });
  }

  /**
   * Delays every API response by `ms` plus a seeded jitter in [0, jitterMs). `latency(0)` turns it
   * off. Each a finite number >= 0 of any length (a delay past a JavaScript timer's 24.8 days is
   * waited out); NaN, Infinity and negative values throw `InvalidOptionsError`.
   */
  latency(ms: number, jitterMs = 0): void {
    this.#latencyMs = checkDuration('latency ms', ms, 0);
    this.#jitterMs = checkDuration('latency jitterMs', jitterMs, 0);
  }

  /** Stalls watches: the connection stays open and no byte is sent again. */
  stallWatches(target: WatchTarget = 'all'): number {
    return this.#hub.apply(
      target,
      (n) => this.#random.int(n),
      (s) => {
        s.stalled = true;
      },
    );
  }

  /** Writes a line that is not JSON into watches; the streams go on. */
  malformedLine(target: WatchTarget = 'all', text = '{"type":"MODIFIED","object":{"kind":'): number {
    return this.#hub.apply(
      target,
      (n) => this.#random.int(n),
      (s) => s.writeRaw(`${text}\n`),
    );
  }

  /**
   * Simulates an API server restart: every connection dropped, the server's own start-up write (its
   * identity Lease), then the watch history forgotten: a watch resumed from before the restart is
   * too old (410), as kube-apiserver's rebuilt watch cache answers. Revisions continue.
   */
  restart(): void {
    this.#restart();
    this.#storage.dropHistory();
  }

  /** Turns bearer-token auth on (or off with `undefined`). */
  setAuth(auth: AuthOptions | undefined): void {
    this.#auth =
      auth === undefined ? undefined : { token: auth.token, forbidden: [...(auth.forbidden ?? [])], users: [...(auth.users ?? [])] };
  }

  /** Adds a user to the static token list (replacing one of the same token). Needs auth on. */
  addUser(user: SimTokenUser): void {
    if (!this.#auth) throw new Error('addUser needs auth: call setAuth({ token }) first');
    if (user.token === this.#auth.token) throw new Error('addUser: that token is the admin token');
    this.#auth.users = [...(this.#auth.users ?? []).filter((u) => u.token !== user.token), { ...user }];
  }

  /**
   * The user a request's `Authorization` header authenticates as; undefined when auth is off (every
   * request is the admin's then). 401 for a missing or unknown token.
   */
  authenticate(authorization: string | undefined): SimUser | undefined {
    const auth = this.#auth;
    if (!auth) return undefined;
    const [scheme, token] = (authorization ?? '').trim().split(' ', 3);
    if (scheme.toLowerCase() !== 'bearer' || !token) throw errors.unauthorized();
    const user = this.userOf(token);
    if (!user) throw errors.unauthorized();
    return user;
  }

  /** The user `token` authenticates as (TokenReview's question), or undefined. */
  userOf(token: string): SimUser | undefined {
    const auth = this.#auth;
    if (!auth) return undefined;
    if (token === auth.token) return SIM_ADMIN;
    const u = (auth.users ?? []).find((x) => x.token === token);
    if (!u) return undefined;
    const groups = [...(u.groups ?? []).filter((g) => g !== 'system:authenticated'), 'system:authenticated'];
    return { username: u.username, groups, ...(u.uid !== undefined && { uid: u.uid }) };
  }

  /** The token clients must send, if auth is on. */
  get token(): string | undefined {
    return this.#auth?.token;
  }

  /** Answers 403 for `resource` (plural, `name.group` outside the core group), optionally only for `verbs`. Needs auth on. */
  forbid(resource: string, verbs?: string[]): void {
    if (!this.#auth) throw new Error('forbid needs auth: call setAuth({ token }) first');
    this.#auth.forbidden = [...(this.#auth.forbidden ?? []), { resource, ...(verbs ? { verbs } : {}) }];
  }

  /** Lifts every `forbid` of `resource`. */
  allow(resource: string): void {
    if (this.#auth) this.#auth.forbidden = (this.#auth.forbidden ?? []).filter((f) => f.resource !== resource);
  }

  /**
   * Forgets the faults still waiting for a request (`failNext`) or for a watch to open (`next`),
   * and says how many there were: what a scheduled fault never got to hit.
   */
  clearPending(): PendingFaults {
    const failures = this.#failures.reduce((n, f) => n + f.remaining, 0);
    this.#failures = [];
    return { failures, watchFaults: this.#hub.clearPending() };
  }

  /** Clears every fault (failures, latency, pending watch faults); auth stays as configured. */
  reset(): void {
    this.#failures = [];
    this.#filters = [];
    this.#latencyMs = 0;
    this.#jitterMs = 0;
    this.#hub.clearPending();
  }

  // ---- used by the server ----

  /** The delay to apply to the current request (ms). */
  delayMs(): number {
    if (this.#latencyMs === 0 && this.#jitterMs === 0) return 0;
    return this.#latencyMs + (this.#jitterMs > 0 ? this.#random.int(this.#jitterMs) : 0);
  }

  /** Consumes a pending failure for a request of class `cls`, if one applies. */
  takeFailure(cls: Exclude<RequestClass, 'any' | 'read'>): PendingFailure | undefined {
    const i = this.#failures.findIndex((f) => classMatches(f.on, cls));
    if (i < 0) return undefined;
    const f = this.#failures[i];
    f.remaining -= 1;
    if (f.remaining <= 0) this.#failures.splice(i, 1);
    return f;
  }

  /** Checks the bearer token (401) and the denials (403). */
  authorize(
    authorization: string | undefined,
    verb: string | undefined,
    resource: string | undefined,
    group: string,
    namespace: string | undefined,
  ): void {
    const user = this.authenticate(authorization);
    if (user && verb !== undefined && resource !== undefined) this.checkForbidden(user, verb, resource, group, namespace);
  }

  /** The 403 of a `forbid` fault that matches, for any user. */
  checkForbidden(user: SimUser, verb: string, resource: string, group: string, namespace: string | undefined): void {
    const auth = this.#auth;
    if (!auth) return;
    const qualified = group ? `${resource}.${group}` : resource;
    const denied = (auth.forbidden ?? []).some(
      (f) => (f.resource === qualified || f.resource === resource) && (!f.verbs || f.verbs.includes(verb)),
    );
    if (denied) throw errors.forbidden(verb, resource, group, namespace, user.username);
  }
}

function classMatches(on: RequestClass, cls: RequestClass): boolean {
  return on === 'any' ? cls !== 'discovery' : on === 'read' ? cls === 'list' : on === cls;
}

/** The error a pending failure answers with. */
export function failureError(f: { code: number; retryAfterSeconds?: number }): ApiStatusError {
  const details = f.retryAfterSeconds !== undefined ? { retryAfterSeconds: f.retryAfterSeconds } : {};
  switch (f.code) {
    case 429:
      return new ApiStatusError(failure(429, 'TooManyRequests', 'Too many requests, please try again later.', details));
    case 503:
      return new ApiStatusError(
        failure(503, 'ServiceUnavailable', 'the server is currently unable to handle the request (injected fault)', details),
      );
    case 410:
      return new ApiStatusError(failure(410, 'Expired', 'too old resource version (injected fault)', details));
    case 504:
      return new ApiStatusError(
        failure(504, 'Timeout', 'the server was unable to return a response in the time allotted (injected fault)', details),
      );
    default:
      return new ApiStatusError(
        failure(f.code, 'InternalError', 'Internal error occurred: injected fault', {
          ...details,
          causes: [{ message: 'injected fault' }],
        }),
      );
  }
}

/**
 * `rxinformer hub`: one replica of the dashboard hub (`@rxinformer/hub`) in its own process, over
 * one API server (`--url`, or a kubeconfig's current context), with its own informer caches; its
 * figures for Prometheus on `--metrics-port`. Several replicas behind one Service (or any
 * round-robin proxy) serve the same tabs: a tab whose replica dies reconnects through the Service to
 * another and resumes from its resource versions, or relists.
 *
 *   rxinformer hub --kubeconfig ~/.kube/config --token-review --subject-access-review --port 8080 --metrics-port 9090
 *
 * Prints one JSON line once listening: `{"hub":"http://host:port","metrics":"http://…","pid":…}`.
 * SIGTERM closes every connection (`bye`, then 1001: the tabs reconnect elsewhere) and exits.
 */
import { readFile } from 'node:fs/promises';
import { fetchApiClient } from '@rxinformer/controller';
import { createInformerFactory, fetchListerWatcher } from '@rxinformer/core';
import {
  bearerTokenOf,
  requestHeaderAuthenticator,
  startHub,
  subjectAccessReviewAuthorizer,
  tokenReviewAuthenticator,
  type Authenticator,
  type Authorizer,
  type HubUser,
  type ReviewClient,
} from '@rxinformer/hub';
import { serveEndpoints } from '../endpoints.ts';
import { kubeconfigAccess, urlAccess } from '../sharded/serverAccess.ts';
import { HUB_USAGE, HubArgsError, parseHubArgs, type HubArgs } from './hubArgs.ts';

export { HUB_USAGE } from './hubArgs.ts';

/** Runs a hub replica until SIGTERM or SIGINT. */
export async function runHubCommand(argv: readonly string[]): Promise<void> {
  let args: HubArgs;
  try {
    args = parseHubArgs(argv);
  } catch (e) {
    if (e instanceof HubArgsError) return usageError(e.message);
    throw e;
  }
  if (args.help) return void process.stdout.write(`${HUB_USAGE}\n`);
  // One connection per informer's watch (HTTP/1.1): a hub holds one informer per resource and scope
  // its tabs ask for, so a capped pool would leave every informer past the cap unlisted, unwatched.
  const access = args.kubeconfig ? await kubeconfigAccess(args.kubeconfig, { maxConnections: Infinity }) : urlAccess(args.url!);
  const factory = createInformerFactory((resource, scope) =>
    fetchListerWatcher({ baseUrl: access.url, headers: access.headers, fetch: access.fetch, resource, ...scope }),
  );
  const reviews = fetchApiClient({ baseUrl: access.url, headers: access.headers, fetch: access.fetch });
  const started = await startHub({
    clusters: { default: factory },
    authenticator: await authenticatorOf(args, reviews),
    authorizer: authorizerOf(args, reviews),
    port: args.port,
    host: args.host,
    ...(args.staticDir !== undefined && { staticDir: args.staticDir }),
    ...(args.origins && { origins: args.origins }),
    ...(args.tls && { tls: await tlsOf(args) }),
  });
  const name = args.name ?? `hub-${process.pid}`;
  const endpoints = args.metricsPort !== undefined ? await serveEndpoints({ hubs: { [name]: started.hub } }, args.metricsPort) : undefined;
  process.stdout.write(`${JSON.stringify({ hub: started.url, metrics: endpoints?.url, name, pid: process.pid })}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  endpoints?.stop.unsubscribe();
  await started.close();
  await access.close();
}

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${HUB_USAGE}\n`);
  process.exit(2);
}

/** The users of the flags: a proxy's headers, then the static tokens, then TokenReview. */
async function authenticatorOf(args: HubArgs, reviews: ReviewClient): Promise<Authenticator> {
  const tokens: Authenticator[] = [];
  if (args.tokenAuthFile !== undefined) tokens.push(tokenFileAuthenticator(await readFile(args.tokenAuthFile, 'utf8')));
  if (args.tokenReview)
    tokens.push(
      tokenReviewAuthenticator(reviews, {
        ...(args.tokenReview.audiences && { audiences: args.tokenReview.audiences }),
        ...(args.reviewCacheMs !== undefined && { successTtlMs: args.reviewCacheMs }),
        ...(args.recheckMs !== undefined && { recheckIntervalMs: args.recheckMs }),
      }),
    );
  const token = tokens.length > 1 ? firstOf(tokens[0], tokens[1]) : tokens[0];
  const rh = args.requestHeader;
  if (!rh) return token!;
  return requestHeaderAuthenticator({
    ...(rh.clientCAFile !== undefined && { clientCA: await readFile(rh.clientCAFile) }),
    ...(rh.allowedNames && { allowedNames: rh.allowedNames }),
    ...(rh.trustedAddresses && { trustedAddresses: rh.trustedAddresses }),
    ...(rh.usernameHeaders && { usernameHeaders: rh.usernameHeaders }),
    ...(rh.groupHeaders && { groupHeaders: rh.groupHeaders }),
    ...(rh.extraHeaderPrefixes && { extraHeaderPrefixes: rh.extraHeaderPrefixes }),
    ...(token && { otherwise: token }),
  });
}

/** `first`'s user, else `second`'s answer (a static token file, then TokenReview); `second`'s re-checks. */
function firstOf(first: Authenticator, second: Authenticator): Authenticator {
  return {
    ...(second.changes$ && { changes$: second.changes$ }),
    authenticate: async (request) => {
      const result = await first.authenticate(request);
      return 'user' in result ? result : second.authenticate(request);
    },
  };
}

function authorizerOf(args: HubArgs, reviews: ReviewClient): Authorizer {
  if (args.authorizer === 'asHub') return AS_HUB;
  const ttl = args.reviewCacheMs;
  return subjectAccessReviewAuthorizer(reviews, {
    ...(ttl !== undefined && { allowTtlMs: ttl, denyTtlMs: ttl / 2 }),
    ...(args.recheckMs !== undefined && { recheckIntervalMs: args.recheckMs }),
  });
}

async function tlsOf(args: HubArgs) {
  const [cert, key] = await Promise.all([readFile(args.tls!.certFile), readFile(args.tls!.keyFile)]);
  const ca = args.requestHeader?.clientCAFile !== undefined ? await readFile(args.requestHeader.clientCAFile) : undefined;
  // a proxy's client certificate is asked for, never required: a tab has none
  return { cert, key, ...(ca && { ca, requestCert: true, rejectUnauthorized: false }) };
}

/** Every user may read what the hub may: chosen explicitly with --authorize-as-hub. */
const AS_HUB: Authorizer = { authorize: () => Promise.resolve({ allowed: true, reason: 'the hub was started with --authorize-as-hub' }) };

/**
 * The users of a kube-apiserver static token file: `token,user,uid` and optionally a quoted,
 * comma-separated list of groups; every user is also in `system:authenticated`.
 *
 * @example
 * tokenFileAuthenticator('s3cret,alice,1,"dev,ops"\n');
 */
export function tokenFileAuthenticator(text: string): Authenticator {
  const users = new Map<string, HubUser>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?\s*$/.exec(line.trim());
    if (!m) throw new Error(`token auth file, line ${i + 1}: not token,user,uid[,"groups"]`);
    const groups = (m[4] ?? '').split(',').filter(Boolean);
    users.set(m[1], { username: m[2], ...(m[3] && { uid: m[3] }), groups: [...groups, 'system:authenticated'] });
  });
  return {
    authenticate: (request) => {
      const found = bearerTokenOf(request);
      const user = found && 'token' in found ? users.get(found.token) : undefined;
      return Promise.resolve(user ? { user } : { refused: 401, message: 'the bearer token does not authenticate' });
    },
  };
}

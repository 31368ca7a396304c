/**
 * The command line of `rxinformer hub`: its flags parsed and checked into what the replica runs
 * with (who the users are, what they may see, the re-check periods, TLS), before anything starts.
 * A flag out of place is a `HubArgsError` naming it.
 */
import { parseArgs } from 'node:util';
import { RxInformerError } from '@rxinformer/core';

export const HUB_USAGE = `rxinformer hub — one replica of the dashboard hub

  --url URL                 the API server without auth (the simulator)
  --kubeconfig PATH         the API server and the hub's own credentials (its current context)
  --port N                  where tabs connect (0: any free port; default 8080), path /hub
  --host ADDR               the address to listen on (default 127.0.0.1)
  --static DIR              serve a built page on the same origin
  --origin ORIGIN           an origin allowed to connect (repeatable; default: same-origin)
  --name NAME               this replica's hub label in the metrics (default: hub-<pid>)
  --metrics-port N          serve /metrics, /readyz, /healthz on 127.0.0.1 at this port
  --tls-cert-file PATH      serve HTTPS (wss://) with this certificate (PEM) ...
  --tls-private-key-file PATH   ... and its key

 Who the users are (at least one):
  --token-auth-file PATH    kube-apiserver's static token file (token,user,uid,"group1,group2")
  --token-review            a bearer token is whom the API server's TokenReview says (the hub's
                            credentials need create on tokenreviews: system:auth-delegator)
  --token-review-audience AUD   the audience a token must be for (repeatable; default: the API server's)
  --requestheader-client-ca-file PATH   trust an authenticating proxy's X-Remote-User / -Group /
                            -Extra-* from a client certificate signed by this CA (needs --tls-*);
                            a request without those headers goes to the token flags above
  --requestheader-allowed-names CN,...  the proxy certificate's allowed common names (default: any)
  --requestheader-trusted-address ADDR  trust those headers from this peer address (repeatable)
  --requestheader-username-headers H,...    default X-Remote-User
  --requestheader-group-headers H,...       default X-Remote-Group
  --requestheader-extra-headers-prefix P,... default X-Remote-Extra-

 What they may see (exactly one):
  --subject-access-review   each subscription as the user's RBAC allows (a SubjectAccessReview
                            per decision; the hub's credentials need create on subjectaccessreviews)
  --authorize-as-hub        every authenticated user may read what the hub's credentials can read

 Re-checks:
  --review-cache-seconds S  how long a TokenReview's success and a SubjectAccessReview's allow are
                            cached (default 10; a denial: half of it)
  --recheck-seconds S       how often open connections are authenticated again (TokenReview) and
                            expired decisions re-checked (default 30 and 5): a revoked token's
                            connections close within S + the cache seconds`;

/** A flag of `rxinformer hub` missing, out of range, or out of place. */
export class HubArgsError extends RxInformerError {
  /** Always `HubArgsError`: set as a string, so it survives minification. */
  override readonly name: string = 'HubArgsError';
  /** Always `InvalidHubArgs`. */
  declare readonly reason: 'InvalidHubArgs';

  constructor(message: string) {
    super('InvalidHubArgs', `rxinformer hub: ${message}`);
  }
}

/** How a replica's users authenticate through an authenticating proxy. */
export interface RequestHeaderArgs {
  readonly clientCAFile?: string;
  readonly allowedNames?: string[];
  readonly trustedAddresses?: string[];
  readonly usernameHeaders?: string[];
  readonly groupHeaders?: string[];
  readonly extraHeaderPrefixes?: string[];
}

/** `rxinformer hub`'s flags, checked. */
export interface HubArgs {
  readonly help: boolean;
  readonly url?: string;
  readonly kubeconfig?: string;
  readonly port: number;
  readonly host: string;
  readonly staticDir?: string;
  readonly origins?: string[];
  readonly name?: string;
  readonly metricsPort?: number;
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  readonly tokenAuthFile?: string;
  readonly tokenReview?: { readonly audiences?: string[] };
  readonly requestHeader?: RequestHeaderArgs;
  readonly authorizer: 'subjectAccessReview' | 'asHub';
  /** The cache lifetime of reviews in ms, when given. */
  readonly reviewCacheMs?: number;
  /** The re-check period in ms, when given. */
  readonly recheckMs?: number;
}

const MAX_TIMER_S = Math.floor((2 ** 31 - 1) / 1000);

/**
 * Parses `argv` (after `hub`).
 *
 * @example
 * parseHubArgs(['--kubeconfig', 'kc', '--token-review', '--subject-access-review']);
 *
 * Caveat: throws `HubArgsError` for a missing or conflicting flag; `--help` parses alone.
 */
export function parseHubArgs(argv: readonly string[]): HubArgs {
  let v;
  try {
    ({ values: v } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (e) {
    throw new HubArgsError((e as Error).message);
  }
  if (v.help) return { help: true, port: 0, host: '', authorizer: 'asHub' };
  if (!v.url === !v.kubeconfig) throw new HubArgsError('give one of --url and --kubeconfig');
  const requestHeader = requestHeaderOf(v);
  if (!v['token-auth-file'] && !v['token-review'] && !requestHeader)
    throw new HubArgsError('name the users: --token-auth-file, --token-review or --requestheader-*');
  if (v['token-review-audience'] && !v['token-review']) throw new HubArgsError('--token-review-audience needs --token-review');
  if (!v['subject-access-review'] === !v['authorize-as-hub'])
    throw new HubArgsError('give one of --subject-access-review and --authorize-as-hub');
  if (!v['tls-cert-file'] !== !v['tls-private-key-file']) throw new HubArgsError('--tls-cert-file and --tls-private-key-file go together');
  if (requestHeader?.clientCAFile && !v['tls-cert-file'])
    throw new HubArgsError('--requestheader-client-ca-file needs --tls-cert-file (a client certificate comes over TLS)');
  return {
    help: false,
    ...(v.url !== undefined && { url: v.url }),
    ...(v.kubeconfig !== undefined && { kubeconfig: v.kubeconfig }),
    port: portOf('--port', v.port),
    host: v.host,
    ...(v.static !== undefined && { staticDir: v.static }),
    ...(v.origin && { origins: v.origin }),
    ...(v.name !== undefined && { name: v.name }),
    ...(v['metrics-port'] !== undefined && { metricsPort: portOf('--metrics-port', v['metrics-port']) }),
    ...(v['tls-cert-file'] && { tls: { certFile: v['tls-cert-file'], keyFile: v['tls-private-key-file']! } }),
    ...(v['token-auth-file'] !== undefined && { tokenAuthFile: v['token-auth-file'] }),
    ...(v['token-review'] && { tokenReview: { ...(v['token-review-audience'] && { audiences: v['token-review-audience'] }) } }),
    ...(requestHeader && { requestHeader }),
    authorizer: v['subject-access-review'] ? 'subjectAccessReview' : 'asHub',
    ...(v['review-cache-seconds'] !== undefined && { reviewCacheMs: seconds('--review-cache-seconds', v['review-cache-seconds'], 0) }),
    ...(v['recheck-seconds'] !== undefined && { recheckMs: seconds('--recheck-seconds', v['recheck-seconds'], Number.MIN_VALUE) }),
  };
}

const OPTIONS = {
  url: { type: 'string' },
  kubeconfig: { type: 'string' },
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  static: { type: 'string' },
  origin: { type: 'string', multiple: true },
  name: { type: 'string' },
  'metrics-port': { type: 'string' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'token-review': { type: 'boolean' },
  'token-review-audience': { type: 'string', multiple: true },
  'requestheader-client-ca-file': { type: 'string' },
  'requestheader-allowed-names': { type: 'string' },
  'requestheader-trusted-address': { type: 'string', multiple: true },
  'requestheader-username-headers': { type: 'string' },
  'requestheader-group-headers': { type: 'string' },
  'requestheader-extra-headers-prefix': { type: 'string' },
  'subject-access-review': { type: 'boolean' },
  'authorize-as-hub': { type: 'boolean' },
  'review-cache-seconds': { type: 'string' },
  'recheck-seconds': { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** The request-header flags, or undefined when none is given. */
function requestHeaderOf(v: Values): RequestHeaderArgs | undefined {
  const list = (s: string | undefined) =>
    s === undefined
      ? undefined
      : s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  const r: RequestHeaderArgs = {
    ...(v['requestheader-client-ca-file'] !== undefined && { clientCAFile: v['requestheader-client-ca-file'] }),
    ...(v['requestheader-allowed-names'] !== undefined && { allowedNames: list(v['requestheader-allowed-names']) }),
    ...(v['requestheader-trusted-address'] && { trustedAddresses: v['requestheader-trusted-address'] }),
    ...(v['requestheader-username-headers'] !== undefined && { usernameHeaders: list(v['requestheader-username-headers']) }),
    ...(v['requestheader-group-headers'] !== undefined && { groupHeaders: list(v['requestheader-group-headers']) }),
    ...(v['requestheader-extra-headers-prefix'] !== undefined && { extraHeaderPrefixes: list(v['requestheader-extra-headers-prefix']) }),
  };
  if (Object.keys(r).length === 0) return undefined;
  if (!r.clientCAFile && !r.trustedAddresses)
    throw new HubArgsError('--requestheader-* needs --requestheader-client-ca-file or --requestheader-trusted-address');
  return r;
}

function portOf(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new HubArgsError(`${flag} must be a port number (0–65535), got ${value}`);
  return n;
}

/** A number of seconds in [min, one timer's limit], in ms. */
function seconds(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= min) || !(n <= MAX_TIMER_S))
    throw new HubArgsError(`${flag} must be a number of seconds ${min > 0 ? '> 0' : '≥ 0'} and at most ${MAX_TIMER_S}, got ${value}`);
  return n * 1000;
}

/**
 * An `Authenticator` for a hub behind an authenticating proxy, in kube-apiserver's request-header
 * style: the proxy names the user in headers (`X-Remote-User`, `X-Remote-Group`,
 * `X-Remote-Extra-<key>`), trusted only from a peer proven by a client certificate (signed by the
 * configured CA, with an allowed common name) or from a configured address.
 */
import type { IncomingMessage } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { InvalidOptionsError } from '@rxinformer/core';
import type { Authentication, Authenticator, HubUser } from '../auth.ts';

/** Options of `requestHeaderAuthenticator`. */
export interface RequestHeaderAuthenticatorOptions {
  /** The CA (PEM) that signs the proxy's client certificate (kube-apiserver's `--requestheader-client-ca-file`). The hub's server must ask for client certificates (`requestCert: true`). */
  clientCA?: string | Buffer;
  /** Common names the proxy's certificate may have (`--requestheader-allowed-names`). Default: any signed by `clientCA`. */
  allowedNames?: readonly string[];
  /** Peer addresses trusted without a certificate (a proxy on the loopback or a sidecar). Default: none. */
  trustedAddresses?: readonly string[];
  /** Headers naming the user, the first present wins. Default `['X-Remote-User']`. */
  usernameHeaders?: readonly string[];
  /** Headers naming the user's uid. Default: none. */
  uidHeaders?: readonly string[];
  /** Headers listing the groups (each value, or repeated). Default `['X-Remote-Group']`. */
  groupHeaders?: readonly string[];
  /** Prefixes of the headers of extra attributes (`X-Remote-Extra-Scopes: a`). Default `['X-Remote-Extra-']`. */
  extraHeaderPrefixes?: readonly string[];
  /** Asked for a request from an untrusted peer that carries none of these headers (e.g. a `tokenReviewAuthenticator`). Default: such a request is refused 401. */
  otherwise?: Authenticator;
}

const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';

/**
 * Reads the user from an authenticating proxy's headers, when the peer is trusted: its TLS client
 * certificate is signed by `clientCA` (directly), valid now, meant for client authentication, and
 * its CN is in `allowedNames`; or its address is in `trustedAddresses`. The headers of an untrusted
 * peer are refused (401), never passed on; the headers read are removed from the request.
 *
 * @example
 * const server = https.createServer({ key, cert, ca: proxyCa, requestCert: true, rejectUnauthorized: false });
 * const authenticator = requestHeaderAuthenticator({ clientCA: proxyCa, allowedNames: ['front-proxy'], otherwise: tokenReviewAuthenticator(client) });
 * createHub({ clusters, authenticator, authorizer }).attach(server);
 *
 * Caveat: the CA must sign the proxy's certificate itself (no intermediates), and should be a CA
 * of its own: any certificate it signs may name any user. `trustedAddresses` trusts every process
 * that can connect from that address. A connection the proxy vouched for keeps its user until it
 * closes (the hub's re-checks answer the same); those `otherwise` authenticated are re-checked by
 * it (its `changes$` is this authenticator's).
 */
export function requestHeaderAuthenticator(options: RequestHeaderAuthenticatorOptions): Authenticator {
  const ca = options.clientCA === undefined ? undefined : new X509Certificate(options.clientCA);
  const trustedAddresses = new Set((options.trustedAddresses ?? []).map(plainAddress));
  if (!ca && trustedAddresses.size === 0) throw new InvalidOptionsError('requestHeaderAuthenticator needs clientCA or trustedAddresses');
  const lower = (names: readonly string[] | undefined, fallback: string[]) => (names ?? fallback).map((n) => n.toLowerCase());
  const usernameHeaders = lower(options.usernameHeaders, ['X-Remote-User']);
  const uidHeaders = lower(options.uidHeaders, []);
  const groupHeaders = lower(options.groupHeaders, ['X-Remote-Group']);
  const extraPrefixes = lower(options.extraHeaderPrefixes, ['X-Remote-Extra-']);
  if (usernameHeaders.length === 0) throw new InvalidOptionsError('requestHeaderAuthenticator: usernameHeaders must name one');
  const ours = (h: string) =>
    [...usernameHeaders, ...uidHeaders, ...groupHeaders].includes(h) || extraPrefixes.some((p) => h.startsWith(p));

  const trusted = (request: IncomingMessage): boolean =>
    trustedAddresses.has(plainAddress(request.socket.remoteAddress ?? '')) ||
    (ca !== undefined && certificateTrusted(request, ca, options.allowedNames));

  // A proxy vouches for a connection once (its headers are removed after): a re-check of the same
  // upgrade request answers the same user; one authenticated by `otherwise` is checked by it again.
  const vouched = new WeakMap<IncomingMessage, Authentication>();
  return {
    ...(options.otherwise?.changes$ && { changes$: options.otherwise.changes$ }),
    authenticate: async (request: IncomingMessage): Promise<Authentication> => {
      const known = vouched.get(request);
      if (known) return known;
      const carried = Object.keys(request.headers).filter(ours);
      const trust = trusted(request);
      // No header of ours: not a proxied request (as kube-apiserver's, even from a trusted peer).
      if (carried.length === 0 && options.otherwise) return options.otherwise.authenticate(request);
      const user = trust ? userOf(request, { usernameHeaders, uidHeaders, groupHeaders, extraPrefixes }) : undefined;
      for (const h of carried) {
        delete request.headers[h];
        delete request.headersDistinct[h];
      }
      if (!trust) return { refused: 401, message: 'request-header authentication: the peer is not a trusted proxy' };
      if (!user) return { refused: 401, message: 'request-header authentication: no user header' };
      vouched.set(request, { user });
      return { user };
    },
  };
}

/** Whether the TLS peer of `request` holds a certificate `ca` signed for client auth, valid now, with an allowed CN. */
function certificateTrusted(request: IncomingMessage, ca: X509Certificate, allowedNames: readonly string[] | undefined): boolean {
  const socket = request.socket as TLSSocket;
  if (typeof socket.getPeerX509Certificate !== 'function') return false;
  const peer = socket.getPeerX509Certificate();
  if (!peer) return false;
  const now = Date.now();
  if (now < Date.parse(peer.validFrom) || now > Date.parse(peer.validTo)) return false;
  if (!peer.checkIssued(ca) || !peer.verify(ca.publicKey)) return false;
  const usage = peer.keyUsage;
  if (Array.isArray(usage) && usage.length > 0 && !usage.includes(CLIENT_AUTH_USAGE)) return false;
  if (!allowedNames || allowedNames.length === 0) return true;
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(peer.subject)?.[1];
  return cn !== undefined && allowedNames.includes(cn);
}

/** The user the headers name (undefined without a username). */
function userOf(
  request: IncomingMessage,
  h: { usernameHeaders: string[]; uidHeaders: string[]; groupHeaders: string[]; extraPrefixes: string[] },
): HubUser | undefined {
  const values = (name: string): string[] => request.headersDistinct[name] ?? []; // repeated headers kept apart, as Go's
  const first = (names: string[]) => names.flatMap(values).find((v) => v !== '');
  const username = first(h.usernameHeaders);
  if (username === undefined) return undefined;
  const uid = first(h.uidHeaders);
  const groups = h.groupHeaders.flatMap(values).filter((g) => g !== '');
  const extra: Record<string, string[]> = {};
  for (const name of Object.keys(request.headersDistinct)) {
    const prefix = h.extraPrefixes.find((p) => name.startsWith(p));
    if (!prefix) continue;
    const key = safeDecode(name.slice(prefix.length));
    extra[key] = [...(extra[key] ?? []), ...values(name)];
  }
  return { username, groups, ...(uid !== undefined && { uid }), ...(Object.keys(extra).length > 0 && { extra }) };
}

/** kube-apiserver unescapes extra keys (`%2F` for `/`). */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** An address without its IPv4-mapped IPv6 prefix. */
const plainAddress = (a: string): string => (a.startsWith('::ffff:') ? a.slice(7) : a);

/**
 * Where a WebSocket upgrade carries its bearer token: the `Authorization` header, kube-apiserver's
 * `base64url.bearer.authorization.k8s.io.<token>` subprotocol (a browser cannot set headers on a
 * WebSocket), or a cookie of a same-origin app. Read as kube-apiserver reads them.
 */
import type { IncomingMessage } from 'node:http';

/** kube-apiserver's prefix of a subprotocol carrying a bearer token (its `websocket` authenticator). */
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** A token found, none, or a carrier that is malformed (refused, as kube-apiserver refuses it). */
export type BearerToken =
  | {
      /** The token. */
      readonly token: string;
    }
  | {
      /** Why the carrier is refused (never quoting it). */
      readonly malformed: string;
    }
  | undefined;

/**
 * The bearer token of `request`: its `Authorization: Bearer` header first (the scheme in any case,
 * as kube-apiserver), then a `Sec-WebSocket-Protocol` entry of kube-apiserver's form (unpadded
 * base64url of UTF-8; one such entry at most, beside at least one other subprotocol to select), then
 * the cookie named `cookie`.
 *
 * @example
 * const found = bearerTokenOf(request, { cookie: 'hub-token' });
 * if (found && 'token' in found) await review(found.token);
 */
export function bearerTokenOf(request: IncomingMessage, options: { cookie?: string } = {}): BearerToken {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const [scheme, token] = header.trim().split(' ', 3);
    if (scheme.toLowerCase() === 'bearer' && token) return { token };
  }
  const fromProtocol = protocolToken(request);
  if (fromProtocol !== undefined) return fromProtocol;
  if (options.cookie !== undefined) {
    const token = cookieOf(request.headers.cookie, options.cookie);
    if (token) return { token };
  }
  return undefined;
}

/** The token of kube-apiserver's subprotocol, on a WebSocket upgrade only. */
function protocolToken(request: IncomingMessage): BearerToken {
  if (String(request.headers.upgrade ?? '').toLowerCase() !== 'websocket') return undefined;
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const carriers = offered.filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (carriers.length === 0) return undefined;
  if (carriers.length > 1) return { malformed: 'more than one bearer token subprotocol' };
  const encoded = carriers[0].slice(BEARER_PROTOCOL_PREFIX.length);
  // unpadded base64url (Go's RawURLEncoding): no padding, no other alphabet, no dangling 6 bits
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) return { malformed: 'the bearer token subprotocol is not base64url' };
  const bytes = Buffer.from(encoded, 'base64url');
  let token: string;
  try {
    token = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { malformed: 'the bearer token subprotocol is not UTF-8' };
  }
  if (token === '') return undefined;
  if (offered.length === carriers.length) return { malformed: 'a bearer token subprotocol needs another subprotocol beside it' };
  return { token };
}

/** The value of cookie `name` in a `Cookie` header. */
function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

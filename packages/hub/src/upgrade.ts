/**
 * What a WebSocket upgrade goes through before the channel: its path, its Origin (an allow-list;
 * same-origin by default), its user (the `Authenticator`), and the user's count of connections.
 * A refusal is an HTTP answer with a `Status` body; nothing the request carried is logged or echoed.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Authenticated, Authenticator } from './auth.ts';
import type { UpgradeRefusal } from './metrics.ts';

/** Which origins may open a connection: `'same-origin'` (the Origin's host is the request's Host), a list of origins, or `'any'`. */
export type OriginPolicy = 'same-origin' | 'any' | readonly string[];

/** The subprotocol a hub speaks; a client offers it (with, in a browser, its token as kube-apiserver's `base64url.bearer.authorization.k8s.io.` one). */
export const HUB_SUBPROTOCOL = 'rxinformer.channel.v1';

/** A refused upgrade: the HTTP status, the metric, and the message for the client. */
export interface Refusal {
  readonly status: number;
  readonly why: UpgradeRefusal;
  readonly message: string;
}

/**
 * Whether `request`'s Origin passes `policy`. A request with no Origin (not a browser: a browser
 * always sends one on a WebSocket) passes: Origin checks protect browsers' credentials (cookies)
 * from other sites' pages, which other clients do not carry.
 */
export function originAllowed(request: IncomingMessage, policy: OriginPolicy): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || policy === 'any') return true;
  if (policy === 'same-origin') {
    try {
      return new URL(origin).host === request.headers.host;
    } catch {
      return false;
    }
  }
  return policy.includes(origin);
}

/** Authenticates `request`: the user, or a refusal (an authenticator's failure is a 503). */
export async function authenticated(authenticator: Authenticator, request: IncomingMessage): Promise<Authenticated | Refusal> {
  try {
    const result = await authenticator.authenticate(request);
    if ('user' in result) return result;
    return { status: result.refused, why: result.refused === 401 ? 'unauthenticated' : 'forbidden', message: result.message };
  } catch {
    return { status: 503, why: 'authenticatorError', message: 'the hub could not authenticate the request; try again' };
  }
}

/** Answers a refused upgrade over the raw socket: an HTTP status with a `Status` body, then the end. */
export function refuse(socket: Duplex, refusal: Refusal): void {
  const reasons: Record<number, string> = {
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    429: 'TooManyRequests',
    503: 'ServiceUnavailable',
  };
  const reason = reasons[refusal.status] ?? 'BadRequest';
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: refusal.message,
    reason,
    code: refusal.status,
  });
  const head = `HTTP/1.1 ${refusal.status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`;
  if (socket.writable) socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  else socket.destroy();
}

/** The subprotocol the hub selects from those a client offered (never one carrying a token). */
export function selectProtocol(offered: Set<string>): string | false {
  return offered.has(HUB_SUBPROTOCOL) ? HUB_SUBPROTOCOL : false;
}

/**
 * The hub's open connections: each WebSocket served by the channel server for its user, counted
 * per user (for the limit), closed when its credential expires or no longer authenticates, all
 * closed on shutdown.
 */
import type { IncomingMessage } from 'node:http';
import type { InformerServer } from '@rxinformer/core/channel';
import { scheduleAfter } from '@rxinformer/core/time';
import { asyncScheduler } from 'rxjs';
import type { WebSocket } from 'ws';
import type { Authenticated, HubUser } from './auth.ts';
import type { MessageEncoder } from './encoder.ts';
import type { HubLogger } from './log.ts';
import type { MetricCounters } from './metrics.ts';
import type { HubLimits } from './options.ts';
import type { HubPeer } from './serveSubscription.ts';
import { socketConnection } from './socketConnection.ts';
import type { Refusal } from './upgrade.ts';

/** Authenticates an upgrade request again: the user, or a refusal (503: the check itself failed). */
export type Reauthenticate = (request: IncomingMessage) => Promise<Authenticated | Refusal>;

/** The connections of a hub. */
export interface HubConnections {
  /** Serves `ws` for `user`, authenticated by `request`, until it closes (or `expiresAt`, ms since the epoch). */
  serve(ws: WebSocket, request: IncomingMessage, auth: Authenticated, remote: string | undefined): void;
  /** Authenticates every open connection again; closes those no longer `user` (4001) or not checked (1013). */
  reauthenticate(check: Reauthenticate): void;
  /** How many connections `username` holds open. */
  of(username: string): number;
  /** Closes every connection (1001). */
  closeAll(): void;
}

/** The connections served by `server`. */
export function hubConnections(
  server: InformerServer<HubPeer>,
  encoder: MessageEncoder,
  counters: MetricCounters,
  limits: Required<HubLimits>,
  log: HubLogger,
): HubConnections {
  const perUser = new Map<string, number>();
  const sockets = new Set<WebSocket>();
  const socketLimits = { ...limits, lowWaterBytes: limits.highWaterBytes / 2 };
  const count = (username: string, delta: number) => {
    const n = (perUser.get(username) ?? 0) + delta;
    if (n > 0) perUser.set(username, n);
    else perUser.delete(username);
  };
  const open = new Map<WebSocket, { request: IncomingMessage; user: HubUser; fields: { user: string; remote?: string } }>();
  const closeFor = (ws: WebSocket, why: 'credentialExpired' | 'credentialRevoked' | 'authenticatorError', fields: object) => {
    if (!open.has(ws)) return;
    counters.connectionsClosed[why]++;
    log('info', `connection closed: ${CLOSES[why][1]}`, { ...fields, why });
    ws.close(CLOSES[why][0], CLOSES[why][1]);
  };
  // A bound token's `exp` may be months away: past one timer's limit too (scheduleAfter).
  const expire = (ws: WebSocket, expiresAt: number | undefined, fields: { user: string; remote?: string }) =>
    expiresAt === undefined
      ? undefined
      : scheduleAfter(asyncScheduler, Math.max(0, expiresAt - Date.now()), () => closeFor(ws, 'credentialExpired', fields));
  return {
    reauthenticate: (check) => {
      for (const [ws, c] of open)
        void check(c.request).then((result) => {
          if ('user' in result && sameUser(result.user, c.user)) return;
          closeFor(ws, 'status' in result && result.status === 503 ? 'authenticatorError' : 'credentialRevoked', c.fields);
        });
    },
    serve: (ws, request, { user, expiresAt }, remote) => {
      const fields = { user: user.username, remote };
      const connection = socketConnection(ws, encoder, counters, socketLimits, (why, detail) =>
        log('warn', `connection closed: ${detail}`, { ...fields, why }),
      );
      sockets.add(ws);
      counters.clients++;
      count(user.username, 1);
      const session = server.serve(connection, { user });
      open.set(ws, { request, user, fields });
      const expiry = expire(ws, expiresAt, fields);
      ws.on('close', () => {
        open.delete(ws);
        expiry?.unsubscribe();
        session.unsubscribe();
        sockets.delete(ws);
        counters.clients--;
        count(user.username, -1);
      });
      log('info', 'connection opened', fields);
    },
    of: (username) => perUser.get(username) ?? 0,
    closeAll: () => {
      counters.connectionsClosed.shutdown += sockets.size;
      for (const ws of sockets) ws.close(1001, 'the hub is shutting down');
    },
  };
}

/** The close code and reason of each way a credential ends a connection (4001: authenticate again). */
const CLOSES = {
  credentialExpired: [4001, 'credential expired'],
  credentialRevoked: [4001, 'credential no longer authenticates'],
  authenticatorError: [1013, 'the hub could not authenticate the connection again'],
} as const;

/** Whether a re-authentication names the connection's user (name and uid). */
const sameUser = (a: HubUser, b: HubUser): boolean => a.username === b.username && a.uid === b.uid;

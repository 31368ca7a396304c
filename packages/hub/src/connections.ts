/**
 * The hub's open connections: each WebSocket served by the channel server for its user, counted
 * per user (for the limit), closed when its credential expires, all closed on shutdown.
 */
import type { InformerServer } from '@rxinformer/core/channel';
import type { WebSocket } from 'ws';
import type { HubUser } from './auth.ts';
import type { MessageEncoder } from './encoder.ts';
import type { HubLogger } from './log.ts';
import type { MetricCounters } from './metrics.ts';
import type { HubLimits } from './options.ts';
import type { HubPeer } from './serveSubscription.ts';
import { socketConnection } from './socketConnection.ts';

/** The connections of a hub. */
export interface HubConnections {
  /** Serves `ws` for `user` until it closes (or `expiresAt`, ms since the epoch). */
  serve(ws: WebSocket, user: HubUser, expiresAt: number | undefined, remote: string | undefined): void;
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
  const expire = (ws: WebSocket, expiresAt: number | undefined, fields: { user: string; remote?: string }) => {
    if (expiresAt === undefined) return undefined;
    const close = () => {
      counters.connectionsClosed.credentialExpired++;
      log('info', 'connection closed: its credential expired', fields);
      ws.close(4001, 'credential expired');
    };
    return setTimeout(close, Math.max(0, expiresAt - Date.now()));
  };
  return {
    serve: (ws, user, expiresAt, remote) => {
      const fields = { user: user.username, remote };
      const connection = socketConnection(ws, encoder, counters, socketLimits, (why, detail) =>
        log('warn', `connection closed: ${detail}`, { ...fields, why }),
      );
      sockets.add(ws);
      counters.clients++;
      count(user.username, 1);
      const session = server.serve(connection, { user });
      const expiry = expire(ws, expiresAt, fields);
      ws.on('close', () => {
        clearTimeout(expiry);
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

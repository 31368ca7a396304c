/**
 * The TCP face of the fault proxy: it accepts the clients' connections and relays their bytes to
 * the proxy's HTTP server on an inner port, so a fault can act on a whole connection as a network
 * does — reset it (RST), or blackhole it (open, and silent both ways).
 */
import { connect, createServer, type Socket } from 'node:net';

/** One client connection and its leg to the inner server. */
interface Pair {
  readonly client: Socket;
  readonly inner: Socket;
  blackholed: boolean;
}

/** A running relay. */
export interface TcpRelay {
  /** The port clients connect to. */
  readonly port: number;
  /** TCP connections accepted so far. */
  accepted(): number;
  /** Connections open now. */
  open(): number;
  /**
   * Resets the client connection whose leg reaches the inner server from `innerPort` (the inner
   * server's view of its remote port); false when there is none.
   */
  reset(innerPort: number): boolean;
  /**
   * Stops relaying bytes on every open connection, in both directions (what arrives is dropped),
   * leaving them open; returns how many.
   */
  blackhole(): number;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a relay on 127.0.0.1 (a free port) in front of `127.0.0.1:innerPort`.
 *
 * @example
 * const relay = await startTcpRelay(innerServerPort);
 * relay.blackhole(); // every client connection open now goes silent
 */
export async function startTcpRelay(innerPort: number): Promise<TcpRelay> {
  const pairs = new Map<number, Pair>(); // by the inner leg's local port
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer({ noDelay: true }, (client) => {
    accepted++;
    const inner = connect({ port: innerPort, host: '127.0.0.1', noDelay: true });
    sockets.add(client).add(inner);
    client.on('error', () => inner.destroy());
    inner.on('error', () => client.destroy());
    client.on('close', () => {
      sockets.delete(client);
      sockets.delete(inner);
      inner.destroy();
    });
    inner.on('close', () => client.destroy());
    inner.once('connect', () => {
      const pair: Pair = { client, inner, blackholed: false };
      const port = inner.localPort!;
      pairs.set(port, pair);
      inner.once('close', () => pairs.delete(port));
      client.pipe(inner);
      inner.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    open: () => pairs.size,
    reset(innerPortOfPair) {
      const pair = pairs.get(innerPortOfPair);
      if (!pair) return false;
      pair.client.resetAndDestroy();
      pair.inner.destroy();
      return true;
    },
    blackhole() {
      let count = 0;
      for (const pair of pairs.values()) {
        if (pair.blackholed) continue;
        pair.blackholed = true;
        // Bytes are read and dropped, so each side still sees the other close its end.
        pair.client.unpipe(pair.inner);
        pair.inner.unpipe(pair.client);
        pair.client.resume();
        pair.inner.resume();
        count++;
      }
      return count;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

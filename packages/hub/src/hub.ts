/**
 * The hub: a channel server (`@rxinformer/core/channel`) over WebSockets, its informers one per
 * resource, scope and cluster for every user, each subscription authorized for its user.
 *
 *   upgrade ─ path, Origin, Authenticator, connections per user ─▶ ws ─ socketConnection ─▶ server.serve(connection, { user })
 *   request ─ informerFor = serveSubscription: cluster, projection, grant (Authorizer), resume rule, re-checks ─▶ InformerView
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { createInformerServer } from '@rxinformer/core/channel';
import { intervalEvery } from '@rxinformer/core/time';
import { asyncScheduler, map, share, type Observable } from 'rxjs';
import { WebSocketServer } from 'ws';
import { Clusters } from './clusters.ts';
import { MessageEncoder } from './encoder.ts';
import { MetricCounters, type HubMetrics } from './metrics.ts';
import { resolveHubOptions, type HubOptions } from './options.ts';
import { Projections } from './projections.ts';
import { ResumeRecords, serveSubscription, type HubPeer, type SubscriptionDeps } from './serveSubscription.ts';
import { hubConnections } from './connections.ts';
import { authenticated, originAllowed, refuse, selectProtocol, type Refusal } from './upgrade.ts';

/** A running hub. */
export interface Hub {
  /**
   * Answers WebSocket upgrades on the hub's `path` of `server` (node:http, node:https, or node:http2
   * with `allowHTTP1`); upgrades on other paths are left to the server's other listeners. Returns
   * the detach function.
   */
  attach(server: HttpServer | HttpsServer | Http2SecureServer): () => void;
  /** Answers one upgrade request (for a server that routes upgrades itself). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** This replica's figures now. */
  metrics(): HubMetrics;
  /** This replica's figures every `metricsIntervalMs` (shared; runs while subscribed). */
  readonly metrics$: Observable<HubMetrics>;
  /** Closes every connection (`bye`, then 1001), stops the informers and the factories. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates a hub over `options.clusters`' informer factories (started now).
 *
 * @example
 * const hub = createHub({ clusters: { default: factory }, authenticator, authorizer });
 * const server = http.createServer(servePage);
 * hub.attach(server); // ws://host/hub
 * server.listen(8080);
 *
 * Caveat: the hub shows each user what its `authorizer` allows: an allow-all authorizer shows every
 * user everything the hub's own credentials can read.
 */
export function createHub(options: HubOptions): Hub {
  const o = resolveHubOptions(options);
  const counters = new MetricCounters();
  const clusters = new Clusters(o.clusters, o.defaultCluster);
  const encoder = new MessageEncoder();
  const log = o.log ?? (() => undefined);
  const deps: SubscriptionDeps = {
    authorizer: o.authorizer,
    namespaces: (cluster) => clusters.namespaces(cluster),
    record: (outcome, cached) => counters.decision(outcome, cached),
    clusters,
    projections: new Projections(o.projections),
    resumes: new ResumeRecords(),
  };
  const server = createInformerServer<HubPeer>({
    ...o.channel,
    informerFor: (resource, scope, request, peer) => serveSubscription(deps, resource, scope, request, peer),
    maxStreams: o.limits.maxStreamsPerConnection,
    highWaterBytes: o.limits.highWaterBytes,
    maxPendingBytes: o.limits.maxPendingBytes,
    onBackpressure: (what, n) => (what === 'coalesced' ? (counters.eventsCoalesced += n) : (counters.resyncs += n)),
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: o.limits.maxMessageBytes,
    handleProtocols: selectProtocol,
    perMessageDeflate: false,
  });
  const connections = hubConnections(server, encoder, counters, o.limits, log);
  let closed = false;
  clusters.start();
  const reauthentication = o.authenticator.changes$?.subscribe(() =>
    connections.reauthenticate((request) => authenticated(o.authenticator, request)),
  );

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const remote = request.socket.remoteAddress;
    const refused = (r: Refusal) => {
      counters.upgradesRefused[r.why]++;
      log('warn', `upgrade refused: ${r.why}`, { remote, why: r.why });
      refuse(socket, r);
    };
    socket.on('error', () => undefined);
    if (closed) return refused({ status: 503, why: 'path', message: 'the hub is shutting down' });
    if (!originAllowed(request, o.origins))
      return refused({ status: 403, why: 'origin', message: 'this origin may not connect to the hub' });
    void authenticated(o.authenticator, request).then((result) => {
      if ('status' in result) return refused(result);
      const { user } = result;
      if (connections.of(user.username) >= o.limits.maxConnectionsPerUser)
        return refused({
          status: 429,
          why: 'tooManyConnections',
          message: `more than ${o.limits.maxConnectionsPerUser} connections for one user`,
        });
      if (closed || socket.destroyed) return socket.destroy();
      wss.handleUpgrade(request, socket, head, (ws) => connections.serve(ws, request, result, remote));
    });
  };

  const metrics = (): HubMetrics => ({ ...counters.snapshot(), informers: clusters.held.size });
  return {
    attach: (httpServer) => attachTo(httpServer, o.path, handleUpgrade, counters),
    handleUpgrade,
    metrics,
    metrics$: intervalEvery(o.metricsIntervalMs, asyncScheduler).pipe(map(metrics), share()),
    close: async () => {
      if (closed) return;
      closed = true;
      reauthentication?.unsubscribe();
      server.shutdown();
      connections.closeAll();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      clusters.shutdown();
    },
  };
}

/** Answers the upgrades on `path` of `httpServer` with `handleUpgrade`; others, when no other listener takes them, 404. */
function attachTo(
  httpServer: HttpServer | HttpsServer | Http2SecureServer,
  path: string,
  handleUpgrade: Hub['handleUpgrade'],
  counters: MetricCounters,
): () => void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(request) === path) return handleUpgrade(request, socket, head);
    if (httpServer.listenerCount('upgrade') === 1) {
      counters.upgradesRefused.path++;
      refuse(socket, { status: 404, why: 'path', message: 'no WebSocket is served at this path' });
    }
  };
  httpServer.on('upgrade', onUpgrade);
  return () => void httpServer.off('upgrade', onUpgrade);
}

/** The path of an upgrade's URL (no query). */
function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

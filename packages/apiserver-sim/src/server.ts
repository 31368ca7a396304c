/**
 * The simulator's HTTP server (node:http, or node:https with the `tls` option): `startApiServer`
 * builds the storage, object store, watch hub and faults, listens, and hands every request to
 * `router.ts`; an error a request throws is answered with its Status.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SchedulerLike } from 'rxjs';
import type { ServerVersion } from './discovery.ts';
import { Faults, type AuthOptions } from './faults.ts';
import { kubeconfigYaml, writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig.ts';
import type { RevisionWait } from './listPages.ts';
import { ObjectStore } from './objects.ts';
import { seededRandom, type Random } from './random.ts';
import { ResourceRegistry } from './resources.ts';
import { sendStatus } from './responses.ts';
import { routeRequest, type ServerContext } from './router.ts';
import { ApiStatusError, errors } from './status.ts';
import { Storage, type HistoryOptions } from './storage.ts';
import { checkServerDurations } from './timers.ts';
import { WatchHub } from './watchHub.ts';

/** Options of `startApiServer`. Every field is optional. */
export interface ApiServerOptions {
  /** TCP port (default 0: a free port). */
  port?: number;
  /** Listen address (default `127.0.0.1`). */
  host?: string;
  /** Seed of every random choice: UIDs, generateName suffixes, fault targets (default 1). */
  seed?: number;
  /**
   * Watch history bounds, per resource like the API server's watch cache (default 10,000 events of
   * each resource, 5 minutes): churn of one kind never expires another kind's resourceVersions.
   */
  history?: HistoryOptions;
  /**
   * Interval of watch BOOKMARK events when `allowWatchBookmarks=true` (default 60,000 ms): any
   * length (a period past a JavaScript timer's 24.8 days is waited out); 0 or `Infinity`: none.
   * NaN and negative values throw `InvalidOptionsError`, as for every duration option here.
   */
  bookmarkIntervalMs?: number;
  /**
   * Watch duration when the client sends no `timeoutSeconds`, or 0 (default 1800 s): > 0, any
   * length. A client's own `timeoutSeconds` is kept however long, as kube-apiserver keeps it.
   */
  defaultWatchTimeoutSeconds?: number;
  /** How long a request for a future resourceVersion waits before 504 (default 3000 ms): >= 0, any length. */
  tooLargeWaitMs?: number;
  /** The version `/version` reports (default 1.33); its minor picks the kubectl build. */
  version?: ServerVersion;
  /** Bearer-token auth (default off). */
  auth?: AuthOptions;
  /** Refuse writes into missing namespaces (default true). */
  namespaceLifecycle?: boolean;
  /** Namespaces created at start (default default, kube-system, kube-public, kube-node-lease). */
  namespaces?: string[];
  /** Pod grace period when a delete names none, in seconds (default 0): >= 0, any length (a delete's own `gracePeriodSeconds` too). */
  defaultPodGracePeriodSeconds?: number;
  /** Milliseconds per second of grace period (default 1000): a finite number >= 0. */
  graceMsPerSecond?: number;
  /**
   * Milliseconds a deleted namespace stays Terminating before the simulated namespace controller
   * deletes its contents and then the namespace (default 0: right after the DELETE is answered):
   * >= 0, any length.
   */
  namespaceDeletionDelayMs?: number;
  /**
   * Where the simulator's own timers run: grace periods, the namespace controller's passes, watch
   * bookmarks and `timeoutSeconds`; its clock ages the watch history (`history.maxAgeMs`). A test passes a virtual-time scheduler and advances it instead
   * of waiting. Default: Node timers (that do not hold the process open).
   */
  scheduler?: SchedulerLike;
  /** Unsent bytes after which a slow watcher is disconnected (default 64 MiB). */
  maxWatchBufferBytes?: number;
  /**
   * KEP-5866's `ShardedListAndWatch` feature gate: honour `shardSelector` on list and watch (a
   * malformed one is a 500 without a reason, as kube-apiserver 1.36 answers) and echo it, normalized,
   * as `metadata.shardInfo` of lists. Off (the default), the parameter is ignored, as a server without
   * the gate does.
   */
  shardedListAndWatch?: boolean;
  /**
   * The `WatchList` feature gate (default true, as in kube-apiserver 1.34–1.37). Off, a watch with
   * `sendInitialEvents` is refused with 422 Invalid, as kube-apiserver 1.36 does with the gate off.
   */
  watchList?: boolean;
  /** Serve HTTPS instead of HTTP (default: plain HTTP). */
  tls?: TlsOptions;
  /**
   * Serve the control endpoints `GET /_sim/state` and `POST /_sim/faults/<name>` (the HTTP face of
   * `sim.faults`, for other processes). They require the bearer token when `auth` is on, and a POST
   * must be `Content-Type: application/json` (else 415), so a web page cannot reach them with a
   * cross-site simple request. Off, `/_sim/...` answers 404 like any unknown path; `sim.faults`
   * works either way. Default: true for a plain test server, false when the `auth` or `tls` option
   * is set (a later `faults.setAuth` does not change it): a production-like server with credentials,
   * where whoever holds the token could otherwise lift its own 403s (`allow`) or turn auth off for
   * everyone (`auth`).
   */
  controlEndpoints?: boolean;
}

/** The simulator's TLS identity, and client-certificate authentication when `clientCa` is set. */
export interface TlsOptions {
  /** The server's certificate (PEM); its subjectAltName must cover the listen address. */
  cert: string;
  /** The server's private key (PEM). */
  key: string;
  /** The CA (PEM) that signed `cert`: written into kubeconfigs as certificate-authority-data. */
  ca: string;
  /**
   * A CA (PEM) whose client certificates are required: a TLS client without one is refused during
   * the handshake, as a real API server with only x509 authentication does. Default: none asked.
   */
  clientCa?: string;
  /** The client certificate and key (PEM) put into the kubeconfigs this server writes. Default: none. */
  client?: {
    /** The client certificate (PEM). */
    cert: string;
    /** Its private key (PEM). */
    key: string;
  };
}

/** A running simulator. */
export interface ApiServer {
  /** `http://127.0.0.1:<port>` (`https://` with the `tls` option). */
  readonly url: string;
  /** TLS handshakes completed so far (0 without `tls`): shows whether clients reuse connections. */
  readonly tlsHandshakes: number;
  /** The port it listens on (the one chosen when `port: 0`). */
  readonly port: number;
  /** The object store: create, update, delete and read objects directly (emits watch events). */
  readonly storage: ObjectStore;
  /** Fault injection. */
  readonly faults: Faults;
  /** Open watch streams. */
  readonly watches: WatchHub;
  /** The kubeconfig YAML pointing at this server (with the auth token when auth is on). */
  kubeconfigYaml(): string;
  /** Writes that kubeconfig to `path` (mode 0600, atomically replacing a file there; a symlink is refused). */
  writeKubeconfig(path: string): Promise<void>;
  /** Stops listening, drops every connection and clears every timer. */
  close(): Promise<void>;
}

/** Waits for future revisions that a closing server cancels all at once. */
function revisionWaits(timeoutMs: number): { wait: RevisionWait; cancelAll: () => void } {
  const pending = new Set<() => void>();
  return {
    wait: {
      timeoutMs,
      track: (cancel) => {
        pending.add(cancel);
        return () => pending.delete(cancel);
      },
    },
    cancelAll: () => {
      for (const cancel of [...pending]) cancel();
    },
  };
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The node:http server, or node:https with `tls` (counting its handshakes). */
function createNodeServer(tls: TlsOptions | undefined, onRequest: RequestHandler): { server: Server; handshakes: () => number } {
  if (!tls) return { server: createServer({ keepAliveTimeout: 5000, noDelay: true }, onRequest), handshakes: () => 0 };
  let handshakes = 0;
  const secure = createTlsServer(
    {
      keepAliveTimeout: 5000,
      noDelay: true,
      cert: tls.cert,
      key: tls.key,
      ...(tls.clientCa !== undefined && { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
    },
    onRequest,
  );
  secure.on('secureConnection', () => {
    handshakes++;
  });
  return { server: secure, handshakes: () => handshakes };
}

/** The object store, with the namespaces that exist at start. */
function objectStore(options: ApiServerOptions, storage: Storage, registry: ResourceRegistry, random: Random): ObjectStore {
  const objects = new ObjectStore({
    storage,
    registry,
    random,
    namespaceLifecycle: options.namespaceLifecycle,
    defaultPodGracePeriodSeconds: options.defaultPodGracePeriodSeconds,
    graceMsPerSecond: options.graceMsPerSecond,
    namespaceDeletionDelayMs: options.namespaceDeletionDelayMs,
    scheduler: options.scheduler,
  });
  for (const ns of options.namespaces ?? ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    objects.create('namespaces', { metadata: { name: ns } });
  }
  return objects;
}

/**
 * Starts a simulator on 127.0.0.1.
 *
 * Caveat: watch bookmarks and timeouts use real timers unless `scheduler` is given; in tests, pass
 * a virtual-time one or shrink `bookmarkIntervalMs`.
 *
 * @example
 * const sim = await startApiServer({ port: 0, seed: 7, bookmarkIntervalMs: 200 });
 * await fetch(`${sim.url}/api/v1/namespaces/default/pods`);
 * await sim.close();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  checkServerDurations(options);
  const random = seededRandom(options.seed ?? 1);
  const { scheduler } = options;
  const storage = new Storage({ ...options.history, ...(scheduler ? { now: () => scheduler.now() } : {}) });
  const registry = new ResourceRegistry();
  const objects = objectStore(options, storage, registry, random);
  const hub = new WatchHub();
  const waits = revisionWaits(options.tooLargeWaitMs ?? 3000);
  const dropAll = () => {
    for (const s of hub.sessions()) s.drop();
    server.closeAllConnections();
    announceStart(objects);
  };
  const faults = new Faults({ random, hub, storage, restart: dropAll, auth: options.auth });
  const ctx: ServerContext = {
    objects,
    registry,
    storage,
    hub,
    faults,
    wait: waits.wait,
    version: options.version ?? { major: '1', minor: '33' },
    watch: options,
    shardedListAndWatch: options.shardedListAndWatch === true,
    watchList: options.watchList !== false,
    controlEndpoints: options.controlEndpoints ?? (options.auth === undefined && options.tls === undefined),
  };
  const { server, handshakes } = createNodeServer(options.tls, (req, res) => {
    routeRequest(ctx, req, res).catch((e: unknown) => {
      if (e instanceof ApiStatusError) sendStatus(res, e.status);
      else sendStatus(res, errors.internal(e instanceof Error ? e.message : String(e)).status);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`;
  const kubeconfigOptions = (): KubeconfigOptions => kubeconfigFor(url, faults.token, options.tls);
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    get tlsHandshakes() {
      return handshakes();
    },
    storage: objects,
    faults,
    watches: hub,
    kubeconfigYaml: () => kubeconfigYaml(kubeconfigOptions()),
    writeKubeconfig: (path) => writeKubeconfigFile(path, kubeconfigOptions()),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        waits.cancelAll();
        objects.close();
        server.close(() => resolve());
        dropAll();
      });
      return closed;
    },
  };
}

/** The kubeconfig of a server at `url`: its token when auth is on, its CA and client identity with TLS. */
function kubeconfigFor(url: string, token: string | undefined, tls: TlsOptions | undefined): KubeconfigOptions {
  return {
    server: url,
    ...(token ? { token } : {}),
    ...(tls && { certificateAuthority: tls.ca, ...(tls.client && { clientCertificate: tls.client.cert, clientKey: tls.client.key }) }),
  };
}

/**
 * What a starting kube-apiserver writes before it serves: its identity Lease in kube-system. So the
 * revision moves at every (re)start, and a watch resumed from before it is too old (410), as there.
 */
function announceStart(objects: ObjectStore): void {
  const ref = 'coordination.k8s.io/v1/leases';
  const name = 'apiserver-sim';
  const spec = { holderIdentity: name, leaseDurationSeconds: 3600, renewTime: new Date().toISOString().replace('Z', '000Z') };
  const current = objects.find(ref, 'kube-system', name);
  try {
    if (current) objects.update(ref, { ...current, spec }, 'kube-system', name);
    else objects.create(ref, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec }, 'kube-system');
  } catch (e) {
    if (!(e instanceof ApiStatusError)) throw e; // a server started without kube-system: nothing to announce
  }
}

/**
 * The simulator's HTTP server (node:http, or node:https with the `tls` option): routing, discovery, list/watch/CRUD/patch handlers,
 * fault hooks, and the `/_sim` control endpoints (control.ts) when enabled. `startApiServer` is the entry point.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject, ListMeta } from '@rxinformer/core';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  OPENAPI_V2_JSON,
  OPENAPI_V2_PROTOBUF,
  OPENAPI_V2_PROTOBUF_TYPE,
  versionInfo,
  type ServerVersion,
} from './discovery.ts';
import { serveControl } from './control.ts';
import { Faults, failureError, type AuthOptions, type RequestClass } from './faults.ts';
import { parseResourcePath, Query, readBody, readObjectBody, sendJson, sendJsonText, sendStatus, type ResourcePath } from './http.ts';
import { listJson } from './serialize.ts';
import { kubeconfigYaml, writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig.ts';
import {
  listPage,
  parseResourceVersion,
  sendInitialEventsOf,
  validateListQuery,
  waitForRevision,
  type ListQuery,
  type RevisionWait,
} from './list.ts';
import { ObjectStore, type DeleteOptions } from './objects.ts';
import { applyPatch } from './patching.ts';
import { seededRandom } from './random.ts';
import { groupVersion, ResourceRegistry, type ResourceInfo } from './resources.ts';
import { compileSelectors } from './selectors.ts';
import { shardInfo, withShardSelector } from './shardSelector.ts';
import { ApiStatusError, errors } from './status.ts';
import { Storage, type HistoryOptions } from './storage.ts';
import { toTable } from './table.ts';
import { WatchSession, type WatchStart } from './watch.ts';
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
  /** Interval of watch BOOKMARK events when `allowWatchBookmarks=true` (default 60,000 ms). */
  bookmarkIntervalMs?: number;
  /** Watch duration when the client sends no `timeoutSeconds`, or 0 (default 1800 s). */
  defaultWatchTimeoutSeconds?: number;
  /** How long a request for a future resourceVersion waits before 504 (default 3000 ms). */
  tooLargeWaitMs?: number;
  /** The version `/version` reports (default 1.33); its minor picks the kubectl build. */
  version?: ServerVersion;
  /** Bearer-token auth (default off). */
  auth?: AuthOptions;
  /** Refuse writes into missing namespaces (default true). */
  namespaceLifecycle?: boolean;
  /** Namespaces created at start (default default, kube-system, kube-public, kube-node-lease). */
  namespaces?: string[];
  /** Pod grace period when a delete names none, in seconds (default 0). */
  defaultPodGracePeriodSeconds?: number;
  /** Milliseconds per second of grace period (default 1000). */
  graceMsPerSecond?: number;
  /**
   * Milliseconds a deleted namespace stays Terminating before the simulated namespace controller
   * deletes its contents and then the namespace (default 0: right after the DELETE is answered).
   */
  namespaceDeletionDelayMs?: number;
  /**
   * KEP-5866's `ShardedListAndWatch` feature gate: honour `shardSelector` on list and watch (a
   * malformed one is a 400) and echo it as `metadata.shardInfo` of lists. Off (the default), the
   * parameter is ignored, as a server without the gate does.
   */
  shardedListAndWatch?: boolean;
  /** Unsent bytes after which a slow watcher is disconnected (default 64 MiB). */
  maxWatchBufferBytes?: number;
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

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

function userAgentManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? 'unknown';
  return ua.split('/')[0].slice(0, 128) || 'unknown';
}

/**
 * Starts a simulator on 127.0.0.1.
 *
 * Caveat: watch bookmarks and timeouts use real timers; shrink `bookmarkIntervalMs` in tests.
 *
 * @example
 * const sim = await startApiServer({ port: 0, seed: 7, bookmarkIntervalMs: 200 });
 * await fetch(`${sim.url}/api/v1/namespaces/default/pods`);
 * await sim.close();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const random = seededRandom(options.seed ?? 1);
  const storage = new Storage(options.history ?? {});
  const registry = new ResourceRegistry();
  const objects = new ObjectStore({
    storage,
    registry,
    random,
    namespaceLifecycle: options.namespaceLifecycle,
    defaultPodGracePeriodSeconds: options.defaultPodGracePeriodSeconds,
    graceMsPerSecond: options.graceMsPerSecond,
    namespaceDeletionDelayMs: options.namespaceDeletionDelayMs,
  });
  for (const ns of options.namespaces ?? ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    objects.create('namespaces', { metadata: { name: ns } });
  }
  const hub = new WatchHub();
  const version = options.version ?? { major: '1', minor: '33' };
  const pendingWaits = new Set<() => void>();
  const wait: RevisionWait = {
    timeoutMs: options.tooLargeWaitMs ?? 3000,
    track: (cancel) => {
      pendingWaits.add(cancel);
      return () => pendingWaits.delete(cancel);
    },
  };
  let server: Server;
  const dropAll = () => {
    for (const s of hub.sessions()) s.drop();
    server.closeAllConnections();
  };
  const faults = new Faults({ random, hub, storage, restart: dropAll, auth: options.auth });
  const controlEndpoints = options.controlEndpoints ?? (options.auth === undefined && options.tls === undefined);
  const ctx: Ctx = { objects, registry, storage, hub, faults, wait, version, options, controlEndpoints };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(ctx, req, res).catch((e: unknown) => {
      if (e instanceof ApiStatusError) sendStatus(res, e.status);
      else sendStatus(res, errors.internal(e instanceof Error ? e.message : String(e)).status);
    });
  };
  const tls = options.tls;
  let tlsHandshakes = 0;
  if (tls) {
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
      tlsHandshakes++;
    });
    server = secure;
  } else {
    server = createServer({ keepAliveTimeout: 5000, noDelay: true }, onRequest);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`;
  const kubeconfigOptions = (): KubeconfigOptions => ({
    server: url,
    ...(faults.token ? { token: faults.token } : {}),
    ...(tls && { certificateAuthority: tls.ca, ...(tls.client && { clientCertificate: tls.client.cert, clientKey: tls.client.key }) }),
  });
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    get tlsHandshakes() {
      return tlsHandshakes;
    },
    storage: objects,
    faults,
    watches: hub,
    kubeconfigYaml: () => kubeconfigYaml(kubeconfigOptions()),
    writeKubeconfig: (path) => writeKubeconfigFile(path, kubeconfigOptions()),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        for (const cancel of [...pendingWaits]) cancel();
        objects.close();
        server.close(() => resolve());
        dropAll();
      });
      return closed;
    },
  };
}

interface Ctx {
  objects: ObjectStore;
  registry: ResourceRegistry;
  storage: Storage;
  hub: WatchHub;
  faults: Faults;
  wait: RevisionWait;
  version: ServerVersion;
  options: ApiServerOptions;
  /** The resolved `controlEndpoints` option. */
  controlEndpoints: boolean;
}

async function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  if (path.startsWith('/_sim/')) {
    // The token first, as on every path; switched off, the endpoints are unknown paths.
    ctx.faults.authorize(req.headers.authorization, undefined, undefined, '', undefined);
    if (!ctx.controlEndpoints) throw errors.unknownPath();
    return serveControl(ctx, req, res, path);
  }
  const method = req.method ?? 'GET';
  const route = parseResourcePath(path, (g, v, r) => ctx.registry.get(g, v, r)?.namespaced === true);
  const q = new Query(url.searchParams);
  const cls: RequestClass = !route ? 'discovery' : method === 'GET' ? (isWatch(route, method, q) ? 'watch' : 'list') : 'write';
  ctx.faults.authorize(req.headers.authorization, undefined, undefined, '', undefined);
  const delay = ctx.faults.delayMs();
  if (delay > 0) await sleepCancellable(delay, ctx.wait);
  const failure = ctx.faults.takeFailure(cls as Exclude<RequestClass, 'any' | 'read'>);
  if (failure) throw failureError(failure);
  if (!route) return discovery(ctx, req, res, path, method);
  const resInfo = ctx.registry.get(route.group, route.version, route.resource);
  if (!resInfo) throw errors.unknownPath();
  if (route.subresource !== undefined && !resInfo.subresources.includes(route.subresource)) throw errors.unknownPath();
  if (!resInfo.namespaced && route.namespace !== undefined) throw errors.unknownPath();
  return resource(ctx, req, res, route, resInfo, q, method);
}

/** Waits `ms` (the latency fault); a closing server cancels the wait, which then fails with 503. */
function sleepCancellable(ms: number, wait: RevisionWait): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const untrack = wait.track(() => {
      clearTimeout(timer);
      reject(errors.unavailable('the server is shutting down'));
    });
    const timer = setTimeout(() => {
      untrack();
      resolve();
    }, ms);
  });
}

function discovery(ctx: Ctx, req: IncomingMessage, res: ServerResponse, path: string, method: string): void {
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/version') return sendJson(res, 200, versionInfo(ctx.version));
  if (p === '/healthz' || p === '/livez' || p === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (p === '/api') return sendJson(res, 200, apiVersions());
  if (p === '/apis') return sendJson(res, 200, apiGroupList(ctx.registry));
  if (p === '/openapi/v2') {
    if ((req.headers.accept ?? '').includes('protobuf')) {
      res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_TYPE, 'Content-Length': OPENAPI_V2_PROTOBUF.length });
      res.end(OPENAPI_V2_PROTOBUF);
      return;
    }
    return sendJson(res, 200, OPENAPI_V2_JSON);
  }
  const segs = p.split('/').filter((s) => s);
  if (segs[0] === 'api' && segs.length === 2) {
    const list = apiResourceList(ctx.registry, '', segs[1]);
    if (list) return sendJson(res, 200, list);
  }
  if (segs[0] === 'apis' && segs.length === 2) {
    const g = apiGroup(ctx.registry, segs[1]);
    if (g) return sendJson(res, 200, g);
  }
  if (segs[0] === 'apis' && segs.length === 3) {
    const list = apiResourceList(ctx.registry, segs[1], segs[2]);
    if (list) return sendJson(res, 200, list);
  }
  throw errors.unknownPath();
}

/** How the client wants objects rendered, from its Accept header. */
type Rendering = 'object' | 'table' | 'metadata';

function rendering(req: IncomingMessage): Rendering {
  const accept = req.headers.accept ?? '';
  const first = accept.split(',')[0] ?? '';
  if (first.includes('as=Table')) return 'table';
  if (first.includes('as=PartialObjectMetadata')) return 'metadata';
  return 'object';
}

const partial = (obj: KubeObject): KubeObject => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });

function tableOf(r: ResourceInfo, objs: KubeObject[], meta: ListMeta): unknown {
  return toTable(r.resource, objs, meta, new Date());
}

/** A watch: the legacy `/watch/` path, or a GET of a collection with `watch=true` (a named GET ignores it). */
function isWatch(route: ResourcePath, method: string, q: Query): boolean {
  return route.legacyWatch || (method === 'GET' && route.name === undefined && q.bool('watch'));
}

function verbOf(method: string, route: ResourcePath, watch: boolean): Verb {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : route.name !== undefined ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name !== undefined ? 'delete' : 'deletecollection';
    default:
      throw errors.methodNotAllowed();
  }
}

async function resource(
  ctx: Ctx,
  req: IncomingMessage,
  res: ServerResponse,
  route: ResourcePath,
  r: ResourceInfo,
  q: Query,
  method: string,
): Promise<void> {
  const watch = isWatch(route, method, q);
  const verb = verbOf(method, route, watch);
  if (!r.verbs.includes(verb)) throw errors.methodNotAllowed();
  ctx.faults.authorize(req.headers.authorization, verb, r.resource, r.group, route.namespace);
  const cls: RequestClass = verb === 'watch' ? 'watch' : verb === 'get' || verb === 'list' ? 'list' : 'write';
  const refused = ctx.faults.requestFailure({ userAgent: req.headers['user-agent'] ?? '', resource: r.resource, group: r.group, cls });
  if (refused) throw refused;
  const ns = route.namespace;
  const fieldValidation = q.str('fieldValidation');
  if (fieldValidation !== undefined && !['Strict', 'Warn', 'Ignore', ''].includes(fieldValidation)) {
    throw errors.badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${fieldValidation}"`);
  }
  const dryRun = q.params.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) throw errors.badRequest(`dryRun must be "All"`);
  const write = {
    fieldManager: q.str('fieldManager') ?? userAgentManager(req),
    dryRun: dryRun.includes('All'),
    ...(route.subresource ? { subresource: route.subresource } : {}),
  };
  const mode = rendering(req);
  const one = (obj: KubeObject, code = 200) =>
    sendJson(
      res,
      code,
      mode === 'table' ? tableOf(r, [obj], { resourceVersion: obj.metadata?.resourceVersion }) : mode === 'metadata' ? partial(obj) : obj,
    );

  switch (verb) {
    case 'watch':
      return startWatch(ctx, res, route, r, q, mode);
    case 'list': {
      const lq = listQuery(q, ns);
      const shard = q.str('shardSelector');
      const matcher = withShardSelector(
        compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector')),
        shard,
        ctx.options.shardedListAndWatch,
      );
      const listed = await listPage(ctx.storage, r, lq, matcher, ctx.wait);
      const page = { ...listed, metadata: { ...listed.metadata, ...shardInfo(shard, ctx.options.shardedListAndWatch) } };
      if (mode === 'table') return sendJson(res, 200, tableOf(r, page.items, page.metadata));
      if (mode === 'metadata')
        return sendJson(res, 200, {
          kind: 'PartialObjectMetadataList',
          apiVersion: 'meta.k8s.io/v1',
          metadata: page.metadata,
          items: page.items.map(partial),
        });
      return sendJsonText(res, 200, listJson(r.listKind, groupVersion(r), page.metadata, page.items));
    }
    case 'get':
      return one(ctx.objects.get(r, ns, route.name as string));
    case 'create': {
      if (route.name !== undefined) throw errors.methodNotAllowed();
      const body = (await readObjectBody(req)) as KubeObject;
      return one(ctx.objects.create(r, body, ns, { ...write, owned: true }), 201);
    }
    case 'update': {
      if (route.name === undefined) throw errors.methodNotAllowed();
      const body = (await readObjectBody(req)) as KubeObject;
      return one(ctx.objects.update(r, body, ns, route.name, { ...write, owned: true }));
    }
    case 'patch': {
      if (route.name === undefined) throw errors.methodNotAllowed();
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
      const text = await readBody(req);
      const { object, created } = applyPatch(ctx.objects, r, ns, route.name, contentType, text, { ...write, force: q.bool('force') });
      return one(object, created ? 201 : 200);
    }
    case 'delete': {
      const opts = deleteOptions(await readObjectBody(req, true), q);
      const before = ctx.objects.get(r, ns, route.name as string);
      const last = ctx.objects.delete(r, ns, route.name as string, { ...opts, ...(write.dryRun ? { dryRun: ['All'] } : {}) });
      const returnsObject =
        (r.group === '' && (r.resource === 'pods' || r.resource === 'namespaces')) ||
        r.custom ||
        r.resource === 'customresourcedefinitions' ||
        last.metadata?.deletionTimestamp !== undefined;
      if (returnsObject) return one(last);
      return sendJson(res, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: route.name, ...(r.group ? { group: r.group } : {}), kind: r.resource, uid: before.metadata?.uid },
      });
    }
    case 'deletecollection': {
      const opts = deleteOptions(await readObjectBody(req, true), q);
      const matcher = compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector'));
      const doomed = ctx.objects.list(r, ns).filter((o) => matcher.matches(o));
      const items = doomed.map((o) =>
        ctx.objects.delete(r, o.metadata?.namespace, o.metadata?.name as string, { ...opts, ...(write.dryRun ? { dryRun: ['All'] } : {}) }),
      );
      return sendJson(res, 200, {
        kind: r.listKind,
        apiVersion: groupVersion(r),
        metadata: { resourceVersion: String(ctx.storage.resourceVersion) },
        items,
      });
    }
  }
}

function listQuery(q: Query, namespace: string | undefined): ListQuery {
  const lq: ListQuery = {};
  if (namespace !== undefined) lq.namespace = namespace;
  const set = <K extends keyof ListQuery>(k: K, v: ListQuery[K] | undefined) => {
    if (v !== undefined) lq[k] = v;
  };
  set('resourceVersion', q.str('resourceVersion'));
  set('resourceVersionMatch', q.str('resourceVersionMatch'));
  set('limit', limitOf(q));
  set('continue', q.str('continue'));
  set('sendInitialEvents', q.str('sendInitialEvents'));
  return lq;
}

/** `limit`: a positive integer; 0 or a negative one means no limit, as on a real server. */
function limitOf(q: Query): number | undefined {
  const v = q.str('limit');
  if (v !== undefined && /^-\d+$/.test(v)) return undefined;
  return q.int('limit') || undefined;
}

function deleteOptions(body: unknown, q: Query): DeleteOptions {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    throw errors.badRequest('DeleteOptions must be a JSON object');
  const b = (body ?? {}) as DeleteOptions & { kind?: string };
  const out: DeleteOptions = {};
  const grace = q.int('gracePeriodSeconds') ?? b.gracePeriodSeconds;
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  if (b.preconditions) out.preconditions = b.preconditions;
  const policy = q.str('propagationPolicy') ?? b.propagationPolicy;
  if (policy !== undefined) {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw errors.invalid('DeleteOptions', '', [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
          field: 'propagationPolicy',
        },
      ]);
    }
    out.propagationPolicy = policy;
  }
  return out;
}

async function startWatch(ctx: Ctx, res: ServerResponse, route: ResourcePath, r: ResourceInfo, q: Query, mode: Rendering): Promise<void> {
  const lq = listQuery(q, route.namespace);
  validateListQuery(r, lq, true);
  if (lq.continue) throw errors.badRequest('continue is not supported for watch');
  const matcher = withShardSelector(
    compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector'), route.name),
    q.str('shardSelector'),
    ctx.options.shardedListAndWatch,
  );
  const allowBookmarks = q.bool('allowWatchBookmarks');
  // like the real server, timeoutSeconds=0 means unset
  const timeoutSeconds = q.int('timeoutSeconds') || (ctx.options.defaultWatchTimeoutSeconds ?? 1800);
  const rv = lq.resourceVersion ?? '';
  const initialEvents = sendInitialEventsOf(lq);
  let start: WatchStart;
  if (initialEvents === true) {
    if (rv !== '' && rv !== '0') await waitForRevision(ctx.storage, parseResourceVersion(rv), ctx.wait);
    start = { kind: 'initialEvents' };
  } else if (rv !== '' && rv !== '0') start = { kind: 'from', rv: parseResourceVersion(rv) };
  // sendInitialEvents=false: only changes from now on
  else if (initialEvents === false) start = { kind: 'from', rv: ctx.storage.resourceVersion };
  else start = { kind: 'synthetic' };
  const render =
    mode === 'table'
      ? (obj: KubeObject, v: string) => tableOf(r, [obj], { resourceVersion: v })
      : mode === 'metadata'
        ? (obj: KubeObject) => partial(obj)
        : undefined;
  const session = new WatchSession(
    ctx.hub.nextId(),
    {
      res: r,
      ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
      matcher,
      start,
      allowBookmarks,
      timeoutSeconds,
      bookmarkIntervalMs: ctx.options.bookmarkIntervalMs ?? 60_000,
      ...(render ? { render } : {}),
      ...(ctx.options.maxWatchBufferBytes !== undefined ? { maxBufferedBytes: ctx.options.maxWatchBufferBytes } : {}),
    },
    res,
    ctx.storage,
    ctx.hub,
  );
  session.start();
}

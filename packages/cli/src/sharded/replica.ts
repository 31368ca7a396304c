/**
 * One replica of the sharded demo, in its own process (`rxinformer demo-sharded-replica …`): a
 * sharded controller reconciling ConfigMaps (each reconcile writes a start and an end mark and the
 * replica's name), or a leader-elected worker writing heartbeats while it leads. It reaches the
 * server at `--url` (the simulator) or through `--kubeconfig` (any server), in `--namespace`. It
 * prints one JSON status line every `--status-ms`; SIGTERM leaves the ring (or releases the Lease)
 * and exits.
 */
import { controllerFor, fetchApiClient, type ApiClient } from '@rxinformer/controller';
import { createInformerFactory, fetchListerWatcher, type KubeObject, type ListerWatcher } from '@rxinformer/core';
import { pathSegment } from '@rxinformer/core/http';
import { leaderElection, whileLeading, type Lease, type LeaseTiming } from '@rxinformer/core/leader-election';
import { shardSelectorFor } from '@rxinformer/core/sharding';
import { Observable, concatMap, interval, tap } from 'rxjs';
import type { EndpointSources } from '../endpoints.ts';
import { kubeconfigAccess, urlAccess, type ServerAccess } from './serverAccess.ts';
import { RECONCILE_MARK } from './writeLog.ts';

/** What a replica is told on its command line. */
export interface ReplicaConfig extends Partial<LeaseTiming> {
  /** The server without auth (the simulator); ignored when `kubeconfig` is given. */
  url: string;
  /** A kubeconfig file whose current context names the server and the user. Default: `url`. */
  kubeconfig?: string;
  /** The namespace of the ConfigMaps and Leases. Default `default`. */
  namespace?: string;
  identity: string;
  mode: 'sharded' | 'leader';
  slots: number;
  concurrency: number;
  heartbeatMs: number;
  statusMs: number;
  /** `none`: reconciles do nothing (to measure what caching alone costs). Default `write`. */
  reconcile?: 'write' | 'none';
  /** Serve `/metrics`, `/readyz` and `/healthz` on 127.0.0.1 at this port (0: any free one). Default: not served. */
  metricsPort?: number;
}

/** A running replica: what it serves with `--metrics-port`, and how it stops. */
interface RunningReplica {
  sources: EndpointSources;
  stop(): Promise<void>;
}

/** A ConfigMap with the demo's data. */
type ConfigMap = KubeObject & { data?: Record<string, string> };

const LEADER_WORK = 'demo-leader-work';

/** The server as a replica reaches it, and the namespace it works in. */
interface Api {
  readonly access: ServerAccess;
  readonly namespace: string;
  /** The access's auth headers and the replica's `User-Agent`. */
  readonly headers: Record<string, string>;
}

/** Sends a JSON merge patch to a ConfigMap; rejects on a non-2xx answer. */
async function patch(api: Api, name: string, body: unknown, signal?: AbortSignal): Promise<void> {
  const path = `/api/v1/namespaces/${pathSegment('namespace', api.namespace)}/configmaps/${pathSegment('name', name)}`;
  const r = await api.access.fetch(`${api.access.url}${path}`, {
    method: 'PATCH',
    headers: { ...api.headers, 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
  await r.text();
  if (r.status >= 300) throw new Error(`PATCH ${name}: ${r.status}`);
}

/** What the last list (all its pages) of a ListerWatcher gave: the objects the server sent, and the shard selector it echoed. */
interface ListTap {
  items: number;
  shardInfo: string | undefined;
}

/** `lw` noting what each list's pages carry in `seen` (reset at each list's first page). */
function tapLists<T extends KubeObject>(lw: ListerWatcher<T>, seen: ListTap): ListerWatcher<T> {
  return {
    list: (options) =>
      lw.list(options).pipe(
        tap((page) => {
          const n = page.items?.length ?? 0;
          seen.items = options?.continue ? seen.items + n : n;
          seen.shardInfo = (page.metadata as { shardInfo?: { selector?: string } } | undefined)?.shardInfo?.selector;
        }),
      ),
    watch: (options) => lw.watch(options),
    watchList: lw.watchList,
  };
}

/** Prints a status line; the heap after a collection when Node runs with `--expose-gc`. */
function status(fields: Record<string, unknown>): void {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(`${JSON.stringify({ type: 'status', ...fields, heapUsed: process.memoryUsage().heapUsed })}\n`);
}

/** Runs a replica until SIGTERM. */
export async function runReplica(config: ReplicaConfig): Promise<void> {
  const access = config.kubeconfig ? await kubeconfigAccess(config.kubeconfig) : urlAccess(config.url);
  const api: Api = {
    access,
    namespace: config.namespace ?? 'default',
    headers: { ...access.headers, 'User-Agent': `rxinformer-demo/${config.identity}` },
  };
  const client = fetchApiClient({ baseUrl: access.url, headers: api.headers, fetch: access.fetch });
  const timing = { leaseDurationMs: config.leaseDurationMs, renewDeadlineMs: config.renewDeadlineMs, retryPeriodMs: config.retryPeriodMs };
  const replica = config.mode === 'sharded' ? shardedReplica(config, api, client, timing) : leaderReplica(config, api, client, timing);
  const stopped = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  // Loaded only when asked for: a replica without it keeps prom-client out of its heap.
  const endpoints =
    config.metricsPort === undefined
      ? undefined
      : await (await import('../endpoints.ts')).serveEndpoints(replica.sources, config.metricsPort);
  if (endpoints) process.stdout.write(`${JSON.stringify({ type: 'endpoints', identity: config.identity, url: endpoints.url })}\n`);
  await stopped;
  endpoints?.stop.unsubscribe();
  await replica.stop();
  process.exit(0);
}

function shardedReplica(config: ReplicaConfig, api: Api, client: ApiClient, timing: Partial<LeaseTiming>): RunningReplica {
  const ns = pathSegment('namespace', api.namespace);
  const http = { baseUrl: api.access.url, headers: api.headers, fetch: api.access.fetch };
  let n = 0;
  let reconciles = 0;
  const listed: ListTap = { items: 0, shardInfo: undefined };
  const source = tapLists(
    fetchListerWatcher<ConfigMap>({ ...http, path: `/api/v1/namespaces/${ns}/configmaps`, labelSelector: 'demo=sharded' }),
    listed,
  );
  // The sharded primary comes from `shard.source`; the factory would hold the controller's other sources.
  const factory = createInformerFactory((resource, scope) => fetchListerWatcher({ ...http, resource, namespace: scope.namespace }));
  const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as const;
  const ctl = controllerFor<ConfigMap>(factory, configMaps, {
    name: `demo-${config.identity}`,
    concurrency: config.concurrency,
    shard: {
      source,
      // Paged: the demo reads each list's `metadata.shardInfo` (the server's echo of the shard
      // selector), which list answers carry and streaming lists do not.
      informer: { reflector: { useStreamingList: false } },
      leases: fetchListerWatcher<Lease>({ ...http, path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases` }),
      client,
      namespace: api.namespace,
      ring: 'demo',
      identity: config.identity,
      slots: config.slots,
      ...timing,
    },
  }).reconcile(async ({ object: cm }) => {
    if (!cm || cm.data?.reconciledBy === config.identity || config.reconcile === 'none') return;
    const name = cm.metadata!.name!;
    const mark = `${config.identity}/${++n}`;
    await patch(api, name, { metadata: { annotations: { [RECONCILE_MARK]: `${mark}/start` } } });
    await patch(api, name, { metadata: { annotations: { [RECONCILE_MARK]: `${mark}/end` } }, data: { reconciledBy: config.identity } });
    reconciles++;
  });
  const run = ctl.start();
  const informer = ctl.sourceInformers()[0].informer;
  let active = 0;
  let members: readonly string[] = [];
  let selector: string | undefined;
  const ring = run.ring!;
  ring.state$.subscribe((s) => {
    active = s.active.length;
    members = s.members;
  });
  ring.active$.subscribe((slots) => (selector = shardSelectorFor(slots, ring.slots, ring.field)));
  // `selector`: what this replica's informer asks for; `listed`, `shardInfo`: what its last list got
  const timer = setInterval(() => {
    const shard = { selector, listed: listed.items, shardInfo: listed.shardInfo };
    status({ identity: config.identity, cached: informer.getStore().size, active, members, reconciles, ...shard });
  }, config.statusMs);
  return {
    sources: { informers: { configmaps: informer }, queues: { [`demo/${config.identity}`]: run.queue } },
    stop: async () => {
      clearInterval(timer);
      await run.stop();
      factory.shutdown();
    },
  };
}

function leaderReplica(config: ReplicaConfig, api: Api, client: ApiClient, timing: Partial<LeaseTiming>): RunningReplica {
  const election = leaderElection({ client, namespace: api.namespace, name: 'demo-leader', identity: config.identity, ...timing });
  let beats = 0;
  // Each heartbeat is an HTTP write, aborted if the term ends while it is in flight.
  const beat = () =>
    new Observable<void>((sub) => {
      const abort = new AbortController();
      patch(api, LEADER_WORK, { data: { leader: config.identity, beat: String(++beats) } }, abort.signal).then(
        () => sub.complete(),
        () => sub.complete(),
      );
      return () => abort.abort();
    });
  const work = whileLeading(election, () => interval(config.heartbeatMs).pipe(concatMap(beat))).subscribe();
  let leading = false;
  election.isLeader$.subscribe((l) => (leading = l));
  const timer = setInterval(() => status({ identity: config.identity, leading, beats }), config.statusMs);
  return {
    sources: { elections: { 'demo-leader': election } },
    stop: async () => {
      clearInterval(timer);
      work.unsubscribe();
      await election.stop();
    },
  };
}

/** Reads a replica's command line (as the parent writes it). */
export function parseReplicaArgs(argv: readonly string[]): ReplicaConfig {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback?: number) => (get(name) === undefined ? fallback : Number(get(name)));
  return {
    url: get('url') ?? '',
    ...(get('kubeconfig') !== undefined && { kubeconfig: get('kubeconfig') }),
    ...(get('namespace') !== undefined && { namespace: get('namespace') }),
    identity: get('identity') ?? '',
    mode: get('mode') === 'leader' ? 'leader' : 'sharded',
    slots: num('slots', 256)!,
    concurrency: num('concurrency', 4)!,
    heartbeatMs: num('heartbeat-ms', 50)!,
    statusMs: num('status-ms', 250)!,
    reconcile: get('reconcile') === 'none' ? 'none' : 'write',
    leaseDurationMs: num('lease-duration-ms'),
    renewDeadlineMs: num('renew-deadline-ms'),
    retryPeriodMs: num('retry-period-ms'),
    metricsPort: num('metrics-port'),
  };
}

/**
 * One replica of the sharded demo, in its own process (`rxinformer demo-sharded-replica …`): a
 * sharded controller reconciling ConfigMaps (each reconcile writes a start and an end mark and the
 * replica's name), or a leader-elected worker writing heartbeats while it leads. It prints one JSON
 * status line every `--status-ms`; SIGTERM leaves the ring (or releases the Lease) and exits.
 */
import {
  fetchLeaseClient,
  fetchListerWatcher,
  leaderElection,
  runShardedController,
  whileLeading,
  type KubeObject,
  type Lease,
  type LeaseTiming,
} from '@rxinformer/core';
import { Observable, concatMap, interval } from 'rxjs';
import type { EndpointSources } from '../endpoints.ts';
import { RECONCILE_MARK } from './writeLog.ts';

/** What a replica is told on its command line. */
export interface ReplicaConfig extends Partial<LeaseTiming> {
  url: string;
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

/** Sends a JSON merge patch to a ConfigMap of `default`; rejects on a non-2xx answer. */
async function patch(config: ReplicaConfig, name: string, body: unknown, signal?: AbortSignal): Promise<void> {
  const r = await fetch(`${config.url}/api/v1/namespaces/default/configmaps/${encodeURIComponent(name)}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json', 'User-Agent': `rxinformer-demo/${config.identity}` },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
  await r.text();
  if (r.status >= 300) throw new Error(`PATCH ${name}: ${r.status}`);
}

/** Prints a status line; the heap after a collection when Node runs with `--expose-gc`. */
function status(fields: Record<string, unknown>): void {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(`${JSON.stringify({ type: 'status', ...fields, heapUsed: process.memoryUsage().heapUsed })}\n`);
}

/** Runs a replica until SIGTERM. */
export async function runReplica(config: ReplicaConfig): Promise<void> {
  const headers = { 'User-Agent': `rxinformer-demo/${config.identity}` };
  const client = fetchLeaseClient({ baseUrl: config.url, headers });
  const timing = { leaseDurationMs: config.leaseDurationMs, renewDeadlineMs: config.renewDeadlineMs, retryPeriodMs: config.retryPeriodMs };
  const replica = config.mode === 'sharded' ? shardedReplica(config, client, timing) : leaderReplica(config, client, timing);
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

function shardedReplica(config: ReplicaConfig, client: ReturnType<typeof fetchLeaseClient>, timing: Partial<LeaseTiming>): RunningReplica {
  const headers = { 'User-Agent': `rxinformer-demo/${config.identity}` };
  let n = 0;
  let reconciles = 0;
  const ctl = runShardedController<ConfigMap>({
    source: fetchListerWatcher<ConfigMap>({
      baseUrl: config.url,
      path: '/api/v1/namespaces/default/configmaps',
      headers,
      labelSelector: 'demo=sharded',
    }),
    leases: fetchListerWatcher<Lease>({ baseUrl: config.url, path: '/apis/coordination.k8s.io/v1/namespaces/default/leases', headers }),
    client,
    namespace: 'default',
    ring: 'demo',
    identity: config.identity,
    slots: config.slots,
    concurrency: config.concurrency,
    ...timing,
    reconcile: async (_key, cm) => {
      if (!cm || cm.data?.reconciledBy === config.identity || config.reconcile === 'none') return;
      const name = cm.metadata!.name!;
      const mark = `${config.identity}/${++n}`;
      await patch(config, name, { metadata: { annotations: { [RECONCILE_MARK]: `${mark}/start` } } });
      await patch(config, name, {
        metadata: { annotations: { [RECONCILE_MARK]: `${mark}/end` } },
        data: { reconciledBy: config.identity },
      });
      reconciles++;
    },
  });
  let active = 0;
  let members: readonly string[] = [];
  ctl.ring.state$.subscribe((s) => {
    active = s.active.length;
    members = s.members;
  });
  const timer = setInterval(
    () => status({ identity: config.identity, cached: ctl.informer.getStore().size, active, members, reconciles }),
    config.statusMs,
  );
  return {
    sources: { informers: { configmaps: ctl.informer }, queues: { [`demo/${config.identity}`]: ctl.queue } },
    stop: async () => {
      clearInterval(timer);
      await ctl.stop();
    },
  };
}

function leaderReplica(config: ReplicaConfig, client: ReturnType<typeof fetchLeaseClient>, timing: Partial<LeaseTiming>): RunningReplica {
  const election = leaderElection({ client, namespace: 'default', name: 'demo-leader', identity: config.identity, ...timing });
  let beats = 0;
  // Each heartbeat is an HTTP write, aborted if the term ends while it is in flight.
  const beat = () =>
    new Observable<void>((sub) => {
      const abort = new AbortController();
      patch(config, LEADER_WORK, { data: { leader: config.identity, beat: String(++beats) } }, abort.signal).then(
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

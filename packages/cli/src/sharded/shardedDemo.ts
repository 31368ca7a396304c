/**
 * The multi-process demonstration of sharding and leader election, against the simulator, a real
 * kube-apiserver it starts, or the server of a kubeconfig file: N replica processes reconciling
 * ConfigMaps as a ring of Leases, one killed with SIGKILL mid-run and a new one started later; then
 * N leader-elected replicas, the leader killed, and the next leader's Lease writes failed by a fault
 * proxy in front of it. Everything is judged from the writes the demo watches through the API.
 */
import { startJudge } from './demoJudge.ts';
import { startDemoServer, type DemoServerKind } from './demoServer.ts';
import { leaderPart, type LeaderPartResult } from './leaderPart.ts';
import { spawnReplica, type SpawnOptions } from './replicaProcesses.ts';
import { shardedPart, type DemoPart, type ShardedPartResult } from './shardedPart.ts';

/** Options of `runShardedDemo`. */
export interface ShardedDemoOptions {
  /** The server: `sim` (the simulator, in this process) or `real` (etcd and kube-apiserver, `@rxinformer/envtest`). Default `sim`. */
  server?: 'sim' | 'real';
  /** Run against the server of this kubeconfig file instead (in a namespace of the demo's own). Default: none. */
  kubeconfig?: string;
  /** Replica processes. Default 3. */
  replicas?: number;
  /** ConfigMaps to reconcile. Default 3000. */
  objects?: number;
  /** Slots of the hash space. Default 256. */
  slots?: number;
  /** Reconciles in parallel per replica. Default 4. */
  concurrency?: number;
  /** Lease timing (ms); defaults are client-go's: 15,000 / 10,000 / 2,000. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Turn the server's `ShardedListAndWatch` gate on (the server the demo starts). Default true. */
  shardSelector?: boolean;
  /** Run the leader-elected part too. Default true. */
  leader?: boolean;
  /** Progress lines. Default: none. */
  onProgress?: (line: string) => void;
  /** Where the replicas' stderr goes. Default: inherited. */
  replicaStderr?: 'inherit' | 'ignore';
  /**
   * Each replica serves `/metrics`, `/readyz` and `/healthz` on 127.0.0.1: the first at this port,
   * the next ones at the ports after it, in the order they start (0: each at any free port). Their
   * URLs are progress lines. Default: not served.
   */
  metricsPort?: number;
}

/** What the demo measured: the sharded part's figures, and the leader-elected part's (unless `leader: false`). */
export interface ShardedDemoResult extends ShardedPartResult, Partial<LeaderPartResult> {
  /** The server it ran against. */
  server: DemoServerKind;
  objects: number;
  replicas: number;
  /** The server honoured shardSelector: every replica's informer got its selector back as `metadata.shardInfo`. */
  shardSelector: boolean;
}

/** Runs the demo and returns its figures. */
export async function runShardedDemo(options: ShardedDemoOptions = {}): Promise<ShardedDemoResult> {
  const o = {
    replicas: 3,
    objects: 3000,
    slots: 256,
    concurrency: 4,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2000,
    shardSelector: true,
    leader: true,
    ...options,
  };
  const progress = o.onProgress ?? (() => undefined);
  const server = await startDemoServer({ server: o.server, kubeconfig: o.kubeconfig, shardSelector: o.shardSelector });
  progress(`${server.kind} server at ${server.access.url}, namespace ${server.namespace}`);
  const judge = startJudge(server);
  let started = 0;
  const metricsPort = () => (options.metricsPort ? options.metricsPort + started++ : options.metricsPort);
  try {
    await judge.ready;
    const spawnOptions = (mode: 'sharded' | 'leader'): SpawnOptions => ({
      url: server.access.url,
      kubeconfig: server.kubeconfig,
      namespace: server.namespace,
      mode,
      slots: o.slots,
      concurrency: o.concurrency,
      heartbeatMs: 50,
      statusMs: 200,
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs,
      retryPeriodMs: o.retryPeriodMs,
      ...(o.replicaStderr && { stderr: o.replicaStderr }),
      onEndpoints: (identity, url) => progress(`${identity} serves ${url}/metrics, /readyz and /healthz`),
    });
    const part = (mode: 'sharded' | 'leader'): DemoPart => ({
      server,
      judge,
      o,
      progress,
      spawn: (identity, kubeconfig) =>
        spawnReplica(identity, { ...spawnOptions(mode), ...(kubeconfig && { kubeconfig }), metricsPort: metricsPort() }),
    });
    const sharded = await shardedPart(part('sharded'));
    const leader = o.leader ? await leaderPart(part('leader')) : {};
    if (judge.failure) throw judge.failure;
    const shards = Object.values(sharded.shards);
    return {
      server: server.kind,
      objects: o.objects,
      replicas: o.replicas,
      ...sharded,
      shardSelector: shards.length > 0 && shards.every((s) => s.echoedToInformer),
      ...leader,
    };
  } finally {
    judge.stop();
    await server.close();
  }
}

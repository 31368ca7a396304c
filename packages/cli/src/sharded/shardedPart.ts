/**
 * The sharded part of the demo: N replica processes share the ConfigMaps on a ring of Leases; once
 * every object is reconciled one is killed with SIGKILL, its keys must move to the others, then a
 * new replica joins and the ring rebalances. Judged from the writes the demo's watch saw.
 */
import type { KubeObject } from '@rxinformer/core';
import { call, type DemoServer } from './demoServer.ts';
import type { DemoJudge } from './demoJudge.ts';
import { stopReplicas, until, type ReplicaProcess } from './replicaProcesses.ts';
import { checkShards, type ShardReport, type ShardStatus } from './shardCheck.ts';
import { ReconcileLog, overlappingReconciles } from './writeLog.ts';

/** What a part of the demo is given: the server, the judge, the options, a way to start replicas. */
export interface DemoPart {
  readonly server: DemoServer;
  readonly judge: DemoJudge;
  readonly o: { replicas: number; objects: number; slots: number; leaseDurationMs: number; retryPeriodMs: number };
  /** Starts a replica process named `identity` reaching the server through `kubeconfig` (default: straight). */
  readonly spawn: (identity: string, kubeconfig?: string) => ReplicaProcess;
  readonly progress: (line: string) => void;
}

/** What the sharded part measured. */
export interface ShardedPartResult {
  /** Every ConfigMap was last reconciled by a replica alive at the end. */
  reconciledAll: boolean;
  /** Keys reconciled by two replicas at overlapping times (in the server's order of writes): must be 0. */
  overlaps: number;
  /** The first overlaps, when there are some: `key: replica from-to / replica from-to` (resource versions). */
  overlapSamples?: string[];
  /** SIGKILL of a replica → every key it had reconciled again by another. */
  failoverMs: number;
  /** leaseDurationMs + retryPeriodMs: what failover is held against. */
  failoverBudgetMs: number;
  /** Objects each replica cached at the end. */
  cachedPerReplica: Record<string, number>;
  /** Each replica's shard at the end, checked against the server. */
  shards: Record<string, ShardReport>;
}

type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Creates `count` ConfigMaps labelled `demo=sharded` through the API, 16 at a time. */
async function createObjects(server: DemoServer, count: number): Promise<void> {
  const path = `/api/v1/namespaces/${server.namespace}/configmaps`;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++)
      await call(server.access, 'POST', path, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, labels: { demo: 'sharded' } },
      });
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * Each live replica's shard checked against the server, once every one caches what our filter
 * gives its selector (its informer restarted with its new slots): the last check at the deadline.
 */
async function sharesCached(server: DemoServer, live: () => ReplicaProcess[], timeoutMs: number): Promise<Record<string, ShardReport>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = Object.fromEntries(live().map((r) => [r.identity, (r.status ?? {}) as ShardStatus]));
    const shards = await checkShards(server.access, server.namespace, statuses);
    if (Object.values(shards).every((s) => s.cached === s.localSubset) || Date.now() > deadline) return shards;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs the sharded part. */
export async function shardedPart({ server, judge, o, spawn, progress }: DemoPart): Promise<ShardedPartResult> {
  const log = new ReconcileLog();
  const lastBy = new Map<string, { by: string; at: number }>();
  const stopLog = judge.onConfigMap((w) => {
    if (w.object.metadata?.labels?.demo !== 'sharded') return;
    log.record(w.key, w.object, w.rv);
    const by = (w.object as ConfigMap).data?.reconciledBy;
    if (by && (w.prev as ConfigMap | undefined)?.data?.reconciledBy !== by) lastBy.set(w.key, { by, at: w.at });
  });
  const cms = `/api/v1/namespaces/${server.namespace}/configmaps`;
  await createObjects(server, o.objects);
  progress(`created ${o.objects} ConfigMaps in ${server.namespace}`);
  const replicas: ReplicaProcess[] = [];
  const start = (n: number) => replicas.push(spawn(`replica-${n}`));
  const alive = () => new Set(replicas.filter((r) => !r.dead && r.child.exitCode === null && !r.child.killed).map((r) => r.identity));
  const allByLive = () => lastBy.size === o.objects && [...lastBy.values()].every((v) => alive().has(v.by));
  const budget = 120_000 + o.objects * 20;
  try {
    for (let i = 1; i <= o.replicas; i++) start(i);
    await until('every object reconciled', allByLive, budget);
    progress(`all ${o.objects} reconciled by ${o.replicas} replicas`);
    const victim = replicas[1] ?? replicas[0];
    const victimKeys = [...lastBy].filter(([, v]) => v.by === victim.identity).map(([k]) => k);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await victim.exited;
    // The server's revision once the victim is gone: a reconcile of its left open (no end mark) ran until here at most.
    const diedAt = Number(
      (await call<{ metadata: { resourceVersion: string } }>(server.access, 'GET', `${cms}?limit=1`)).metadata.resourceVersion,
    );
    progress(`killed ${victim.identity} (${victimKeys.length} of its keys to move)`);
    await until(
      'the killed replica’s keys reconciled elsewhere',
      () => victimKeys.every((k) => lastBy.get(k)!.by !== victim.identity),
      budget,
    );
    const failoverMs = Math.max(...victimKeys.map((k) => lastBy.get(k)!.at)) - killedAt;
    progress(`failover in ${failoverMs} ms`);
    start(o.replicas + 1);
    const live = () => replicas.filter((r) => alive().has(r.identity));
    const settled = () => {
      const active = live().reduce((n, r) => n + Number(r.status?.active ?? 0), 0);
      return active === o.slots && live().every((r) => Number(r.status?.active ?? 0) > 0) && allByLive();
    };
    await until('the ring rebalanced onto the new replica', settled, budget);
    const shards = await sharesCached(server, () => live(), budget);
    const cachedPerReplica = Object.fromEntries(Object.entries(shards).map(([id, s]) => [id, s.cached]));
    progress(`rebalanced: cached ${JSON.stringify(cachedPerReplica)}`);
    await stopReplicas(replicas);
    const end = judge.lastRv + 1; // a reconcile still open ends after every write seen, or when its replica died
    const overlaps = overlappingReconciles(
      log.all((by) => (by === victim.identity ? diedAt : end)),
      end,
    );
    return {
      reconciledAll: lastBy.size === o.objects,
      overlaps: overlaps.length,
      ...(overlaps.length > 0 && { overlapSamples: overlaps.slice(0, 5) }),
      failoverMs,
      failoverBudgetMs: o.leaseDurationMs + o.retryPeriodMs,
      cachedPerReplica,
      shards,
    };
  } finally {
    stopLog();
    replicas.forEach((r) => r.child.kill('SIGKILL'));
  }
}

/**
 * The multi-process demonstration of sharding and leader election: a simulator in this process,
 * N replica processes reconciling ConfigMaps as a ring, one killed with SIGKILL mid-run and a new
 * one started later; then N leader-elected replicas, the leader killed, and the next leader's
 * renewals failed by the server. Everything is judged from the simulator's write log.
 */
import { LeaseHistory, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { ReconcileLog, leaderOverlaps, overlappingReconciles } from './writeLog.ts';
import { spawnReplica, stopReplicas, until, type ReplicaProcess, type SpawnOptions } from './replicaProcesses.ts';

/** Options of `runShardedDemo`. */
export interface ShardedDemoOptions {
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
  /** The simulator honours `shardSelector` (the `ShardedListAndWatch` gate). Default true. */
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

/** What the demo measured. */
export interface ShardedDemoResult {
  objects: number;
  replicas: number;
  /** Every ConfigMap was last reconciled by a replica alive at the end. */
  reconciledAll: boolean;
  /** Keys reconciled by two replicas at overlapping times (write log): must be 0. */
  overlaps: number;
  /** SIGKILL of a replica → every key it had reconciled again by another. */
  failoverMs: number;
  /** leaseDurationMs + retryPeriodMs: what failover is held against. */
  failoverBudgetMs: number;
  /** Objects each replica cached at the end. */
  cachedPerReplica: Record<string, number>;
  /** The simulator honoured shardSelector. */
  shardSelector: boolean;
  /** Leader-elected run: heartbeats written by a replica while the Lease named another (two leaders): must be 0. */
  leaderOverlaps?: number;
  /** SIGKILL of the leader → the next leader's first heartbeat. */
  leaderFailoverMs?: number;
  /** The server fails the leader's renewals: when it stopped working, when another took the Lease. */
  renewalFault?: { lastBeatAfterFaultMs: number; takeoverAfterFaultMs: number; steppedDownFirst: boolean };
}

const CM_GVR = '/v1/configmaps';
const LEASE = 'default/demo-leader';

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
  const sim = await startApiServer({ port: 0, seed: 11, shardedListAndWatch: o.shardSelector });
  let started = 0;
  const metricsPort = () => (options.metricsPort ? options.metricsPort + started++ : options.metricsPort);
  try {
    const spawnOptions = (mode: 'sharded' | 'leader'): SpawnOptions => ({
      url: sim.url,
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
    const spawn = (mode: 'sharded' | 'leader') => (identity: string) =>
      spawnReplica(identity, { ...spawnOptions(mode), metricsPort: metricsPort() });
    const sharded = await shardedPart(sim, o, spawn('sharded'), progress);
    const leader = o.leader ? await leaderPart(sim, o, spawn('leader'), progress) : {};
    return { ...sharded, ...leader };
  } finally {
    await sim.close();
  }
}

type Resolved = Required<Omit<ShardedDemoOptions, 'onProgress' | 'replicaStderr' | 'metricsPort'>>;
/** Starts a replica process of one part of the demo. */
type Spawn = (identity: string) => ReplicaProcess;

async function shardedPart(sim: ApiServer, o: Resolved, spawn: Spawn, progress: (l: string) => void) {
  for (let i = 0; i < o.objects; i++)
    sim.storage.create('configmaps', { metadata: { name: `cm-${i}`, labels: { demo: 'sharded' } } }, 'default');
  const log = new ReconcileLog();
  const lastBy = new Map<string, { by: string; at: number }>();
  const stopLog = sim.storage.storage.subscribe(CM_GVR, (e) => {
    log.record(e.key, e.object, e.time);
    const by = (e.object as { data?: Record<string, string> }).data?.reconciledBy;
    if (by && (e.prev as { data?: Record<string, string> } | undefined)?.data?.reconciledBy !== by) lastBy.set(e.key, { by, at: e.time });
  });
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
    progress(`killed ${victim.identity} (${victimKeys.length} of its keys to move)`);
    await until(
      'the killed replica’s keys reconciled elsewhere',
      () => victimKeys.every((k) => lastBy.get(k)!.by !== victim.identity),
      budget,
    );
    const failoverMs = Math.max(...victimKeys.map((k) => lastBy.get(k)!.at)) - killedAt;
    progress(`failover in ${failoverMs} ms`);
    start(o.replicas + 1);
    const settled = () => {
      const live = replicas.filter((r) => alive().has(r.identity));
      const active = live.reduce((n, r) => n + Number(r.status?.active ?? 0), 0);
      return active === o.slots && live.every((r) => Number(r.status?.active ?? 0) > 0) && allByLive();
    };
    await until('the ring rebalanced onto the new replica', settled, budget);
    await new Promise((r) => setTimeout(r, o.retryPeriodMs * 2));
    const cachedPerReplica = Object.fromEntries(
      replicas.filter((r) => alive().has(r.identity)).map((r) => [r.identity, Number(r.status?.cached ?? 0)]),
    );
    progress(`rebalanced: cached ${JSON.stringify(cachedPerReplica)}`);
    await stopReplicas(replicas);
    const now = Date.now();
    return {
      objects: o.objects,
      replicas: o.replicas,
      reconciledAll: lastBy.size === o.objects,
      overlaps: overlappingReconciles(log.all(now), now).length,
      failoverMs,
      failoverBudgetMs: o.leaseDurationMs + o.retryPeriodMs,
      cachedPerReplica,
      shardSelector: o.shardSelector,
    };
  } finally {
    stopLog();
    replicas.forEach((r) => r.child.kill('SIGKILL'));
  }
}

async function leaderPart(sim: ApiServer, o: Resolved, spawn: Spawn, progress: (l: string) => void) {
  sim.storage.create('configmaps', { metadata: { name: 'demo-leader-work' } }, 'default');
  const beats: { by: string; at: number }[] = [];
  const history = new LeaseHistory(sim.storage.storage);
  const stops = [
    sim.storage.storage.subscribe(CM_GVR, (e) => {
      const by = (e.object as { data?: Record<string, string> }).data?.leader;
      if (e.key === 'default/demo-leader-work' && by) beats.push({ by, at: e.time });
    }),
    () => history.close(),
  ];
  const replicas = Array.from({ length: o.replicas }, (_, i) => spawn(`leader-${i + 1}`));
  const budget = 4 * (o.leaseDurationMs + o.retryPeriodMs) + 30_000;
  const leaderAfter = (t: number, not?: string) => beats.find((b) => b.at > t && b.by !== not);
  try {
    await until('a leader', () => beats.length > 0, budget);
    const first = beats[0].by;
    await new Promise((r) => setTimeout(r, 500));
    const killedAt = Date.now();
    replicas.find((r) => r.identity === first)!.child.kill('SIGKILL');
    await until('the next leader', () => leaderAfter(killedAt, first) !== undefined, budget);
    const second = leaderAfter(killedAt, first)!;
    progress(`leader ${first} killed; ${second.by} leads after ${second.at - killedAt} ms`);
    await new Promise((r) => setTimeout(r, 500));
    const faultAt = Date.now();
    const clear = sim.faults.failRequests({ userAgent: `rxinformer-demo/${second.by}`, resource: 'leases', on: 'write' });
    await until('a third leader', () => leaderAfter(faultAt, second.by) !== undefined, budget);
    clear();
    const third = leaderAfter(faultAt, second.by)!;
    const lastBeat = Math.max(...beats.filter((b) => b.by === second.by).map((b) => b.at));
    const takeover = history.terms(LEASE).find((t) => t.from > faultAt && t.holder !== second.by && t.holder !== '')!.from;
    progress(`renewals of ${second.by} failed: last beat +${lastBeat - faultAt} ms, ${third.by} took the Lease +${takeover - faultAt} ms`);
    await stopReplicas(replicas);
    return {
      leaderOverlaps: leaderOverlaps(beats, (t) => history.holderAt(LEASE, t)).length,
      leaderFailoverMs: second.at - killedAt,
      renewalFault: {
        lastBeatAfterFaultMs: lastBeat - faultAt,
        takeoverAfterFaultMs: takeover - faultAt,
        steppedDownFirst: lastBeat < takeover,
      },
    };
  } finally {
    for (const s of stops) s();
    replicas.forEach((r) => r.child.kill('SIGKILL'));
  }
}

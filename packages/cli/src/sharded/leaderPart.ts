/**
 * The leader-elected part of the demo: N replica processes contend for one Lease, the leader writes
 * heartbeats while it leads; the leader is killed with SIGKILL, then the next one's Lease writes are
 * failed by the fault proxy in front of it alone (its heartbeats still pass). It must stop working
 * before another takes the Lease; there must never be two leaders. Judged from the writes the
 * demo's watch saw, in the server's order (resource versions).
 */
import type { FaultProxy } from '@rxinformer/envtest';
import { call } from './demoServer.ts';
import type { DemoPart } from './shardedPart.ts';
import { until, stopReplicas, type ReplicaProcess } from './replicaProcesses.ts';
import { leaderOverlaps } from './writeLog.ts';

/** What the leader-elected part measured. */
export interface LeaderPartResult {
  /** Heartbeats written while the Lease named another (two leaders): must be 0. */
  leaderOverlaps: number;
  /** SIGKILL of the leader → the next leader's first heartbeat. */
  leaderFailoverMs: number;
  /** The proxy fails the leader's Lease writes: when it stopped working, when another took the Lease. */
  renewalFault: { lastBeatAfterFaultMs: number; takeoverAfterFaultMs: number; steppedDownFirst: boolean };
}

/** One heartbeat write: who, where in the server's order, when seen. */
interface Beat {
  by: string;
  rv: number;
  at: number;
}

const WORK = 'demo-leader-work';

/** Runs the leader-elected part. */
export async function leaderPart({ server, judge, o, spawn, progress }: DemoPart): Promise<LeaderPartResult> {
  const ns = server.namespace;
  await call(server.access, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: WORK },
  });
  const beats: Beat[] = [];
  const stopLog = judge.onConfigMap((w) => {
    const by = (w.object as { data?: Record<string, string> }).data?.leader;
    if (w.key === `${ns}/${WORK}` && by) beats.push({ by, rv: w.rv, at: w.at });
  });
  const lease = `${ns}/demo-leader`;
  const proxies = new Map<string, FaultProxy>();
  const replicas: ReplicaProcess[] = [];
  const budget = 4 * (o.leaseDurationMs + o.retryPeriodMs) + 30_000;
  const leaderAfter = (t: number, not?: string) => beats.find((b) => b.at > t && b.by !== not);
  try {
    for (let i = 1; i <= o.replicas; i++) {
      // each behind a fault proxy of its own, which can fail its requests alone
      const { kubeconfig, proxy } = await server.proxied(`leader-${i}`);
      proxies.set(`leader-${i}`, proxy);
      replicas.push(spawn(`leader-${i}`, kubeconfig));
    }
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
    const proxy = proxies.get(second.by)!;
    proxy.failNext(1_000_000, { code: 500, on: 'write', pathContains: '/leases/' });
    await until('a third leader', () => leaderAfter(faultAt, second.by) !== undefined, budget);
    proxy.clear();
    const third = leaderAfter(faultAt, second.by)!;
    const lastBeat = beats.filter((b) => b.by === second.by).reduce((a, b) => (b.rv > a.rv ? b : a));
    await until(
      'the Lease written by the third leader',
      () => takeoverOf(judge.leases.terms(lease), faultAt, second.by) !== undefined,
      budget,
    );
    const takeover = takeoverOf(judge.leases.terms(lease), faultAt, second.by)!;
    progress(
      `Lease writes of ${second.by} failed: last beat +${lastBeat.at - faultAt} ms, ${third.by} took the Lease +${takeover.at - faultAt} ms`,
    );
    await stopReplicas(replicas);
    const ordered = beats.map((b) => ({ by: b.by, at: b.rv }));
    return {
      leaderOverlaps: leaderOverlaps(ordered, (rv) => judge.leases.holderAt(lease, rv)).length,
      leaderFailoverMs: second.at - killedAt,
      renewalFault: {
        lastBeatAfterFaultMs: lastBeat.at - faultAt,
        takeoverAfterFaultMs: takeover.at - faultAt,
        steppedDownFirst: lastBeat.rv < takeover.rv,
      },
    };
  } finally {
    stopLog();
    replicas.forEach((r) => r.child.kill('SIGKILL'));
  }
}

/** The first term of the Lease, seen after `faultAt`, held by another than `not` (and than nobody). */
function takeoverOf(terms: readonly { holder: string; rv: number; at: number }[], faultAt: number, not: string) {
  return terms.find((t) => t.at > faultAt && t.holder !== not && t.holder !== '');
}

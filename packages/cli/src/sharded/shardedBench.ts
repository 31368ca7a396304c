/**
 * Figures of the sharded controller: reconcile throughput of R replicas when each reconcile waits
 * on the server (the simulator's latency), and the heap of each replica once its share is cached.
 */
import { startApiServer } from '@rxinformer/apiserver-sim';
import { spawnReplica, stopReplicas, until, type ReplicaProcess } from './replicaProcesses.ts';

/** Options of `measureRing`. */
export interface RingMeasureOptions {
  /** Replica processes. */
  replicas: number;
  /** ConfigMaps. */
  objects: number;
  /** Bytes of data per ConfigMap. Default 0. */
  dataBytes?: number;
  /** Latency the simulator adds to every request, in ms. Default 0. */
  latencyMs?: number;
  /** Reconciles in parallel per replica. Default 4. */
  concurrency?: number;
  /** Slots. Default 256. */
  slots?: number;
  /** Reconciles write (the throughput figure), or do nothing (the heap figure: what caching costs). Default true. */
  reconcile?: boolean;
}

/** What `measureRing` measured. */
export interface RingMeasure {
  replicas: number;
  objects: number;
  /** Reconciles per second, from the first start mark to the last object reconciled (0 without reconciles). */
  reconcilesPerSecond: number;
  /** Each replica's heap after a collection, once synced and reconciled (bytes). */
  heapPerReplica: number[];
  /** Each replica's heap after a collection, in the ring but before any object existed (bytes). */
  baselineHeapPerReplica: number[];
  /** Objects each replica cached. */
  cachedPerReplica: number[];
}

/** Runs `replicas` processes; once their ring formed, creates `objects` ConfigMaps and measures them. */
export async function measureRing(options: RingMeasureOptions): Promise<RingMeasure> {
  const sim = await startApiServer({ port: 0, seed: 3, shardedListAndWatch: true });
  const slots = options.slots ?? 256;
  const done = new Set<string>();
  let firstStart = 0;
  let lastEnd = 0;
  const stop = sim.storage.storage.subscribe('/v1/configmaps', (e) => {
    const by = (e.object as { data?: Record<string, string> }).data?.reconciledBy;
    if (!firstStart && e.object.metadata?.annotations) firstStart = e.time;
    if (by && !done.has(e.key)) {
      done.add(e.key);
      lastEnd = e.time;
    }
  });
  const replicas: ReplicaProcess[] = [];
  try {
    sim.faults.latency(options.latencyMs ?? 0);
    for (let i = 1; i <= options.replicas; i++)
      replicas.push(
        spawnReplica(`replica-${i}`, {
          url: sim.url,
          mode: 'sharded',
          slots,
          concurrency: options.concurrency ?? 4,
          heartbeatMs: 50,
          statusMs: 500,
          leaseDurationMs: 3000,
          renewDeadlineMs: 2000,
          retryPeriodMs: 300,
          nodeFlags: ['--expose-gc'],
          ...(options.reconcile === false && { reconcile: 'none' as const }),
        }),
      );
    // The ring first: every replica holds its share of the slots before there is anything to do.
    const active = (r: ReplicaProcess) => Number(r.status?.active ?? 0);
    await until(
      'the ring formed',
      () => replicas.every((r) => active(r) > 0) && replicas.reduce((n, r) => n + active(r), 0) === slots,
      120_000,
    );
    const baseline = await freshStatuses(replicas);
    // A payload of its own per object: one string repeated would be shared and cost nothing.
    const payload = (i: number) => `${i}:`.padEnd(options.dataBytes ?? 0, (i * 7919).toString(36));
    for (let i = 0; i < options.objects; i++)
      sim.storage.create(
        'configmaps',
        { metadata: { name: `cm-${i}`, labels: { demo: 'sharded' } }, ...(options.dataBytes && { data: { payload: payload(i) } }) },
        'default',
      );
    const cached = () => replicas.reduce((n, r) => n + Number(r.status?.cached ?? 0), 0);
    if (options.reconcile === false) await until('every object cached', () => cached() === options.objects, 600_000);
    else await until('every object reconciled', () => done.size === options.objects, 600_000);
    const after = await freshStatuses(replicas);
    return {
      replicas: options.replicas,
      objects: options.objects,
      reconcilesPerSecond: done.size === 0 ? 0 : Math.round((options.objects / Math.max(1, lastEnd - firstStart)) * 1000),
      heapPerReplica: after.map((s) => Number(s.heapUsed)),
      baselineHeapPerReplica: baseline.map((s) => Number(s.heapUsed)),
      cachedPerReplica: after.map((s) => Number(s.cached)),
    };
  } finally {
    stop();
    await stopReplicas(replicas);
    await sim.close();
  }
}

/** The next status line of each replica (printed after a collection). */
async function freshStatuses(replicas: readonly ReplicaProcess[]): Promise<Record<string, unknown>[]> {
  const seen = replicas.map((r) => r.status);
  await until('fresh status lines', () => replicas.every((r, i) => r.status !== undefined && r.status !== seen[i]), 30_000);
  return replicas.map((r) => r.status!);
}

/**
 * `npm run bench -- --server real`: the initial sync and the watch replay of `npm run bench`, with
 * the same contenders (rxinformer, client-node, the limit), against a real kube-apiserver and etcd
 * (`@rxinformer/envtest`) instead of the simulator; and what the real server costs: its start time
 * (the first in this process, and again), a restart with the pods in etcd, the writes per second
 * it took while they were created, and the resident memory of kube-apiserver and etcd.
 *
 * The contenders are those of `npm run bench` and client-go v0.36.3 (the client-go peer, with JSON
 * and with protobuf, each run a process of its own: clientGo.ts). Heap per cached pod is measured
 * for all in fresh processes: live bytes after a full collection, minus the same process's baseline
 * (heapPerObject.ts). With `podsLarge`, the pods are then topped up to that many and the initial
 * sync measured again, one round.
 *
 * The pods are created through the API as a cluster writes them (`unalike`: the controller's
 * create, then the kubelet's status), 16 writes in flight. The watch replay lists at the revision
 * before the updates and watches from it: kube-apiserver serves the events from its watch cache,
 * which here keeps 10 minutes of history (`--request-timeout=10m`, from which it sizes its event
 * window) and is never compacted (`--etcd-compaction-interval=0`), so every update is still there.
 */
import { VirtualTimeScheduler } from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import { createLoadGenerator, httpChurnTarget } from '@rxinformer/apiserver-sim';
import { createKubeTransport } from '@rxinformer/client-node';
import { startTestEnvironment, type TestEnvironment, type TestEnvironmentOptions } from '@rxinformer/envtest';
import { buildClientGoPeer } from '@rxinformer/testing/servers';
import { measureHeapPerObject } from './heapPerObject.ts';
import { measureInitialSync } from './initialSync.ts';
import { buildMetric, type Metric } from './report.ts';
import { environmentRss, type EnvironmentRss } from './serverRss.ts';
import { syncMetrics, watchMetrics } from './syncWatchMetrics.ts';
import { measureWatchThroughput } from './watchThroughput.ts';

/** Options of `runRealBench`. */
export interface RealBenchOptions {
  pods: number;
  updates: number;
  rounds: number;
  /** Top the pods up to this many after the other metrics and measure the initial sync again (one round); 0 skips. */
  podsLarge: number;
  /** Start the environment three times and restart kube-apiserver once, timing each. Default true (the test skips them). */
  timeStarts?: boolean;
  /** A progress line (stderr). */
  progress: (text: string) => void;
  /** Called before each contender's run of a metric. */
  onRun: (metric: string) => (name: string, round: number) => void;
}

/** What the real server cost in the run. Times in ms, memory in KiB. */
export interface RealServerFigures {
  /** kube-apiserver's `/version`. */
  version: string;
  /** `startTestEnvironment()` until ready: the first start in this process, then the next two (none: not timed). */
  startMs: { first: number; again: number[] };
  /** kube-apiserver killed (SIGKILL) and started again over etcd holding the pods, until ready (NaN: not timed). */
  restartMs: number;
  /** The pods' creation through the API: writes (create + status), time, writes per second. */
  seeding: Seeding;
  /** The top-up to `podsLarge` (`pods` is the count created, on top of `seeding`'s). */
  seedingLarge?: Seeding;
  /** The recorded updates (a GET and a PUT each): time and updates per second. */
  updates: { count: number; ms: number; perSecond: number };
  /** kube-apiserver's and etcd's memory: just started (no pods), with the pods, at the end (with the peak). */
  rss: { started: EnvironmentRss; seeded: EnvironmentRss; end: EnvironmentRss };
}

/** Pods created through the API: how many, their writes, the time, writes per second. */
export interface Seeding {
  pods: number;
  writes: number;
  ms: number;
  writesPerSecond: number;
}

/** No compaction, and a watch history long enough for every update (see the module's comment). */
export const ENVIRONMENT: TestEnvironmentOptions = { apiServerArgs: ['--etcd-compaction-interval=0', '--request-timeout=10m'] };

/** Namespaces the pods spread over, as in `simChild.ts`. */
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `team-${i}`);

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await f();
  return [value, Math.round(performance.now() - t0)];
}

/** Starts an environment three times, stopping the first two: the start times, the memory of a fresh one, and the third. */
async function startThrice(progress: (text: string) => void, timeStarts: boolean) {
  if (!timeStarts) {
    const [env, ms] = await timed(() => startTestEnvironment(ENVIRONMENT));
    return { env, started: environmentRss(env), startMs: { first: ms, again: [] } };
  }
  const [first, firstMs] = await timed(() => startTestEnvironment(ENVIRONMENT));
  progress(`etcd + kube-apiserver ready in ${firstMs} ms (first start)`);
  const started = environmentRss(first);
  await first.stop();
  const [second, secondMs] = await timed(() => startTestEnvironment(ENVIRONMENT));
  await second.stop();
  const [env, thirdMs] = await timed(() => startTestEnvironment(ENVIRONMENT));
  progress(`started again in ${secondMs} and ${thirdMs} ms`);
  return { env, started, startMs: { first: firstMs, again: [secondMs, thirdMs] } };
}

/** The pods' writer over the API and the load generator writing them, all at once (virtual time). */
export function podLoad(env: TestEnvironment) {
  const target = httpChurnTarget({ url: env.url, token: env.token, ca: env.ca });
  const scheduler = new VirtualTimeScheduler();
  let firstFailure: unknown;
  const load = createLoadGenerator({
    target,
    namespaces: NAMESPACES,
    seed: 3,
    unalike: true,
    scheduler,
    maxBacklog: Infinity,
    onFailure: (e) => (firstFailure ??= e),
  });
  const settled = async (what: string) => {
    await load.settled();
    if (load.counters.failed > 0) throw new Error(`${load.counters.failed} writes failed while ${what}: ${String(firstFailure)}`);
  };
  return {
    target,
    seed: async (count: number) => {
      for (const name of NAMESPACES) await target.createNamespace(name);
      load.seed(count);
      await settled('creating the pods');
    },
    update: async (count: number) => {
      load.churn({ ratePerSecond: 1_000_000, count, mix: { create: 0, update: 1, delete: 0, recreate: 0 } });
      scheduler.flush();
      await settled('updating the pods');
      if (load.counters.updated !== count) throw new Error(`made ${load.counters.updated} of ${count} updates`);
    },
  };
}

/** The resourceVersion of a consistent list now (no object in it). */
async function currentRevision(kc: KubeConfig): Promise<string> {
  const transport = createKubeTransport(kc);
  try {
    const list = await transport.getJson<{ metadata: { resourceVersion: string } }>('/api/v1/pods?limit=1');
    return list.metadata.resourceVersion;
  } finally {
    await transport.close();
  }
}

/** `count` pods created by `load.seed`, timed. */
export async function seeded(load: ReturnType<typeof podLoad>, count: number): Promise<Seeding> {
  const [, ms] = await timed(() => load.seed(count));
  return { pods: count, writes: 2 * count, ms, writesPerSecond: Math.round((2 * count * 1000) / ms) };
}

/**
 * `heapPerObject`: each contender's heap per cached pod, a fresh process per round; and
 * `heapPerObjectTransformed`, rxinformer dropping `managedFields` (what they cost of its figure).
 */
async function heapMetrics(kc: KubeConfig, o: RealBenchOptions): Promise<Record<string, Metric>> {
  const heap = await measureHeapPerObject(kc.exportConfig(), o.pods, {
    rounds: o.rounds,
    onRun: o.onRun('heapPerObject'),
    contenders: ['rxinformer', 'rxinformerTransformed', 'clientGo', 'clientGoProtobuf', 'clientNode', 'limit'],
    onExternal: (c, bytes) => o.progress(`heapPerObject: ${c} also held ${Math.round(bytes)} bytes/pod outside V8's heap (external)`),
  });
  const { rxinformerTransformed, ...peers } = heap;
  return {
    heapPerObject: buildMetric('heapPerObject', 'bytes/pod', 'lower', peers),
    heapPerObjectTransformed: buildMetric('heapPerObjectTransformed', 'bytes/pod', 'lower', {
      ...peers,
      rxinformer: rxinformerTransformed,
    }),
  };
}

/** The watch replay: `o.updates` updates recorded after the current revision, then replayed to each contender. */
async function replayMetrics(kc: KubeConfig, load: ReturnType<typeof podLoad>, o: RealBenchOptions) {
  const listAt = await currentRevision(kc);
  o.progress(`recording ${o.updates} updates after revision ${listAt}`);
  const [, ms] = await timed(() => load.update(o.updates));
  const replays = await measureWatchThroughput(
    kc,
    { pods: o.pods, listAt, updates: o.updates },
    { rounds: o.rounds, onRun: o.onRun(`watchThroughput${o.pods / 1000}k`), clientGo: true },
  );
  return { metrics: watchMetrics(o.pods, replays), updates: { count: o.updates, ms, perSecond: Math.round((o.updates * 1000) / ms) } };
}

/** The pods topped up to `o.podsLarge`, and `initialSync<N>k` of them: one round, no warm-up. */
async function largeSync(kc: KubeConfig, load: ReturnType<typeof podLoad>, o: RealBenchOptions) {
  o.progress(`creating ${o.podsLarge - o.pods} more pods through the API`);
  const seeding = await seeded(load, o.podsLarge - o.pods);
  o.progress(`created in ${seeding.ms} ms (${seeding.writesPerSecond} writes/s)`);
  const name = `initialSync${o.podsLarge / 1000}k`;
  const sync = await measureInitialSync(kc, o.podsLarge, { rounds: 1, warmup: 0, onRun: o.onRun(name), clientGo: true });
  const { rxinformerMetadata: _metadata, ...contenders } = sync;
  return { seeding, metric: buildMetric(name, 'ms', 'lower', contenders, 'initialSync100k') };
}

/**
 * Runs the benchmark against a real server: metrics as `npm run bench` builds them (client-go's
 * beside them), and the server's figures.
 *
 * @example
 * const { metrics, server } = await runRealBench({ pods: 10_000, updates: 20_000, rounds: 3, podsLarge: 0, progress, onRun });
 */
export async function runRealBench(o: RealBenchOptions): Promise<{ metrics: Record<string, Metric>; server: RealServerFigures }> {
  await buildClientGoPeer(); // nothing when current
  const { env, started, startMs } = await startThrice(o.progress, o.timeStarts ?? true);
  const load = podLoad(env);
  try {
    const kc = env.kubeConfig();
    const transport = createKubeTransport(kc);
    const version = (await transport.getJson<{ gitVersion: string }>('/version')).gitVersion;
    await transport.close();
    o.progress(`kube-apiserver ${version}: creating ${o.pods} pods through the API`);
    const seeding = await seeded(load, o.pods);
    const seededRss = environmentRss(env);
    const [, restartMs] = o.timeStarts === false ? [undefined, Number.NaN] : await timed(() => env.restartApiServer({ kill: true }));
    o.progress(`created in ${seeding.ms} ms; kube-apiserver killed and ready again in ${restartMs} ms`);

    const metrics: Record<string, Metric> = {};
    const sync = await measureInitialSync(kc, o.pods, {
      rounds: o.rounds,
      onRun: o.onRun(`initialSync${o.pods / 1000}k`),
      metadata: true,
      clientGo: true,
    });
    Object.assign(metrics, syncMetrics(o.pods, sync));
    const replay = await replayMetrics(kc, load, o);
    Object.assign(metrics, replay.metrics);
    Object.assign(metrics, await heapMetrics(kc, o));
    const large = o.podsLarge > o.pods ? await largeSync(kc, load, o) : undefined;
    if (large) metrics[`initialSync${o.podsLarge / 1000}k`] = large.metric;
    const server: RealServerFigures = {
      version,
      startMs,
      restartMs,
      seeding,
      ...(large && { seedingLarge: large.seeding }),
      updates: replay.updates,
      rss: { started, seeded: seededRss, end: environmentRss(env) },
    };
    return { metrics, server };
  } finally {
    await load.target.close();
    await env.stop();
  }
}

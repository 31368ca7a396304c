/**
 * `npm run bench:sharded [-- --json] [--only heap|throughput|failover]`: sharding and leader election figures, each in fresh
 * processes against the simulator.
 *
 * - failover: the demo's SIGKILL → its keys reconciled elsewhere, against leaseDuration + retryPeriod
 *   (client-go's defaults; goal within 1.5x);
 * - heap: the heap of each of 3 replicas against 1 replica holding everything (goal at most 0.4x);
 * - throughput: reconciles per second of 3 replicas against 1 when each reconcile waits on the
 *   server (goal at least 2.5x).
 */
import { runShardedDemo } from '../src/sharded/shardedDemo.ts';
import { measureRing } from '../src/sharded/shardedBench.ts';

const json = process.argv.includes('--json');
/** `--only heap|throughput|failover`: one figure alone. Default: all three. */
const only = process.argv[process.argv.indexOf('--only') + 1];
const run = (figure: string) => !process.argv.includes('--only') || only === figure;
const log = (line: string) => process.stderr.write(`${line}\n`);

const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
const ratio = (x: number) => Math.round(x * 100) / 100;

/** Each of 3 replicas' heap against 1 replica's, caching 30,000 ConfigMaps of 2 KiB (no reconcile). */
async function heap() {
  const objects = 30_000;
  log(`heap: ${objects} ConfigMaps of 2 KiB cached, 1 replica then 3`);
  const one = await measureRing({ replicas: 1, objects, dataBytes: 2048, reconcile: false });
  const three = await measureRing({ replicas: 3, objects, dataBytes: 2048, reconcile: false });
  // What the cache adds: the heap once synced, less the same process's heap in the ring before any object existed.
  const net = (m: typeof one) => m.heapPerReplica.map((h, i) => h - m.baselineHeapPerReplica[i]);
  return {
    oneReplicaMiB: mib(one.heapPerReplica[0]),
    threeReplicasMiB: three.heapPerReplica.map(mib),
    cachedPerReplica: three.cachedPerReplica,
    baselineMiB: [...one.baselineHeapPerReplica, ...three.baselineHeapPerReplica].map(mib),
    ratio: ratio(Math.max(...three.heapPerReplica) / one.heapPerReplica[0]),
    cacheOneReplicaMiB: mib(net(one)[0]),
    cacheThreeReplicasMiB: net(three).map(mib),
    cacheRatio: ratio(Math.max(...net(three)) / net(one)[0]),
    goal: '<= 0.4',
  };
}

/** Reconciles per second of 3 replicas against 1, each reconcile two writes with 20 ms of server latency. */
async function throughput() {
  const objects = 2000;
  log(`throughput: ${objects} ConfigMaps, 20 ms server latency, 4 reconciles in parallel per replica`);
  const one = await measureRing({ replicas: 1, objects, latencyMs: 20 });
  const three = await measureRing({ replicas: 3, objects, latencyMs: 20 });
  return {
    oneReplicaPerSecond: one.reconcilesPerSecond,
    threeReplicasPerSecond: three.reconcilesPerSecond,
    ratio: ratio(three.reconcilesPerSecond / one.reconcilesPerSecond),
    goal: '>= 2.5',
  };
}

/** The demo with client-go's timing: SIGKILL → its keys reconciled elsewhere, against lease duration + retry period. */
async function failover() {
  log('failover: the demo with client-go timing (15 s / 10 s / 2 s), 3000 ConfigMaps');
  const demo = await runShardedDemo({ replicas: 3, objects: 3000, replicaStderr: 'ignore', onProgress: log });
  return {
    failoverMs: demo.failoverMs,
    budgetMs: demo.failoverBudgetMs,
    ratio: ratio(demo.failoverMs / demo.failoverBudgetMs),
    goal: '<= 1.5',
    demo,
  };
}

const result = {
  ...(run('heap') && { heap: await heap() }),
  ...(run('throughput') && { throughput: await throughput() }),
  ...(run('failover') && { failover: await failover() }),
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(`| figure | measured | goal |\n| --- | --- | --- |`);
  const { heap: h, throughput: t, failover: f } = result;
  if (f) console.log(`| failover / (lease duration + retry period) | ${f.failoverMs} ms / ${f.budgetMs} ms = ${f.ratio}x | <= 1.5x |`);
  if (h) {
    console.log(
      `| heap per replica, 3 replicas / 1 | ${Math.max(...h.threeReplicasMiB)} MiB / ${h.oneReplicaMiB} MiB = ${h.ratio}x | <= 0.4x |`,
    );
    console.log(
      `| cache heap per replica (less the empty process), 3 / 1 | ${Math.max(...h.cacheThreeReplicasMiB)} MiB / ${h.cacheOneReplicaMiB} MiB = ${h.cacheRatio}x | <= 0.4x |`,
    );
  }
  if (t) console.log(`| reconciles/s, 3 replicas / 1 | ${t.threeReplicasPerSecond} / ${t.oneReplicaPerSecond} = ${t.ratio}x | >= 2.5x |`);
}

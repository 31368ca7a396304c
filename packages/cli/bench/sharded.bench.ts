/**
 * `npm run bench:sharded [-- --json]`: sharding and leader election figures, each in fresh
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
const log = (line: string) => process.stderr.write(`${line}\n`);

const heapObjects = 30_000;
log(`heap: ${heapObjects} ConfigMaps of 2 KiB cached, 1 replica then 3`);
const heapOne = await measureRing({ replicas: 1, objects: heapObjects, dataBytes: 2048, reconcile: false });
const heapThree = await measureRing({ replicas: 3, objects: heapObjects, dataBytes: 2048, reconcile: false });
const heapRatio = Math.max(...heapThree.heapPerReplica) / heapOne.heapPerReplica[0];
// What the cache adds: the heap once synced, less the same process's heap in the ring before any object existed.
const net = (m: typeof heapOne) => m.heapPerReplica.map((h, i) => h - m.baselineHeapPerReplica[i]);
const cacheRatio = Math.max(...net(heapThree)) / net(heapOne)[0];

const tpObjects = 2000;
log(`throughput: ${tpObjects} ConfigMaps, 20 ms server latency, 4 reconciles in parallel per replica`);
const tpOne = await measureRing({ replicas: 1, objects: tpObjects, latencyMs: 20 });
const tpThree = await measureRing({ replicas: 3, objects: tpObjects, latencyMs: 20 });
const tpRatio = tpThree.reconcilesPerSecond / tpOne.reconcilesPerSecond;

log('failover: the demo with client-go timing (15 s / 10 s / 2 s), 3000 ConfigMaps');
const demo = await runShardedDemo({ replicas: 3, objects: 3000, replicaStderr: 'ignore', onProgress: log });
const failoverRatio = demo.failoverMs / demo.failoverBudgetMs;

const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
const result = {
  failover: { failoverMs: demo.failoverMs, budgetMs: demo.failoverBudgetMs, ratio: Math.round(failoverRatio * 100) / 100, goal: '<= 1.5' },
  heap: {
    oneReplicaMiB: mib(heapOne.heapPerReplica[0]),
    threeReplicasMiB: heapThree.heapPerReplica.map(mib),
    cachedPerReplica: heapThree.cachedPerReplica,
    baselineMiB: heapOne.baselineHeapPerReplica.map(mib),
    ratio: Math.round(heapRatio * 100) / 100,
    cacheOneReplicaMiB: mib(net(heapOne)[0]),
    cacheThreeReplicasMiB: net(heapThree).map(mib),
    cacheRatio: Math.round(cacheRatio * 100) / 100,
    goal: '<= 0.4',
  },
  throughput: {
    oneReplicaPerSecond: tpOne.reconcilesPerSecond,
    threeReplicasPerSecond: tpThree.reconcilesPerSecond,
    ratio: Math.round(tpRatio * 100) / 100,
    goal: '>= 2.5',
  },
  demo,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(`| figure | measured | goal |\n| --- | --- | --- |`);
  console.log(
    `| failover / (lease duration + retry period) | ${demo.failoverMs} ms / ${demo.failoverBudgetMs} ms = ${result.failover.ratio}x | <= 1.5x |`,
  );
  console.log(
    `| heap per replica, 3 replicas / 1 replica | ${Math.max(...result.heap.threeReplicasMiB)} MiB / ${result.heap.oneReplicaMiB} MiB = ${result.heap.ratio}x | <= 0.4x |`,
  );
  console.log(
    `| reconciles/s, 3 replicas / 1 replica | ${tpThree.reconcilesPerSecond} / ${tpOne.reconcilesPerSecond} = ${result.throughput.ratio}x | >= 2.5x |`,
  );
}

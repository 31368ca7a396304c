/**
 * The benchmark's simulator, run as a child process so that serving lists and watches never shares
 * the measured client's thread. Started by `simProcess.ts`; speaks JSON lines:
 *
 *   stdout, first line: {"ready": true, "url": …, "kubeconfig": <YAML>}
 *   stdin:  {"id": 1, "cmd": "seed", "count": 10000}      → pods from the load generator (realisticPod)
 *           {"id": 2, "cmd": "update", "count": 20000}    → that many pod updates, as fast as the store takes them
 *           {"id": 3, "cmd": "state"}
 *           {"id": 4, "cmd": "configmaps", "count": 100000}  → small ConfigMaps (`cm-<i>`, spread over the namespaces)
 *           {"id": 5, "cmd": "touchConfigMaps", "count": 1000} → that many of them updated (seeded-random ones)
 *           {"id": 6, "cmd": "compact"}                   → the watch history forgotten (a watch from before: 410)
 *   stdout: {"id": 1, "ok": true, "result": {"pods": …, "resourceVersion": …}} or {"id": 1, "ok": false, "error": "…"}
 *
 * It exits when stdin closes (the parent died) or on SIGTERM.
 */
import { createInterface } from 'node:readline';
import { VirtualTimeScheduler } from 'rxjs';
import { createLoadGenerator, objectStoreTarget, startApiServer } from '@rxinformer/apiserver-sim';
import type { SimCommand, SimState } from './simProcess.ts';

/** The `i`-th small ConfigMap (about 250 bytes of JSON as served), at its `version`-th value. */
function smallConfigMap(i: number, version: number) {
  return { metadata: { name: `cm-${i}`, labels: { app: `app-${i % 50}` } }, data: { key: `value-${i}-${version}` } };
}

async function main(): Promise<void> {
  const historyEvents = Number(process.argv[2] ?? 100_000);
  const unalike = process.argv[3] === 'unalike'; // pods as unalike as a real cluster's (see createLoadGenerator)
  // Namespaces the pods spread over, as in a cluster with a few teams (10 by default).
  const BENCH_NAMESPACES = Array.from({ length: Number(process.argv[4] ?? 10) }, (_, i) => `team-${i}`);
  // History large enough to replay every update, and old enough to outlive the whole run. A replay
  // from history is written to the socket at once (20k realistic pods ≈ 84 MB), so the buffer that
  // drops slow watchers (64 MiB by default) is raised above any recorded stream.
  const sim = await startApiServer({
    port: 0,
    seed: 11,
    history: { maxEvents: historyEvents, maxAgeMs: 3_600_000 },
    maxWatchBufferBytes: 2 ** 31,
  });
  for (const name of BENCH_NAMESPACES) sim.storage.create('namespaces', { metadata: { name } });
  // Updates run as a churn in virtual time: `flush()` applies them all at once, in order.
  const scheduler = new VirtualTimeScheduler();
  const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: BENCH_NAMESPACES, seed: 3, scheduler, unalike });
  let pods = 0;
  let configMaps = 0;
  let touched = 0;
  const namespaceOf = (i: number) => BENCH_NAMESPACES[i % BENCH_NAMESPACES.length];
  const state = (): SimState => ({ pods, resourceVersion: String(sim.storage.resourceVersion), watches: sim.watches.sessions().length });

  const run = (command: SimCommand): SimState => {
    switch (command.cmd) {
      case 'seed':
        load.seed(command.count);
        pods += command.count;
        return state();
      case 'update': {
        const before = load.counters.updated;
        load.churn({ ratePerSecond: 1_000_000, count: command.count, mix: { create: 0, update: 1, delete: 0, recreate: 0 } });
        scheduler.flush();
        if (load.counters.updated - before !== command.count)
          throw new Error(`applied ${load.counters.updated - before} of ${command.count} updates`);
        return state();
      }
      case 'state':
        return state();
      case 'configmaps':
        configMaps = command.count;
        for (let i = 0; i < configMaps; i++) sim.storage.create('configmaps', smallConfigMap(i, 0), namespaceOf(i));
        return state();
      case 'touchConfigMaps':
        for (let n = 0; n < command.count; n++) {
          const i = (touched++ * 7919) % configMaps; // a prime stride: distinct ones, spread out
          sim.storage.update('configmaps', smallConfigMap(i, touched), namespaceOf(i), `cm-${i}`);
        }
        return state();
      case 'compact':
        sim.faults.compact();
        return state();
      default:
        throw new Error(`unknown command ${JSON.stringify(command)}`);
    }
  };

  const stop = () => {
    void sim.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as SimCommand & { id: number };
    try {
      process.stdout.write(`${JSON.stringify({ id: message.id, ok: true, result: run(message) })}\n`);
    } catch (e) {
      process.stdout.write(`${JSON.stringify({ id: message.id, ok: false, error: (e as Error).message ?? String(e) })}\n`);
    }
  });
  lines.on('close', stop);
  process.stdout.write(`${JSON.stringify({ ready: true, url: sim.url, kubeconfig: sim.kubeconfigYaml() })}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/**
 * `npm run bench:protobuf`: the protobuf wire against JSON on a real kube-apiserver, end to end.
 * 10k pods (written as a cluster writes them) are synced, and a recorded stream of updates replayed,
 * by rxinformer over JSON and over protobuf (`wire: 'protobuf'`) and by client-go with each
 * (its peer, a process per run), in alternating rounds. Each run also counts the client's CPU
 * (this process's for rxinformer, the reaped peer's for client-go, from /proc/self/stat) and
 * kube-apiserver's (from /proc/PID/stat), per object.
 *
 *   node --expose-gc packages/cli/bench/protobuf.bench.ts [--pods 10000] [--updates 5000] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { createSharedInformer } from '@rxinformer/core';
import { createKubeTransport, kubeConfigListerWatcher, pods } from '@rxinformer/client-node';
import { startTestEnvironment } from '@rxinformer/envtest';
import { kubeConfigFor } from '@rxinformer/testing/servers';
import { clientGoReplayPerSecond, clientGoRun, clientGoSyncMs } from './clientGo.ts';
import { listingAt } from './clients.ts';
import { ENVIRONMENT, podLoad } from './realBench.ts';
import { median, rotation } from './rounds.ts';
import { environmentRss } from './serverRss.ts';

type Contender = 'rxinformerJson' | 'rxinformerProtobuf' | 'clientGoJson' | 'clientGoProtobuf';
const CONTENDERS: Contender[] = ['rxinformerJson', 'rxinformerProtobuf', 'clientGoJson', 'clientGoProtobuf'];

const { values } = parseArgs({ options: { pods: { type: 'string' }, updates: { type: 'string' }, rounds: { type: 'string' } } });
const PODS = Number(values.pods ?? 10_000);
const UPDATES = Number(values.updates ?? 5_000);
const ROUNDS = Number(values.rounds ?? 3);
const TICK_MS = 10; // USER_HZ 100

/** utime+stime (and cutime+cstime: reaped children) of a process in ms, from /proc/PID/stat. */
function cpuMs(pid: number | 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(f[11]) + Number(f[12])) * TICK_MS, children: (Number(f[13]) + Number(f[14])) * TICK_MS };
}

/** rxinformer's sync (ms) or replay (events/s) over `wire`. */
async function rxinformer(kc: KubeConfig, wire: 'json' | 'protobuf', replay?: { listAt: string; updates: number }): Promise<number> {
  const transport = createKubeTransport(kc);
  // Paged lists, as the figures in docs/benchmarks.md were measured (a list pinned at a revision pages).
  const all = kubeConfigListerWatcher(kc, { resource: pods, transport, wire });
  const lw = replay ? listingAt(all, replay.listAt) : all;
  const informer = createSharedInformer(lw, { reflector: { useStreamingList: false } });
  let updates = 0;
  let last!: () => void;
  const allUpdates = new Promise<void>((resolve) => (last = resolve));
  const handler = informer.addEventHandler({
    onUpdate: () => {
      if (++updates === replay?.updates) last();
    },
  });
  const t0 = performance.now();
  informer.start();
  await new Promise<void>((resolve) => {
    const sub = handler.synced$.subscribe((s) => {
      if (!s) return;
      resolve();
      queueMicrotask(() => sub.unsubscribe());
    });
  });
  const synced = performance.now();
  if (informer.getStore().keys().length !== PODS) throw new Error(`synced ${informer.getStore().keys().length} of ${PODS}`);
  if (replay) await allUpdates;
  const end = performance.now();
  informer.stop();
  await transport.close();
  return replay ? (replay.updates * 1000) / (end - synced) : synced - t0;
}

async function run(kc: KubeConfig, c: Contender, replay?: { listAt: string; updates: number; pods: number }): Promise<number> {
  if (c === 'rxinformerJson' || c === 'rxinformerProtobuf') return rxinformer(kc, c === 'rxinformerJson' ? 'json' : 'protobuf', replay);
  const go = clientGoRun(kc, c === 'clientGoJson' ? 'clientGo' : 'clientGoProtobuf', 600_000);
  return replay ? clientGoReplayPerSecond(go, replay) : clientGoSyncMs(go, PODS);
}

interface Sample {
  value: number;
  clientCpuMs: number;
  serverCpuMs: number;
}

async function measure(kc: KubeConfig, apiServerPid: number, what: string, replay?: { listAt: string; updates: number; pods: number }) {
  const samples = Object.fromEntries(CONTENDERS.map((c) => [c, [] as Sample[]])) as Record<Contender, Sample[]>;
  for (let round = -1; round < ROUNDS; round++) {
    for (const c of rotation(CONTENDERS, Math.max(round, 0))) {
      (globalThis as { gc?: () => void }).gc?.();
      const [me0, srv0] = [cpuMs('self'), cpuMs(apiServerPid)];
      const value = await run(kc, c, replay);
      const [me1, srv1] = [cpuMs('self'), cpuMs(apiServerPid)];
      const client = c.startsWith('clientGo') ? me1.children - me0.children : me1.own - me0.own;
      if (round >= 0) samples[c].push({ value, clientCpuMs: client, serverCpuMs: srv1.own - srv0.own });
      console.error(
        `${what} round ${round < 0 ? 'warm-up' : round} ${c}: ${value.toFixed(1)} (client ${client} ms CPU, server ${srv1.own - srv0.own} ms CPU)`,
      );
    }
  }
  const n = replay ? replay.updates : PODS;
  return Object.fromEntries(
    CONTENDERS.map((c) => {
      const s = samples[c];
      const perObject = (k: 'clientCpuMs' | 'serverCpuMs') => Math.round((median(s.map((x) => x[k])) * 1000) / n);
      return [
        c,
        {
          median: Math.round(median(s.map((x) => x.value))),
          samples: s.map((x) => Math.round(x.value)),
          clientCpuUsPerObject: perObject('clientCpuMs'),
          serverCpuUsPerObject: perObject('serverCpuMs'),
        },
      ];
    }),
  );
}

const env = await startTestEnvironment(ENVIRONMENT);
try {
  const kc = kubeConfigFor({ url: env.url, token: env.token, ca: env.ca });
  const apiServer = environmentRss(env).apiServer;
  if (!apiServer) throw new Error('kube-apiserver process not found');
  const load = podLoad(env);
  console.error(`seeding ${PODS} pods`);
  await load.seed(PODS);
  const sync = await measure(kc, apiServer.pid, 'initialSync');
  const t = createKubeTransport(kc);
  const listAt = (await t.getJson<{ metadata: { resourceVersion: string } }>('/api/v1/pods?limit=1')).metadata.resourceVersion;
  await t.close();
  console.error(`recording ${UPDATES} updates after ${listAt}`);
  await load.update(UPDATES);
  const watch = await measure(kc, apiServer.pid, 'watchReplay', { listAt, updates: UPDATES, pods: PODS });
  console.log(
    JSON.stringify(
      { pods: PODS, updates: UPDATES, rounds: ROUNDS, load: readFileSync('/proc/loadavg', 'utf8').trim(), sync, watch },
      null,
      1,
    ),
  );
} finally {
  await env.stop();
}
process.exit(0);

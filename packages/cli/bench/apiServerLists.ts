/**
 * What ten informers syncing one large collection at once cost kube-apiserver: its peak resident
 * memory and the CPU time it spends until all ten are synced, with rxinformer listing in pages,
 * rxinformer streaming (its default), client-go (its default since v0.35: a streaming list) and
 * client-go paged (`--watch-list off`: its first list at resourceVersion "0", which the watch cache
 * answers whole, ignoring the limit).
 *
 * Each informer is a process of its own, as ten controllers starting at once: rxinformer's is
 * `listsChild.ts` (loaded before the run starts, then told to go), client-go's the client-go
 * peer's `bench sync` (started at the run's start). Before each run kube-apiserver is
 * restarted over the same etcd (so no run inherits another's heap), its pod cache warmed by one
 * list, and its peak (`VmHWM`) reset once it has settled; the run's figures are its peak then,
 * that peak over its resident memory at the start, and its CPU time (utime + stime) from the start
 * until the last informer synced. Runs go in rounds, in a balanced order (`rotation`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeTransport } from '@rxinformer/client-node';
import type { TestEnvironment } from '@rxinformer/envtest';
import { startChildServer } from './childRun.ts';
import { clientGoResult, clientGoRun } from './clientGo.ts';
import { median, rotation } from './rounds.ts';
import { apiServerProcess, cpuMsOf, memoryOf, resetPeak } from './serverRss.ts';

/** The contenders, in the order of the first round. */
export const LIST_CONTENDERS = ['rxinformerPaged', 'rxinformerStreaming', 'clientGo', 'clientGoPaged'] as const;

/** One of the contenders. */
export type ListContender = (typeof LIST_CONTENDERS)[number];

/** kube-apiserver's figures of one run. */
export interface ListRun {
  /** Its peak resident memory during the run (`VmHWM`, reset at the start), KiB. */
  peakKiB: number;
  /** That peak over its resident memory at the start, KiB. */
  growthKiB: number;
  /** Its CPU time from the start until the last informer synced, ms. */
  cpuMs: number;
  /** The start until the last informer synced, ms. */
  syncMs: number;
}

/** Options of `measureApiServerLists`. */
export interface ApiServerListsOptions {
  /** Pods the server holds. */
  pods: number;
  /** Informers syncing at once. Default 10. */
  informers?: number;
  /** Rounds. Default 3. */
  rounds?: number;
  /** How long one informer may take to sync, ms. Default 600 000. */
  timeoutMs?: number;
  /** Called before each run. */
  onRun?: (contender: ListContender, round: number) => void;
}

/** Each contender's runs, in round order. */
export type ApiServerLists = Record<ListContender, ListRun[]>;

/** One informer of `contender`, ready to sync when `go` is called: its own sync time (ms) then. Throws when it did not hold every pod. */
interface ReadyInformer {
  go(): Promise<number>;
  close(): void;
}

/**
 * One informer of `contender`, loaded and waiting: rxinformer's child has loaded its modules (ten
 * Node processes starting take longer than the sync on a busy machine), client-go's peer starts
 * at `go` (a Go binary starts in milliseconds).
 */
async function readyInformer(contender: ListContender, kc: KubeConfig, pods: number, timeoutMs: number): Promise<ReadyInformer> {
  if (contender === 'clientGo' || contender === 'clientGoPaged') {
    const go = async () => {
      const run = clientGoRun(kc, 'clientGo', timeoutMs);
      const result = await clientGoResult(run, 'sync', { watchList: contender === 'clientGo' });
      if (result.objects !== pods) throw new Error(`client-go synced ${result.objects} of ${pods} pods`);
      return result.storeSyncMs;
    };
    return { go, close: () => undefined };
  }
  const mode = contender === 'rxinformerPaged' ? 'paged' : 'streaming';
  const env = { RXINFORMER_BENCH_KUBECONFIG: kc.exportConfig() };
  const child = await startChildServer('listsChild.ts', [mode, String(pods)], { env, timeoutMs });
  const go = async () => (await child.ask<{ objects: number; syncMs: number }>({ go: true })).syncMs;
  return { go, close: () => child.close() };
}

/** kube-apiserver restarted, its pod cache filled (a consistent list is served from it once it is), settled; its pid. */
async function freshApiServer(env: TestEnvironment): Promise<number> {
  await env.restartApiServer();
  const transport = createKubeTransport(env.kubeConfig());
  try {
    await transport.getJson('/api/v1/pods?limit=1');
  } finally {
    await transport.close();
  }
  await sleep(3000); // its start-up work done (caches of every resource, the first bookmarks)
  const found = apiServerProcess(env);
  if (!found) throw new Error('kube-apiserver not found in /proc');
  return found.pid;
}

/** One run: `informers` informers of `contender` at once against a fresh kube-apiserver. */
async function run(env: TestEnvironment, contender: ListContender, o: Required<Omit<ApiServerListsOptions, 'onRun'>>): Promise<ListRun> {
  const pid = await freshApiServer(env);
  const kc = env.kubeConfig();
  const informers = await Promise.all(Array.from({ length: o.informers }, () => readyInformer(contender, kc, o.pods, o.timeoutMs)));
  try {
    resetPeak(pid);
    const start = memoryOf(pid).rssKiB;
    const cpu0 = cpuMsOf(pid);
    const t0 = performance.now();
    await Promise.all(informers.map((i) => i.go()));
    const syncMs = performance.now() - t0;
    const cpuMs = cpuMsOf(pid) - cpu0;
    const { peakKiB } = memoryOf(pid);
    return { peakKiB, growthKiB: peakKiB - start, cpuMs, syncMs: Math.round(syncMs) };
  } finally {
    for (const i of informers) i.close();
  }
}

/**
 * Runs every contender `rounds` times against `env`, whose kube-apiserver holds `pods` pods.
 *
 * @example
 * const runs = await measureApiServerLists(env, { pods: 10_000, informers: 10, rounds: 3 });
 * runs.rxinformerStreaming.map((r) => r.peakKiB);
 *
 * Caveat: Linux only (`/proc`); it restarts `env`'s kube-apiserver before each run.
 */
export async function measureApiServerLists(env: TestEnvironment, options: ApiServerListsOptions): Promise<ApiServerLists> {
  const o = { informers: 10, rounds: 3, timeoutMs: 600_000, ...options };
  const runs = Object.fromEntries(LIST_CONTENDERS.map((c) => [c, [] as ListRun[]])) as ApiServerLists;
  for (let r = 0; r < o.rounds; r++)
    for (const contender of rotation(LIST_CONTENDERS, r)) {
      o.onRun?.(contender, r);
      runs[contender].push(await run(env, contender, o));
    }
  return runs;
}

/** A figure's median and spread (lowest, highest) over the runs. */
export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

const MIB = 1024;

/** The runs as a Markdown table: per contender the median and spread of each figure, and the peak beside client-go's. */
export function renderListRuns(runs: ApiServerLists): string {
  const reference = spread(runs.clientGo.map((r) => r.peakKiB)).median;
  const cell = (values: number[], scale: number, digits: number) => {
    const s = spread(values);
    const f = (x: number) => (x / scale).toFixed(digits);
    return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
  };
  const rows = LIST_CONTENDERS.map((c) => {
    const rs = runs[c];
    const peak = rs.map((r) => r.peakKiB);
    return `| ${c} | ${cell(peak, MIB, 0)} | ${(spread(peak).median / reference).toFixed(2)} | ${cell(
      rs.map((r) => r.growthKiB),
      MIB,
      0,
    )} | ${cell(
      rs.map((r) => r.cpuMs),
      1000,
      1,
    )} | ${cell(
      rs.map((r) => r.syncMs),
      1000,
      1,
    )} |`;
  });
  return [
    '| contender | peak RSS, MiB | peak ÷ client-go | peak over start, MiB | CPU, s | all synced, s |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/**
 * `npm run bench:warm [-- --server real] [--objects N] [--churn N] [--rounds N] [--json]`: the
 * restart of an informer over N small ConfigMaps (default 100,000), cold against warm (issue #38).
 *
 * - cold: a factory without snapshots lists everything;
 * - warm inside the watch window: a factory with a file snapshot store started, synced and closed
 *   (saving its snapshot); `--churn` ConfigMaps (default 1,000) updated; a new factory over the same
 *   directory restores the snapshot and resumes the watch from its resource version;
 * - warm outside it: the same, but the history is gone before the restart (the simulator's
 *   `compact`; kube-apiserver restarted, so its new watch cache starts after the snapshot): the
 *   resumed watch gets 410, the informer relists and applies only the differences.
 *
 * Each restart is a new factory in this process, after a full collection (a process start costs
 * all three the same). Time to synced: from `start()` (reading the snapshot included) to
 * `waitForCacheSync()`; shown: to the snapshot in the cache; current: to the cache holding every
 * change made before the restart (the churn's events follow the sync). Bytes: every response body
 * the factory's transport read until current (the server sends no compression to it). The
 * snapshot save is timed as the `close()` of the factory that wrote it, less a cold one's `close()`.
 * The simulator runs in a child process (simChild.ts); `--server real` starts kube-apiserver + etcd.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { configMaps, createKubeInformerFactory, createKubeTransport, fileSnapshotStore, type KubeTransport } from '@rxinformer/client-node';
import { startTestEnvironment } from '@rxinformer/envtest';
import { createApi, inParallel } from '@rxinformer/testing/servers';
import { median } from './rounds.ts';
import { startSimProcess } from './simProcess.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const real = args.includes('--server') && args[args.indexOf('--server') + 1] === 'real';
const objects = option('--objects', 100_000);
const churn = option('--churn', 1000);
const rounds = option('--rounds', 3);
/** `--only inside` (or `outside`): that warm restart alone. */
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The server under the benchmark: how to reach it, change it, and put the snapshot out of its window. */
interface Backend {
  kubeConfig: KubeConfig;
  /** The server's resource version now. */
  resourceVersion(): Promise<string>;
  /** Updates `count` of the ConfigMaps. */
  touch(count: number): Promise<void>;
  /** Makes every resource version before now too old to watch from (410). */
  forget(): Promise<void>;
  close(): Promise<void>;
}

/** A transport that counts the bytes of every response body it hands on. */
function countingTransport(inner: KubeTransport): KubeTransport & { bytes: number; requests: number; paths: string[] } {
  const t = {
    ...inner,
    bytes: 0,
    requests: 0,
    paths: [] as string[],
    get: async (path: string, signal: AbortSignal, kind: 'list' | 'watch', accept?: string) => {
      t.requests++;
      t.paths.push(path);
      const response = await inner.get(path, signal, kind, accept);
      return {
        status: response.status,
        header: (name: string) => response.header(name),
        chunks: async function* () {
          for await (const chunk of response.chunks()) {
            t.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
            yield chunk;
          }
        },
      };
    },
  };
  return t;
}

/** One restart: a new factory (warm over `dir`, cold without), until synced; then closed. */
async function restart(kc: KubeConfig, dir: string | undefined, serverRv: string) {
  (globalThis as { gc?: () => void }).gc?.(); // the previous restart's garbage collected first, as a new process has none
  const transport = countingTransport(createKubeTransport(kc));
  const factory = createKubeInformerFactory(kc, { transport, ...(dir && { snapshots: { store: fileSnapshotStore(dir) } }) });
  const informer = factory.informerFor(configMaps);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let restoredMs = NaN;
  let firstError: string | undefined; // why a warm restart listed, if it did
  const watching = informer.status$.subscribe((s) => {
    if (Number.isNaN(restoredMs) && s.snapshot?.start === 'restored') restoredMs = performance.now() - t0;
    firstError ??= s.lastError?.message;
  });
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 900_000 });
  const syncedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const syncedCpuMs = (cpu.user + cpu.system) / 1000; // this process's (not the server's): steadier than wall time under load
  // Current: every change the server had made before the restart is in the cache (the churn's events follow the sync).
  while (BigInt(informer.lastSyncResourceVersion ?? '0') < BigInt(serverRv)) await new Promise((r) => setTimeout(r, 5));
  const currentMs = performance.now() - t0;
  watching.unsubscribe();
  const { bytes, requests } = transport;
  const cached = informer.getStore().size;
  const status = informer.getStatus().snapshot;
  // Lists: paged ones, and streamed ones (a watch with sendInitialEvents, where the server serves them).
  const lists = transport.paths.filter(
    (p) => (!p.includes('watch=') || p.includes('sendInitialEvents=true')) && !p.endsWith('limit=1'),
  ).length;
  const lastError = firstError;
  const c0 = performance.now();
  await factory.close();
  const closeMs = performance.now() - c0;
  await transport.close();
  if (cached < objects) throw new Error(`synced ${cached} of ${objects} ConfigMaps`);
  return {
    syncedMs,
    syncedCpuMs,
    restoredMs,
    currentMs,
    bytes,
    requests,
    cached,
    closeMs,
    start: status?.start ?? 'cold',
    restoreError: status?.restoreError?.message,
    lists,
    lastError,
  };
}

async function simBackend(): Promise<Backend> {
  const sim = await startSimProcess({ historyEvents: Math.max(100_000, churn * 4) });
  await sim.send({ cmd: 'configmaps', count: objects });
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig);
  return {
    kubeConfig: kc,
    resourceVersion: async () => (await sim.send({ cmd: 'state' })).resourceVersion,
    touch: async (count) => void (await sim.send({ cmd: 'touchConfigMaps', count })),
    forget: async () => void (await sim.send({ cmd: 'compact' })),
    close: () => sim.close(),
  };
}

async function realBackend(): Promise<Backend> {
  const env = await startTestEnvironment();
  const api = createApi(env);
  const namespaces = Array.from({ length: 10 }, (_, i) => `team-${i}`);
  for (const name of namespaces) await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const path = (i: number) => `/api/v1/namespaces/${namespaces[i % namespaces.length]}/configmaps`;
  const body = (i: number, v: number) => ({
    metadata: { name: `cm-${i}`, labels: { app: `app-${i % 50}` } },
    data: { key: `value-${i}-${v}` },
  });
  const t0 = performance.now();
  await inParallel(objects, 32, (i) => api.create(path(i), { apiVersion: 'v1', kind: 'ConfigMap', ...body(i, 0) }));
  log(`created ${objects} ConfigMaps in ${Math.round((performance.now() - t0) / 1000)} s`);
  let touched = 0;
  return {
    kubeConfig: env.kubeConfig(),
    resourceVersion: async () =>
      ((await api.get('/api/v1/configmaps?limit=1')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
    touch: (count) =>
      inParallel(count, 16, async () => {
        const i = (touched++ * 7919) % objects;
        await api.update(`${path(i)}/cm-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', ...body(i, touched) });
      }),
    forget: () => env.restartApiServer(),
    close: async () => {
      await api.close();
      await env.stop();
    },
  };
}

async function main() {
  log(`${real ? 'kube-apiserver' : 'simulator'}: ${objects} ConfigMaps, churn ${churn}, ${rounds} rounds`);
  const backend = real ? await realBackend() : await simBackend();
  const kc = backend.kubeConfig;
  const runs: Record<'cold' | 'inside' | 'outside', Awaited<ReturnType<typeof restart>>[]> = { cold: [], inside: [], outside: [] };
  const saves: number[] = [];
  let snapshotBytes = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      runs.cold.push(await restart(kc, undefined, await backend.resourceVersion()));
      for (const where of (['inside', 'outside'] as const).filter((w) => !args.includes('--only') || args.includes(w))) {
        const dir = await mkdtemp(join(tmpdir(), 'rxinformer-bench-warm-'));
        try {
          const first = await restart(kc, dir, await backend.resourceVersion()); // cold, then saves at close
          saves.push(first.closeMs - runs.cold.at(-1)!.closeMs);
          for (const name of await readdir(dir)) snapshotBytes = (await stat(join(dir, name))).size;
          await backend.touch(churn);
          if (where === 'outside') await backend.forget();
          const warm = await restart(kc, dir, await backend.resourceVersion());
          if (warm.start !== 'restored') throw new Error(`the warm restart started ${warm.start}: ${warm.restoreError}`);
          runs[where].push(warm);
          log(
            `round ${round + 1} ${where}: ${Math.round(warm.syncedMs)} ms, CPU ${Math.round(warm.syncedCpuMs)} ms (shown at ${Math.round(warm.restoredMs)} ms, ${warm.lists} list requests${warm.lastError ? `, last error: ${warm.lastError}` : ''}), ${warm.bytes} B (cold ${Math.round(runs.cold.at(-1)!.syncedMs)} ms, CPU ${Math.round(runs.cold.at(-1)!.syncedCpuMs)} ms, ${runs.cold.at(-1)!.bytes} B)`,
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await backend.close();
  }
  const summary = (rs: (typeof runs)['cold']) => ({
    syncedMs: Math.round(median(rs.map((r) => r.syncedMs))),
    syncedCpuMs: Math.round(median(rs.map((r) => r.syncedCpuMs))),
    shownMs: Math.round(median(rs.map((r) => r.restoredMs))),
    currentMs: Math.round(median(rs.map((r) => r.currentMs))),
    bytes: median(rs.map((r) => r.bytes)),
  });
  const cold = summary(runs.cold);
  const ratios = (w: ReturnType<typeof summary>) => ({
    ...w,
    timeRatio: +(w.syncedMs / cold.syncedMs).toFixed(3),
    cpuRatio: +(w.syncedCpuMs / cold.syncedCpuMs).toFixed(3),
    bytesRatio: +(w.bytes / cold.bytes).toFixed(4),
  });
  const result = {
    server: real ? 'real' : 'sim',
    objects,
    churn,
    rounds,
    cold,
    inside: ratios(summary(runs.inside)),
    outside: ratios(summary(runs.outside)),
    snapshot: { bytes: snapshotBytes, saveMs: Math.round(median(saves)) },
    goal: { insideTime: '<= 0.1', insideBytes: '<= 0.05' },
  };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    const { inside, outside } = result;
    console.log(`| restart of an informer over ${objects} ConfigMaps (${result.server}) | time to synced | bytes from the server |`);
    console.log('| --- | --- | --- |');
    console.log(`| cold | ${cold.syncedMs} ms (CPU ${cold.syncedCpuMs} ms; current at ${cold.currentMs} ms) | ${cold.bytes} |`);
    console.log(
      `| warm, inside the watch window (${churn} changed) | ${inside.syncedMs} ms (${inside.timeRatio}x; CPU ${inside.syncedCpuMs} ms, ${inside.cpuRatio}x; shown at ${inside.shownMs} ms, current at ${inside.currentMs} ms) | ${inside.bytes} (${inside.bytesRatio}x) |`,
    );
    console.log(
      `| warm, outside it (410, relist) | ${outside.syncedMs} ms (${outside.timeRatio}x; CPU ${outside.syncedCpuMs} ms, ${outside.cpuRatio}x; shown at ${outside.shownMs} ms, current at ${outside.currentMs} ms) | ${outside.bytes} (${outside.bytesRatio}x) |`,
    );
    console.log(`\nsnapshot: ${snapshotBytes} bytes on disk, saved in ${result.snapshot.saveMs} ms (median, at close)`);
  }
}

await main();

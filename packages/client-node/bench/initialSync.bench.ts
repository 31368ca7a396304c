/**
 * Initial sync of N realistic pods (default 10,000, ~4 KB each) from the simulator over HTTP, in one
 * run, three ways, all against the same server:
 *   - rxinformer: `createKubeInformerFactory(kc).informerFor(pods)`, start → `waitForCacheSync()`;
 *   - client-node: `makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces())`, start →
 *     the N-th `add` callback (its list is one request, deserialized into model classes);
 *   - limit: the same pages rxinformer fetches (limit=500 + continue) through the same transport,
 *     `JSON.parse` of each body and nothing else.
 * The simulator runs in a child process (this script with `--serve`), so its serialization does not
 * compete with the clients for their thread. One warm-up round of each, then `--rounds` rounds
 * (default 7) in rotating order; medians and the spread are reported. Times are wall-clock from
 * start to synced; the client process's CPU time (user + system, GC threads included) is reported
 * too, as it is less disturbed by other load on a shared machine. Goals: rxinformer ≤ 0.5 ×
 * client-node and ≤ 1.5 × limit.
 *
 *   node packages/client-node/bench/initialSync.bench.ts [--pods 10000] [--rounds 7] [--json]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { createLoadGenerator, objectStoreTarget, startApiServer } from '@rxinformer/apiserver-sim';
import type { ListPage } from '@rxinformer/core';
import { createKubeInformerFactory, createKubeTransport, pods } from '../src/index.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const podCount = flag('pods', 10_000);
const rounds = flag('rounds', 7);
const json = args.includes('--json');
const gc = (globalThis as { gc?: () => void }).gc;

/** The child: a seeded simulator that prints its kubeconfig as one JSON line and lives until stdin closes. */
async function serve(): Promise<void> {
  const sim = await startApiServer({ port: 0, seed: 11, history: { maxEvents: podCount + 1000 } });
  const namespaces = Array.from({ length: 10 }, (_, i) => `team-${i}`);
  for (const name of namespaces) sim.storage.create('namespaces', { metadata: { name } });
  createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces, seed: 3 }).seed(podCount);
  console.log(JSON.stringify({ kubeconfig: sim.kubeconfigYaml() }));
  process.stdin.on('end', () => void sim.close().then(() => process.exit(0)));
  process.stdin.resume();
}

/** Starts the simulator child; resolves once it serves, with its kubeconfig and a way to stop it. */
async function startSimulatorChild(): Promise<{ kubeconfig: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [process.argv[1], '--serve', '--pods', String(podCount)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill); // also when this process fails
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator child exited (${code}) before it was ready`)));
  });
  return {
    kubeconfig: (JSON.parse(first) as { kubeconfig: string }).kubeconfig,
    stop: async () => {
      child.stdin!.end();
      const timer = setTimeout(kill, 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

type Sample = { ms: number; cpuMs: number };

async function measure(run: () => Promise<void>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const sim = await startSimulatorChild();
  try {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig);

    const rxinformer = async (): Promise<Sample> => {
      const factory = createKubeInformerFactory(kc);
      const informer = factory.informerFor(pods);
      const sample = await measure(async () => {
        factory.start();
        await factory.waitForCacheSync();
      });
      if (informer.getStore().size !== podCount) throw new Error(`rxinformer synced ${informer.getStore().size} pods`);
      await factory.close();
      return sample;
    };

    const clientNode = async (): Promise<Sample> => {
      const core = kc.makeApiClient(CoreV1Api);
      const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
      let added = 0;
      let done!: () => void;
      let fail!: (e: unknown) => void;
      let stopping = false;
      const synced = new Promise<void>((resolve, reject) => {
        done = resolve;
        fail = reject;
      });
      informer.on('add', () => {
        if (++added === podCount) done();
      });
      informer.on('error', (e) => {
        if (!stopping) fail(e);
      }); // stop() aborts its watch: an error we caused
      const sample = await measure(async () => {
        await informer.start();
        await synced;
      });
      stopping = true;
      await informer.stop();
      return sample;
    };

    const limit = async (): Promise<Sample> => {
      const transport = createKubeTransport(kc);
      let items = 0;
      const sample = await measure(async () => {
        let cont: string | undefined;
        do {
          const page = await transport.getJson<ListPage>(`/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          items += page.items.length;
          cont = page.metadata?.continue;
        } while (cont);
      });
      if (items !== podCount) throw new Error(`limit read ${items} pods`);
      await transport.close();
      return sample;
    };

    const runs: Record<string, () => Promise<Sample>> = {
      rxinformer,
      'client-node makeInformer': clientNode,
      'limit (pages + JSON.parse)': limit,
    };
    const names = Object.keys(runs);
    const samples: Record<string, Sample[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (const name of names) await runs[name](); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(r + k) % names.length];
        gc?.();
        samples[name].push(await runs[name]());
      }
    }
    report(names, samples);
  } finally {
    await sim.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

function report(names: string[], samples: Record<string, Sample[]>): void {
  const stat = (name: string, field: keyof Sample) => {
    const xs = samples[name].map((s) => s[field]);
    return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
  };
  const [rx, cn, lim] = names;
  const ratios = (field: keyof Sample) => ({
    vsClientNode: round2(stat(rx, field).median / stat(cn, field).median),
    vsLimit: round2(stat(rx, field).median / stat(lim, field).median),
  });
  const result = {
    pods: podCount,
    rounds,
    wallMs: Object.fromEntries(
      names.map((n) => {
        const s = stat(n, 'ms');
        return [n, { median: round1(s.median), min: round1(s.min), max: round1(s.max) }];
      }),
    ),
    cpuMs: Object.fromEntries(
      names.map((n) => {
        const s = stat(n, 'cpuMs');
        return [n, { median: round1(s.median), min: round1(s.min), max: round1(s.max) }];
      }),
    ),
    wall: ratios('ms'),
    cpu: ratios('cpuMs'),
    goals: { vsClientNode: 0.5, vsLimit: 1.5 },
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`Initial sync of ${podCount} realistic pods, simulator in a child process (median [min–max] of ${rounds} rounds)\n`);
  console.log('| run | wall ms | client CPU ms |');
  console.log('| --- | --- | --- |');
  for (const n of names) {
    const w = result.wallMs[n];
    const c = result.cpuMs[n];
    console.log(`| ${n} | ${w.median} [${w.min}–${w.max}] | ${c.median} [${c.min}–${c.max}] |`);
  }
  const verdict = (x: number, goal: number) => `${x} (goal ≤ ${goal}, ${x <= goal ? 'met' : 'NOT met'})`;
  console.log(`\nrxinformer / client-node: wall ${verdict(result.wall.vsClientNode, 0.5)}; CPU ${result.cpu.vsClientNode}`);
  console.log(`rxinformer / limit:       wall ${verdict(result.wall.vsLimit, 1.5)}; CPU ${result.cpu.vsLimit}`);
}

if (args.includes('--serve')) await serve();
else await main();

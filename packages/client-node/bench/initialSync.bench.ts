/**
 * Initial sync of N realistic pods (default 10,000, ~4 KB each) from the simulator over HTTP, in one
 * run, three ways:
 *   - rxinformer: `createKubeInformerFactory(kc).informerFor(pods)`, start → `waitForCacheSync()`;
 *   - client-node: `makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces())`, start →
 *     the N-th `add` callback (its list is one request, deserialized into model classes);
 *   - limit: the same pages rxinformer fetches (limit=500 + continue) through the same transport,
 *     `JSON.parse` of each body and nothing else.
 * Each is run `--rounds` times (default 5) in rotating order after one warm-up round; the median is
 * reported. Goals: rxinformer ≤ 0.5 × client-node and ≤ 1.5 × limit.
 *
 *   node packages/client-node/bench/initialSync.bench.ts [--pods 10000] [--rounds 5] [--json]
 */
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
const rounds = flag('rounds', 5);
const json = args.includes('--json');
const gc = (globalThis as { gc?: () => void }).gc;

const sim = await startApiServer({ port: 0, seed: 11, history: { maxEvents: podCount + 1000 } });
const namespaces = Array.from({ length: 10 }, (_, i) => `team-${i}`);
for (const name of namespaces) sim.storage.create('namespaces', { metadata: { name } });
createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces, seed: 3 }).seed(podCount);
const kc = new KubeConfig();
kc.loadFromString(sim.kubeconfigYaml());

async function rxinformer(): Promise<number> {
  const factory = createKubeInformerFactory(kc);
  const informer = factory.informerFor(pods);
  const t0 = performance.now();
  factory.start();
  await factory.waitForCacheSync();
  const ms = performance.now() - t0;
  if (informer.getStore().size !== podCount) throw new Error(`rxinformer synced ${informer.getStore().size} pods`);
  await factory.close();
  return ms;
}

async function clientNode(): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  let added = 0;
  let done!: () => void;
  let fail!: (e: unknown) => void;
  let stopping = false;
  const synced = new Promise<void>((resolve, reject) => { done = resolve; fail = reject; });
  informer.on('add', () => { if (++added === podCount) done(); });
  informer.on('error', (e) => { if (!stopping) fail(e); }); // stop() aborts its watch: an error we caused
  const t0 = performance.now();
  await informer.start();
  await synced;
  const ms = performance.now() - t0;
  stopping = true;
  await informer.stop();
  return ms;
}

async function limit(): Promise<number> {
  const transport = createKubeTransport(kc);
  const t0 = performance.now();
  let items = 0;
  let cont: string | undefined;
  do {
    const page = await transport.getJson<ListPage>(`/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    items += page.items.length;
    cont = page.metadata?.continue;
  } while (cont);
  const ms = performance.now() - t0;
  if (items !== podCount) throw new Error(`limit read ${items} pods`);
  await transport.close();
  return ms;
}

const runs: Record<string, () => Promise<number>> = { rxinformer, 'client-node makeInformer': clientNode, 'limit (pages + JSON.parse)': limit };
const names = Object.keys(runs);
const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (const name of names) await runs[name](); // warm-up
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length];
    gc?.();
    samples[name].push(await runs[name]());
  }
}
await sim.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
const rx = ms.rxinformer;
const cn = ms['client-node makeInformer'];
const lim = ms['limit (pages + JSON.parse)'];
const result = {
  pods: podCount,
  rounds,
  medianMs: Object.fromEntries(names.map((n) => [n, Math.round(ms[n] * 10) / 10])),
  rxinformerVsClientNode: Math.round((rx / cn) * 100) / 100,
  rxinformerVsLimit: Math.round((rx / lim) * 100) / 100,
  goals: { vsClientNode: 0.5, vsLimit: 1.5 },
  met: { vsClientNode: rx / cn <= 0.5, vsLimit: rx / lim <= 1.5 },
};
if (json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`Initial sync of ${podCount} realistic pods from the simulator (median of ${rounds} rounds)\n`);
  console.log('| run | ms |');
  console.log('| --- | --- |');
  for (const n of names) console.log(`| ${n} | ${ms[n].toFixed(1)} |`);
  console.log(`\nrxinformer / client-node: ${result.rxinformerVsClientNode} (goal ≤ 0.5, ${result.met.vsClientNode ? 'met' : 'NOT met'})`);
  console.log(`rxinformer / limit:       ${result.rxinformerVsLimit} (goal ≤ 1.5, ${result.met.vsLimit ? 'met' : 'NOT met'})`);
}

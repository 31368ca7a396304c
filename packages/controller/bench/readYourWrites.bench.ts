/**
 * The cost of read-your-writes' bookkeeping: a builder controller over N cached pods whose
 * reconcile writes each pod once (a merge patch to an in-memory server that answers at once and
 * sends the watch event right after), then reads its write on the event's reconcile. Timed from
 * the start to every pod's second reconcile, with read-your-writes on and off; a third run writes
 * nothing (the events' bookkeeping alone).
 *
 *   node packages/controller/bench/readYourWrites.bench.ts [N] [rounds]
 */
import { performance } from 'node:perf_hooks';
import { NEVER, Subject, concat, of } from 'rxjs';
import { createInformerFactory, type KubeObject, type ListerWatcher, type WatchEvent } from '@rxinformer/core';
import { controllerFor, type ApiClient, type ApiRequest } from '../src/index.ts';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONCURRENCY = 4;
const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as const;

const pod = (i: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${i}`, namespace: `ns-${i % 20}`, uid: `u-${i}`, resourceVersion: '1' },
});

/** N pods listed at RV 1, and a server whose merge patches reach the watch a microtask later. */
function world() {
  const objects = new Map<string, KubeObject>();
  for (let i = 0; i < N; i++) objects.set(`ns-${i % 20}/p-${i}`, pod(i));
  const events = new Subject<WatchEvent<KubeObject>>();
  let rv = 1;
  const client: ApiClient = {
    request: async <T>(req: ApiRequest): Promise<T> => {
      const [, , , , ns, , name] = req.path.split('/'); // /api/v1/namespaces/NS/pods/NAME
      const before = objects.get(`${ns}/${name}`)!;
      const patch = req.body as { metadata: { labels: Record<string, string> } };
      const after = { ...before, metadata: { ...before.metadata, labels: patch.metadata.labels, resourceVersion: String(++rv) } };
      objects.set(`${ns}/${name}`, after);
      queueMicrotask(() => events.next({ type: 'MODIFIED', object: after }));
      return after as T;
    },
  };
  const lw: ListerWatcher<KubeObject> = {
    list: () => of({ items: [...objects.values()], metadata: { resourceVersion: '1' } }),
    watch: () => concat(events, NEVER),
  };
  const factory = createInformerFactory(() => lw as never);
  factory.informerFor(pods);
  return { factory, client };
}

/** Resolves once `count()` reaches `target`. */
async function reach(count: () => number, target: number): Promise<void> {
  while (count() < target) await new Promise((r) => setImmediate(r));
}

/** Reconciles per second until each pod was reconciled twice (written, then read back). */
async function measure(readYourWrites: boolean, write: boolean): Promise<number> {
  const { factory, client } = world();
  factory.start();
  await factory.waitForCacheSync();
  let reconciles = 0;
  let done = 0;
  const t0 = performance.now();
  const run = controllerFor(factory, pods, { name: 'bench', concurrency: CONCURRENCY, client, readYourWrites })
    .reconcile(async ({ namespace, name, object, api }) => {
      reconciles++;
      if (object?.metadata?.labels?.seen === 'yes' || !write) done++;
      else await api(pods).mergePatch({ namespace, name }, { metadata: { labels: { seen: 'yes' } } });
    })
    .start();
  await reach(() => done, N);
  const t1 = performance.now();
  await run.stop();
  factory.shutdown();
  return (reconciles / (t1 - t0)) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { on: [] as number[], off: [] as number[], quiet: [] as number[] };
const keepAlive = setInterval(() => undefined, 1000); // in-memory informers hold no handle of their own
for (let r = 0; r < ROUNDS; r++) {
  runs.off.push(await measure(false, true));
  runs.on.push(await measure(true, true));
  runs.quiet.push(await measure(true, false));
}
clearInterval(keepAlive);
const [on, off] = [median(runs.on), median(runs.off)];
console.log(`N=${N}, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds, reconciles/s (one write each, then its read-back)`);
console.log(`read-your-writes off ${Math.round(off).toString().padStart(8)}/s`);
console.log(`read-your-writes on  ${Math.round(on).toString().padStart(8)}/s   ratio ${(on / off).toFixed(2)}`);
console.log(`on, no writes        ${Math.round(median(runs.quiet)).toString().padStart(8)}/s`);

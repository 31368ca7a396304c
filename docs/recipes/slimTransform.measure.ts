/**
 * What `slimTransform` saves: JSON bytes and retained heap per cached pod, with and without it.
 * Pods come from the simulator's list (realistic pods with server-set managedFields and a
 * last-applied annotation, as `kubectl apply` leaves them); each mode decodes the same list text
 * and applies it to a delta store. Run: `node --expose-gc docs/recipes/slimTransform.measure.ts [count] [rounds]`.
 */
import { realisticPod, startApiServer } from '@rxinformer/apiserver-sim';
import { type KubeObject } from '@rxinformer/core';
import { applyEvent, createPrepare, prepareEvent, initialDeltaState, type DeltaStoreState } from '@rxinformer/core/store';
import { LAST_APPLIED_ANNOTATION, slimTransform } from './slimTransform.ts';

const count = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const sim = await startApiServer({ port: 0, seed: 7 });
let listText: string;
try {
  for (let i = 0; i < count; i++) {
    const pod = realisticPod(i);
    const manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod.metadata!.name, labels: pod.metadata!.labels },
      spec: (pod as { spec?: unknown }).spec,
    };
    pod.metadata!.annotations = { ...pod.metadata!.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(manifest) + '\n' };
    sim.storage.create('pods', pod, 'default');
  }
  listText = await (await fetch(`${sim.url}/api/v1/namespaces/default/pods`)).text();
} finally {
  await sim.close();
}

const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Retained bytes of a store holding the list, decoded afresh, with `transform` (if any). */
function retainedPerObject(transform?: (o: KubeObject) => KubeObject): { heap: number; json: number; store: DeltaStoreState<KubeObject> } {
  const base = heapUsed();
  const { items, metadata } = JSON.parse(listText) as { items: KubeObject[]; metadata: { resourceVersion: string } };
  const list = { type: 'LIST' as const, items, resourceVersion: metadata.resourceVersion };
  const store = applyEvent(initialDeltaState(), prepareEvent(createPrepare({ transform }), list)).state;
  const heap = (heapUsed() - base) / count;
  const json = store.store.list().reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0) / count;
  return { heap, json, store };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { full: [] as number[], slim: [] as number[] };
const json = { full: 0, slim: 0 };
for (let r = 0; r < rounds; r++) {
  const full = retainedPerObject();
  json.full = full.json;
  runs.full.push(full.heap);
  const slim = retainedPerObject(slimTransform());
  json.slim = slim.json;
  runs.slim.push(slim.heap);
}
const fmt = (xs: number[]) => `${Math.round(median(xs))} B (min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))})`;
console.log(`${count} pods, ${rounds} rounds`);
console.log(
  `JSON per pod:           full ${Math.round(json.full)} B, slim ${Math.round(json.slim)} B (${(json.slim / json.full).toFixed(2)}x)`,
);
console.log(
  `retained heap per pod:  full ${fmt(runs.full)}, slim ${fmt(runs.slim)} (${(median(runs.slim) / median(runs.full)).toFixed(2)}x)`,
);

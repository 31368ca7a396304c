/**
 * `npm run bench:list-views`: what a list view of pods costs in each form an informer can hold
 * them, against the simulator's pods (as unalike as a real cluster's) in a child process:
 *   - heap per cached pod (heapChild.ts, a fresh process per round): full, metadata-only, the pods
 *     preset's projection, the server's Table rows;
 *   - the projection's CPU cost per pod (it runs on every list item and watch event, in the
 *     prepare stage), beside the prepare stage's freeze, on the same decoded pods: median of rounds,
 *     each round a fresh decode (so nothing is shared with a previous round's objects).
 *
 *   npm run bench:list-views -- [--pods N (10000)] [--rounds N (2)] [--json]
 */
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { PRESETS, TABLE_ACCEPT } from '@rxinformer/core/projection';
import { createPrepare } from '@rxinformer/core/store';
import type { KubeObject } from '@rxinformer/core';
import { createKubeTransport } from '@rxinformer/client-node';
import { measureHeapPerObject, type HeapContender } from './heapPerObject.ts';
import { median, type Outcome } from './rounds.ts';
import { startSimProcess } from './simProcess.ts';

const HEAP: HeapContender[] = ['rxinformer', 'rxinformerMetadata', 'rxinformerProjected', 'rxinformerTable'];

/** µs per pod of `work` over `pods`, timed once. */
function perPod(pods: readonly KubeObject[], work: (p: KubeObject) => unknown): number {
  const start = performance.now();
  for (const p of pods) work(p);
  return ((performance.now() - start) * 1000) / pods.length;
}

/** The projection's cost per pod, and the prepare stage's with and without it, over `rounds` fresh decodes of `body`. */
function cpuPerPod(body: string, rounds: number): Record<string, number> {
  const samples: Record<string, number[]> = { project: [], prepare: [], prepareProjected: [] };
  for (let r = 0; r < rounds + 1; r++) {
    const fresh = () => (JSON.parse(body) as { items: KubeObject[] }).items;
    const project = perPod(fresh(), (p) => PRESETS.pods(p));
    const prepare = perPod(fresh(), createPrepare());
    const prepareProjected = perPod(fresh(), createPrepare({ transform: PRESETS.pods as (o: KubeObject) => KubeObject }));
    if (r === 0) continue; // warm-up
    samples.project.push(project);
    samples.prepare.push(prepare);
    samples.prepareProjected.push(prepareProjected);
  }
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pods: { type: 'string' }, rounds: { type: 'string' }, json: { type: 'boolean' } } });
  const pods = Number(values.pods ?? 10_000);
  const rounds = Number(values.rounds ?? 2);
  const sim = await startSimProcess({ historyEvents: 2 * pods + 1_000, unalike: true });
  try {
    await sim.send({ cmd: 'seed', count: pods });
    const heap = await measureHeapPerObject(sim.kubeconfig, pods, {
      rounds,
      contenders: HEAP,
      onRun: (name, round) => process.stderr.write(`heap: ${name} round ${round + 1}\n`),
    });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig);
    const transport = createKubeTransport(kc);
    const read = async (path: string, accept?: string) => {
      const answer = await transport.get(path, AbortSignal.timeout(120_000), 'list', accept);
      let text = '';
      for await (const chunk of answer.chunks()) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return text;
    };
    const body = await read('/api/v1/pods');
    const table = await read('/api/v1/pods?includeObject=Metadata', TABLE_ACCEPT);
    await transport.close();
    const cpu = cpuPerPod(body, Math.max(rounds, 3));
    const figure = (o: Outcome) => ('median' in o ? Math.round(o.median) : o.error);
    const report = {
      pods,
      rounds,
      heapBytesPerPod: Object.fromEntries(HEAP.map((c) => [c, figure(heap[c])])),
      cpuMicrosecondsPerPod: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Number(v.toFixed(2))])),
      wireBytesPerPod: { json: Math.round(body.length / pods), table: Math.round(table.length / pods) },
    };
    if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else console.table({ ...report.heapBytesPerPod, ...report.cpuMicrosecondsPerPod, ...report.wireBytesPerPod });
  } finally {
    await sim.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

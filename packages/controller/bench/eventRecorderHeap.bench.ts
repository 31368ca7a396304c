/**
 * What the event recorder keeps per distinct event: N events, each about its own ConfigMap, written
 * to an in-memory client whose every answer is a fresh Event of `ANSWER_KB` (as a server whose
 * admission adds annotations answers, parsed from JSON), then the heap with the recorder alive, garbage collected,
 * against the heap before it. The series window is long, so every event is still kept.
 *
 *   node --conditions=@rxinformer/source --expose-gc packages/controller/bench/eventRecorderHeap.bench.ts [N] [answerKB]
 */
import type { KubeObject } from '@rxinformer/core';
import { createEventRecorder, type ApiClient, type ApiRequest } from '../src/index.ts';

const N = Number(process.argv[2] ?? 4000);
const ANSWER_KB = Number(process.argv[3] ?? 17);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

/** An answer of about `ANSWER_KB` KB: the Event sent back, with a large annotation. */
const client: ApiClient = {
  request: <T>(req: ApiRequest) => {
    const body = req.body as KubeObject | undefined;
    const pad = 'x'.repeat(Math.max(0, ANSWER_KB * 1024 - 1024));
    const answer = { ...body, metadata: { ...body?.metadata, uid: crypto.randomUUID(), resourceVersion: '1', annotations: { pad } } };
    return Promise.resolve(JSON.parse(JSON.stringify(answer)) as T); // parsed, as a client's answer is
  },
};

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const before = heap();
const recorder = createEventRecorder({
  client,
  api: 'events.k8s.io/v1',
  reportingController: 'example.com/bench',
  reportingInstance: 'bench-0',
  seriesWindowMs: 3_600_000,
});
for (let i = 0; i < N; i++) {
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'bench', name: `cm-${i}`, uid: `uid-${i}` } };
  recorder.event(cm, { type: 'Normal', reason: 'Synced', action: 'Sync', note: `object ${i} is in sync with its source` });
}
await recorder.flush();
const after = heap();
console.log(
  `${N} distinct events, ${ANSWER_KB} KB answers: ${((after - before) / 1024 / 1024).toFixed(1)} MB retained, ` +
    `${((after - before) / N / 1024).toFixed(2)} KB per event`,
);
await recorder.stop();

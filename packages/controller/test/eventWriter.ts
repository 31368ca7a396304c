/**
 * A process that records events, for the recorder's multi-process test: `count` distinct events
 * about one object, each twice (a series of 2), all at the one millisecond `at`, then stops.
 * Exits 0 once every write succeeded, 1 (the errors on stderr) otherwise.
 *
 *   node --conditions=@rxinformer/source packages/controller/test/eventWriter.ts '{"baseUrl":…,"token":…,"regarding":…,"at":…,"instance":…,"count":…}'
 *
 * A server's CA comes in `NODE_EXTRA_CA_CERTS`.
 */
import type { KubeObject } from '@rxinformer/core';
import { createEventRecorder, fetchApiClient } from '../src/index.ts';
import { stoppedClock } from './clock.ts';

interface Job {
  baseUrl: string;
  token?: string;
  regarding: KubeObject;
  at: number;
  instance: string;
  count: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
const errors: unknown[] = [];
const recorder = createEventRecorder({
  client: fetchApiClient({ baseUrl: job.baseUrl, headers: job.token ? { authorization: `Bearer ${job.token}` } : {} }),
  reportingController: 'example.com/writer',
  reportingInstance: job.instance,
  scheduler: stoppedClock(job.at),
  burst: 2 * job.count,
  onError: (e) => void errors.push(e),
});
for (let i = 0; i < job.count; i++) {
  const info = { type: 'Normal', reason: 'Written', action: 'Write', note: `event ${i}` } as const;
  recorder.event(job.regarding, info);
  recorder.event(job.regarding, info);
}
await recorder.stop();
for (const e of errors) console.error(e instanceof Error ? e.message : e);
process.exit(errors.length === 0 ? 0 : 1);

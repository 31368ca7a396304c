/**
 * The event recorder against the simulator and a real kube-apiserver, through fetch: series,
 * recorders in one process and in two processes writing about one object in one millisecond, and
 * notes in other scripts than ASCII.
 */
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { serverKinds } from '@rxinformer/testing/servers';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEventRecorder, type EventRecorderOptions } from '../src/index.ts';
import { stoppedClock } from './clock.ts';
import { serverSuite } from './kit.ts';

/** What the tests read of an Event, either API's. */
interface StoredEvent extends KubeObject {
  regarding?: { name?: string };
  involvedObject?: { name?: string };
  reportingInstance?: string;
  reason?: string;
  note?: string;
  message?: string;
  series?: { count: number };
}

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(serverKinds())('the event recorder against the %s server', (kind) => {
  const s = serverSuite(kind, 'events');
  const { cm } = s;
  const failOnError = (e: unknown) => {
    throw e;
  };
  const recorder = (options: Partial<EventRecorderOptions> = {}) =>
    createEventRecorder({
      client: s.client,
      reportingController: 'example.com/writer',
      reportingInstance: 'writer-0',
      onError: failOnError,
      ...options,
    });

  /** The Events about the object `name`, from the events.k8s.io/v1 API or the core/v1 one. */
  async function eventsAbout(name: string, api: 'events.k8s.io/v1' | 'v1' = 'events.k8s.io/v1'): Promise<StoredEvent[]> {
    const path = api === 'v1' ? `/api/v1/namespaces/${s.ns}/events` : `/apis/events.k8s.io/v1/namespaces/${s.ns}/events`;
    const list = await s.client.request<{ items: StoredEvent[] }>({ method: 'GET', path });
    return list.items.filter((e) => (e.regarding ?? e.involvedObject)?.name === name);
  }
  /** Each Event as `instance note count`, sorted. */
  const summary = (events: StoredEvent[]) => events.map((e) => `${e.reportingInstance} ${e.note} ${e.series?.count}`).sort();
  /** What 20 events, each recorded twice, by each of `instances` leave: 40 Events, each a series of 2. */
  const twentyEach = (...instances: string[]) => instances.flatMap((i) => Array.from({ length: 20 }, (_, n) => `${i} event ${n} 2`)).sort();

  it('should record events.k8s.io/v1 Events with a series count, in the regarding object namespace', async () => {
    const events = recorder({ reportingController: 'example.com/replicator', reportingInstance: 'replicator-0' });
    const regarding = await s.cms.create(cm('regarded'));
    const related = await s.cms.create(cm('owner'));
    const info = { type: 'Warning', reason: 'FailedReplicate', action: 'Replicate', note: 'namespace b is gone', related } as const;
    events.event(regarding, info);
    events.event(regarding, info);
    events.event(regarding, info);
    events.event(regarding, { ...info, type: 'Normal', reason: 'Replicated', note: 'copied' });
    await events.stop();
    const stored = await eventsAbout('regarded');
    expect(stored).toHaveLength(2);
    expect(stored.find((e) => e.reason === 'FailedReplicate')).toMatchObject({
      type: 'Warning',
      action: 'Replicate',
      note: 'namespace b is gone',
      reportingController: 'example.com/replicator',
      reportingInstance: 'replicator-0',
      regarding: { kind: 'ConfigMap', name: 'regarded', uid: regarding.metadata!.uid },
      related: { kind: 'ConfigMap', name: 'owner' },
      series: { count: 3 },
    });
  });

  it('should keep apart the Events of two recorders writing about one object in the same millisecond', async () => {
    const regarding = await s.cms.create(cm('shared-in-process'));
    const at = Date.now();
    const writers = ['writer-a', 'writer-b'].map((reportingInstance) =>
      recorder({ reportingInstance, scheduler: stoppedClock(at), burst: 40 }),
    );
    for (let round = 0; round < 2; round++)
      for (let n = 0; n < 20; n++)
        for (const w of writers) w.event(regarding, { type: 'Normal', reason: 'Written', action: 'Write', note: `event ${n}` });
    await Promise.all(writers.map((w) => w.stop()));
    const stored = await eventsAbout('shared-in-process');
    expect(summary(stored)).toEqual(twentyEach('writer-a', 'writer-b'));
  });

  it('should keep apart the Events of two processes writing about one object in the same millisecond', async () => {
    const regarding = await s.cms.create(cm('shared-across-processes'));
    const at = Date.now();
    const dir = mkdtempSync(join(tmpdir(), 'rxinformer-events-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      if (s.server.credentials.ca !== undefined) {
        writeFileSync(join(dir, 'ca.pem'), s.server.credentials.ca);
        env.NODE_EXTRA_CA_CERTS = join(dir, 'ca.pem');
      }
      const run = (instance: string) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const job = { baseUrl: s.server.credentials.url, token: s.server.credentials.token, regarding, at, instance, count: 20 };
          const child = spawn(
            join(root, 'node_modules/.bin/node'),
            ['--conditions=@rxinformer/source', fileURLToPath(new URL('./eventWriter.ts', import.meta.url)), JSON.stringify(job)],
            { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
          );
          let stderr = '';
          child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
          child.on('exit', (code) => resolve({ code, stderr }));
        });
      const results = await Promise.all([run('process-a'), run('process-b')]);
      expect(results).toEqual([
        { code: 0, stderr: '' },
        { code: 0, stderr: '' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(summary(await eventsAbout('shared-across-processes'))).toEqual(twentyEach('process-a', 'process-b'));
  });

  it('should count a repeat only in its own Event, not in another one given its name since', async () => {
    const regarding = await s.cms.create(cm('replaced'));
    const errors: unknown[] = [];
    const events = recorder({ scheduler: stoppedClock(Date.now()), onError: (e) => void errors.push(e) });
    const info = { type: 'Normal', reason: 'Replaced', action: 'Replace', note: 'mine' } as const;
    events.event(regarding, info);
    await events.flush();
    const [mine] = await eventsAbout('replaced');
    const path = `/apis/events.k8s.io/v1/namespaces/${s.ns}/events/${mine.metadata!.name}`;
    await s.client.request({ method: 'DELETE', path });
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _c, managedFields: _m, ...metadata } = mine.metadata!;
    const path0 = path.slice(0, path.lastIndexOf('/'));
    await s.client.request({ method: 'POST', path: path0, body: { ...mine, metadata, reportingInstance: 'someone-else' } });
    events.event(regarding, info); // refused: the Event of that name is not the one it created
    await events.flush();
    expect(errors).toEqual([expect.objectContaining({ code: 422 })]); // the patch's uid precondition: immutable
    events.event(regarding, info); // the series ended: a new Event
    await events.stop();
    const summaries = (await eventsAbout('replaced')).map((e) => `${e.reportingInstance} ${e.series?.count}`);
    expect(summaries.sort()).toEqual(['someone-else undefined', 'writer-0 undefined']);
  });

  it.each(['events.k8s.io/v1', 'v1'] as const)('should write notes of 2–3 KB in é, CJK and emoji, cut to 1,024 bytes (%s)', async (api) => {
    const regarding = await s.cms.create(cm(`notes-${api === 'v1' ? 'core' : 'events'}`));
    const notes: [string, string][] = [
      ['é'.repeat(1500), 'é'.repeat(512)], // 3,000 bytes; cut to 1,024
      ['漢'.repeat(800), '漢'.repeat(341)], // 2,400 bytes; cut to 1,023
      ['😀'.repeat(600), '😀'.repeat(256)], // 2,400 bytes; cut to 1,024
      [`a${'😀'.repeat(600)}`, `a${'😀'.repeat(255)}`], // 2,401 bytes; cut to 1,021, no pair split
    ];
    const events = recorder({ api });
    for (const [note] of notes) events.event(regarding, { type: 'Normal', reason: 'Noted', action: 'Note', note });
    await events.stop();
    const stored = (await eventsAbout(regarding.metadata!.name!, api)).map((e) => (api === 'v1' ? e.message : e.note));
    expect(stored.sort()).toEqual(notes.map(([, cut]) => cut).sort());
  });
});

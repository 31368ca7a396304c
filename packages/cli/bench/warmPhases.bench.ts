/**
 * `npm run bench:warm-phases [-- --objects N] [--rounds N]`: where a warm restart's time goes,
 * phase by phase, in this process (no server): the snapshot of N small ConfigMaps (as the
 * simulator serves them, default 100,000) written by a `fileSnapshotStore`, then read back as an
 * informer restores it: the file read, the decode (header checks, integrity check, parse), the
 * prepare stage (freeze), and the delta store's replace with its indexes. Beside them, the least
 * any restore of those objects must do: one `JSON.parse` of the same bytes and a plain `Map` of
 * them by key (the floor a warm start's "shown" cannot go under without a lazy store).
 *
 * Each phase is timed alone, after a full collection, and the median of the rounds printed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@rxinformer/core';
import { decodeSnapshot, encodeSnapshot, snapshotIdentity, snapshotKey } from '@rxinformer/core/snapshot';
import { applyEvent, createPrepare, fnv1a, initialDeltaState, metaNamespaceKeyFunc } from '@rxinformer/core/store';
import { configMaps, fileSnapshotStore } from '@rxinformer/client-node';
import { median } from './rounds.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const objects = option('--objects', 100_000);
const rounds = option('--rounds', 3);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** The `i`-th ConfigMap as the simulator serves it (simChild's, with what the server fills in). */
function servedConfigMap(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: `team-${i % 10}`,
      uid: `6f1c1d3e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      generation: 1,
      creationTimestamp: '2026-11-29T12:00:00Z',
      labels: { app: `app-${i % 50}` },
      managedFields: [
        {
          manager: 'apiserver-sim',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-29T12:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        },
      ],
    },
    data: { key: `value-${i}-0` },
  } as KubeObject;
}

/** The wall and CPU (this process's, every thread) milliseconds `f` takes, after a full collection; and its result. */
async function timed<R>(f: () => R | Promise<R>): Promise<[Ms, R]> {
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await f();
  const wall = performance.now() - t0;
  const { user, system } = process.cpuUsage(c0);
  return [{ wall, cpu: (user + system) / 1000 }, r];
}

interface Ms {
  wall: number;
  cpu: number;
}

async function main(): Promise<void> {
  const identity = snapshotIdentity({
    server: 'https://bench',
    resource: configMaps,
  });
  const key = snapshotKey(identity);
  const dir = await mkdtemp(join(tmpdir(), 'rxinformer-bench-phases-'));
  const store = fileSnapshotStore(dir, { fsync: false });
  const phases: Record<string, Ms[]> = {};
  const add = (name: string, ms: Ms) => (phases[name] ??= []).push(ms);
  try {
    const items = Array.from({ length: objects }, (_, i) => servedConfigMap(i));
    const text = encodeSnapshot({ identity, resourceVersion: String(1000 + objects), writtenAt: new Date().toISOString(), objects: items });
    await store.save(key, text);
    process.stderr.write(`snapshot: ${objects} objects, ${Buffer.byteLength(text)} bytes\n`);
    for (let round = 0; round < rounds; round++) {
      const [readMs, loaded] = await timed(() => store.load(key));
      add('read (store.load)', readMs);
      const [decodeMs, snapshot] = await timed(() => decodeSnapshot(loaded!, identity, key));
      add('decode (checks, integrity, parse)', decodeMs);
      const body = loaded!.slice(loaded!.indexOf('\n') + 1);
      add('of which: the FNV-1a checksum', (await timed(() => fnv1a(body)))[0]);
      add(
        'of which: a JSON.parse per line (as decodeSnapshot)',
        (await timed(() => body.split('\n').map((line) => JSON.parse(line) as unknown)))[0],
      );
      add(
        '(instead: one JSON.parse of the lines as an array)',
        (await timed(() => JSON.parse(`[${body.replaceAll('\n', ',')}]`) as unknown))[0],
      );
      const prepare = createPrepare<KubeObject>();
      const [prepareMs, prepared] = await timed(() => snapshot.objects.map(prepare));
      add('prepare (freeze)', prepareMs);
      const [replaceMs] = await timed(() =>
        applyEvent(initialDeltaState<KubeObject>(), {
          type: 'LIST',
          items: prepared,
          resourceVersion: snapshot.resourceVersion,
          restored: true,
        }),
      );
      add('replace (store, namespace index, deltas)', replaceMs);
      // The floor: the bytes read, parsed once, and keyed into a plain map.
      const [floorReadMs, bytes] = await timed(() => readFile(join(dir, `${key}.snapshot`)));
      add('floor: read as bytes', floorReadMs);
      const [floorParseMs, parsed] = await timed(() => {
        const body = bytes.toString('utf8', bytes.indexOf(10) + 1);
        return JSON.parse(`[${body.replaceAll('\n', ',')}]`) as KubeObject[];
      });
      add('floor: one JSON.parse', floorParseMs);
      const [floorMapMs] = await timed(() => new Map(parsed.map((o) => [metaNamespaceKeyFunc(o), o])));
      add('floor: Map by key', floorMapMs);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`| phase of a warm restart over ${objects} ConfigMaps | wall ms | CPU ms (medians of ${rounds}) |`);
  console.log('| --- | --- | --- |');
  for (const [name, ms] of Object.entries(phases))
    console.log(`| ${name} | ${Math.round(median(ms.map((m) => m.wall)))} | ${Math.round(median(ms.map((m) => m.cpu)))} |`);
}

await main();

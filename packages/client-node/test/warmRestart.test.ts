/**
 * Warm restarts over real HTTP, on the simulator and on kube-apiserver: a factory with a file
 * snapshot store saves when it closes; the next one shows the snapshot at once and resumes the
 * watch from its resource version (no list), so handlers hear the snapshot and then only what
 * changed since; outside the watch window (the simulator compacted, kube-apiserver restarted:
 * 410) it relists and handlers hear only the differences. A corrupt or foreign file is refused.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { SnapshotRejectedError } from '@rxinformer/core/snapshot';
import type { DeletedObject, SharedInformer, Wire } from '@rxinformer/core';
import { serverKinds } from '@rxinformer/testing/servers';
import { configMaps, fileSnapshotStore } from '../src/index.ts';
import { listsIn, serverWithKit, waitFor } from './simHarness.ts';

type Cm = Wire<V1ConfigMap>;
const cm = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });

/** A handler writing down each call as words: `add b=1 snapshot`, `update b=1->2`, `delete c=1 tombstone`. */
function recorder() {
  const calls: string[] = [];
  const v = (o: Cm | undefined) => `${o?.metadata?.name}=${o?.data?.value}`;
  const handler = {
    onAdd: (o: Cm, initial: boolean, _key: string, fromSnapshot?: boolean) =>
      void calls.push(`add ${v(o)}${initial ? ' initial' : ''}${fromSnapshot ? ' snapshot' : ''}`),
    onUpdate: (a: Cm, b: Cm) => void calls.push(a === b ? `same ${v(b)}` : `update ${v(a)}->${b.data?.value}`),
    onDelete: (d: DeletedObject<Cm>) => void calls.push(`delete ${v(d.lastKnown)}${d.finalStateUnknown ? ' tombstone' : ''}`),
  };
  return { calls, handler };
}

describe.each(serverKinds())('warm restart from a file snapshot against the %s server', (kind) => {
  const env = serverWithKit(kind);
  const snapshotsIn = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.snapshot'));

  /** A namespace with a=1, b=1, c=1, a factory that listed it and closed (saving its snapshot into a new directory). */
  async function saved(): Promise<{ ns: string; dir: string; path: (ns: string) => string }> {
    const ns = await env.server.namespace('warm');
    const dir = await mkdtemp(join(tmpdir(), 'rxinformer-warm-'));
    const path = (name: string) => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
    for (const name of ['a', 'b', 'c']) await env.server.api.create(path(''), cm(name, '1'));
    const { factory } = env.kit.open({ namespace: ns, snapshots: { store: fileSnapshotStore(dir) } });
    factory.informerFor(configMaps);
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 30_000 });
    await factory.close(); // saves
    expect(await snapshotsIn(dir)).toHaveLength(1);
    return { ns, dir, path };
  }

  /** While no informer runs: b changes, c goes, d comes. */
  async function changeWhileDown(path: (name: string) => string): Promise<void> {
    await env.server.api.update(path('b'), { ...(await env.server.api.get(path('b'))), data: { value: '2' } });
    await env.server.api.delete(path('c'));
    await env.server.api.create(path(''), cm('d', '1'));
  }

  /** A factory over `dir` with a recording handler, started. */
  function restart(ns: string, dir: string) {
    const { factory, transport } = env.kit.open({ namespace: ns, snapshots: { store: fileSnapshotStore(dir) } });
    const informer: SharedInformer<Cm> = factory.informerFor(configMaps);
    const { calls, handler } = recorder();
    informer.addEventHandler(handler);
    factory.start();
    // Lists, streamed or paged, besides the resumed watch's check of the server's resource version (`?limit=1`).
    const lists = () => listsIn(transport.paths);
    const checks = () => transport.paths.filter((p) => p.endsWith('?limit=1'));
    return { factory, informer, calls, lists, checks };
  }

  it('should show the snapshot at once, resume the watch without a list, and deliver only what changed since', async () => {
    const { ns, dir, path } = await saved();
    try {
      await changeWhileDown(path);
      const { factory, informer, calls, lists } = restart(ns, dir);
      await factory.waitForCacheSync({ timeoutMs: 30_000 });
      expect(informer.getStatus().snapshot).toMatchObject({ start: 'restored', restored: { objects: 3 } });
      expect(await waitFor(() => calls.length >= 6)).toBe(true);
      expect(calls.slice(0, 3).sort()).toEqual(['add a=1 initial snapshot', 'add b=1 initial snapshot', 'add c=1 initial snapshot']);
      expect(calls.slice(3)).toEqual(['update b=1->2', 'delete c=1', 'add d=1']); // the watch's events, in order
      expect(lists()).toEqual([]);
      expect(
        informer
          .getStore()
          .keys()
          .map((k) => k.split('/')[1])
          .sort(),
      ).toEqual(['a', 'b', 'd']);
      await factory.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('should sync a resource that did not change without an event, by the check or the bookmark', async () => {
    const { ns, dir } = await saved();
    try {
      const { factory, informer, calls, lists, checks } = restart(ns, dir);
      // No event will come: the check as the watch opens (the server still at the snapshot's
      // resource version: nothing changed, anywhere) or the bookmark before the 3 s watch's end
      // confirms the snapshot (with the usual 5-10 min watch, the first bookmark came after a minute).
      await factory.waitForCacheSync({ timeoutMs: 20_000 });
      expect(calls.sort()).toEqual(['add a=1 initial snapshot', 'add b=1 initial snapshot', 'add c=1 initial snapshot']);
      expect(lists()).toEqual([]);
      expect(checks()).toHaveLength(1);
      expect(informer.getStatus().hasSynced).toBe(true);
      await factory.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('should relist outside the watch window (410) and deliver only the differences from the snapshot', async () => {
    const { ns, dir, path } = await saved();
    try {
      await changeWhileDown(path);
      // Out of the window: the simulator's history compacted; kube-apiserver restarted (its new
      // watch cache starts at the current revision; a compaction alone leaves old watches served).
      if (kind === 'sim') await env.server.compact();
      else await env.server.restart();
      const { factory, informer, calls, lists } = restart(ns, dir);
      await factory.waitForCacheSync({ timeoutMs: 60_000 });
      expect(await waitFor(() => calls.length >= 6)).toBe(true);
      expect(calls.slice(0, 3).sort()).toEqual(['add a=1 initial snapshot', 'add b=1 initial snapshot', 'add c=1 initial snapshot']);
      // The relist's differences only: a, unchanged, is not heard again.
      expect(calls.slice(3).sort()).toEqual(['add d=1 initial', 'delete c=1 tombstone', 'update b=1->2']);
      expect(lists()).toHaveLength(1);
      expect(informer.getStatus()).toMatchObject({ relistCount: 0, snapshot: { start: 'restored' } });
      await factory.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('should refuse a corrupt snapshot and a foreign one, start cold, and write a good one again', async () => {
    const { ns, dir } = await saved();
    try {
      const [name] = await snapshotsIn(dir);
      const file = join(dir, name);
      const good = await readFile(file, 'utf8');
      await writeFile(file, good.replace('"value":"1"', '"value":"9"')); // same length, other content
      const first = restart(ns, dir);
      await first.factory.waitForCacheSync({ timeoutMs: 30_000 });
      expect(first.informer.getStatus().snapshot?.restoreError).toMatchObject({
        name: 'SnapshotRejectedError',
        reason: 'ChecksumMismatch',
      });
      expect(first.calls.sort()).toEqual(['add a=1 initial', 'add b=1 initial', 'add c=1 initial']); // a cold start: nothing of the file
      expect(first.lists()).toHaveLength(1);
      await first.factory.close();
      expect(await readFile(file, 'utf8')).not.toBe(good.replace('"value":"1"', '"value":"9"')); // written again, whole

      // Another cluster's snapshot under this informer's name (a copied directory, a hash collision).
      await writeFile(file, (await readFile(file, 'utf8')).replace(/"server":"[^"]*"/, '"server":"https://elsewhere:6443 as admin"'));
      const second = restart(ns, dir);
      await second.factory.waitForCacheSync({ timeoutMs: 30_000 });
      const error = second.informer.getStatus().snapshot?.restoreError;
      expect(error).toBeInstanceOf(SnapshotRejectedError);
      expect(error).toMatchObject({ reason: 'Foreign', field: 'server' });
      expect(second.informer.getStore().size).toBe(3);
      await second.factory.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Sharded controllers (three replicas in one process) against the simulator over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import {
  fetchLeaseClient,
  fetchListerWatcher,
  InvalidReconcileResultError,
  runShardedController,
  type ControllerError,
  type KubeObject,
  type Lease,
} from '@rxinformer/core';
import { waitFor } from './simHarness.ts';

let sim: ApiServer;
beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 5 });
  for (let i = 0; i < 300; i++) sim.storage.create('configmaps', { metadata: { name: `cm-${i}` } }, 'default');
});
afterAll(async () => {
  await sim.close();
});

const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 150 };

function replica(identity: string, log: { key: string; by: string; from: number; to: number }[]) {
  return runShardedController<KubeObject>({
    source: fetchListerWatcher({ baseUrl: sim.url, path: '/api/v1/namespaces/default/configmaps' }),
    client: fetchLeaseClient({ baseUrl: sim.url }),
    leases: fetchListerWatcher<Lease>({ baseUrl: sim.url, path: '/apis/coordination.k8s.io/v1/namespaces/default/leases' }),
    namespace: 'default',
    ring: 'cm',
    identity,
    slots: 64,
    concurrency: 4,
    ...timing,
    reconcile: async (key) => {
      const from = Date.now();
      await new Promise((r) => setTimeout(r, 2));
      log.push({ key, by: identity, from, to: Date.now() });
    },
  });
}

/** Keys reconciled by two replicas at overlapping times. */
function overlaps(log: { key: string; by: string; from: number; to: number }[]): string[] {
  const byKey = new Map<string, typeof log>();
  for (const e of log) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  const out: string[] = [];
  for (const [key, list] of byKey)
    for (const a of list) for (const b of list) if (a.by < b.by && a.from <= b.to && b.from <= a.to) out.push(`${key}: ${a.by} ${b.by}`);
  return out;
}

describe('runShardedController against the simulator', () => {
  it('should share the keys among replicas, move a stopped replica slots to the others, and never reconcile a key in two at once', async () => {
    const log: { key: string; by: string; from: number; to: number }[] = [];
    const replicas = ['r1', 'r2', 'r3'].map((id) => ({ id, ctl: replica(id, log) }));
    const keys = () => new Set(log.map((e) => e.key));
    expect(await waitFor(() => keys().size === 300, 20_000)).toBe(true);
    const cached = replicas.map((r) => r.ctl.informer.getStore().size);
    expect(cached.reduce((a, b) => a + b)).toBe(300); // each caches its share only (filtered locally: the gate is off)
    for (const n of cached) expect(n).toBeLessThan(200);
    // r3 leaves: its keys are reconciled by the others, at once (its Lease released).
    const r3Keys = new Set(log.filter((e) => e.by === 'r3').map((e) => e.key));
    const mark = log.length;
    await replicas[2].ctl.stop();
    expect(await waitFor(() => [...r3Keys].every((k) => log.slice(mark).some((e) => e.key === k && e.by !== 'r3')), 20_000)).toBe(true);
    expect(overlaps(log)).toEqual([]);
    await Promise.all(replicas.slice(0, 2).map((r) => r.ctl.stop()));
  }, 60_000);

  it('should report a reconcile result it cannot act on as runController does, returned as is or resolved', async () => {
    const errors: ControllerError[] = [];
    const ctl = runShardedController<KubeObject>({
      source: fetchListerWatcher({ baseUrl: sim.url, path: '/api/v1/namespaces/default/configmaps' }),
      client: fetchLeaseClient({ baseUrl: sim.url }),
      leases: fetchListerWatcher<Lease>({ baseUrl: sim.url, path: '/apis/coordination.k8s.io/v1/namespaces/default/leases' }),
      namespace: 'default',
      ring: 'cm-invalid-results',
      identity: 'solo',
      slots: 16,
      maxRetries: 0,
      ...timing,
      // A number is no ReconcileResult: runController refuses it returned as is; so must this.
      reconcile: (key) =>
        key === 'default/cm-1' ? (5 as never) : key === 'default/cm-2' ? Promise.resolve({ requeueAfterMs: -1 }) : undefined,
    });
    ctl.errors$.subscribe((e) => errors.push(e));
    try {
      expect(await waitFor(() => errors.length >= 2, 20_000)).toBe(true);
      expect(errors.map((e) => [e.key, e.error instanceof InvalidReconcileResultError]).sort()).toEqual([
        ['default/cm-1', true],
        ['default/cm-2', true],
      ]);
    } finally {
      await ctl.stop();
    }
  }, 30_000);
});

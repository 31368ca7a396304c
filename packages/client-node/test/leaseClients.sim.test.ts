/** The Lease clients (fetch and client-node) and leader election over real HTTP, against the simulator. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { fetchLeaseClient, KubeApiError, leaderElection, type Lease, type LeaseClient, type LeaderElectionState } from '@rxinformer/core';
import { firstValueFrom } from 'rxjs';
import { kubeLeaseClient } from '../src/index.ts';
import { simKubeConfig, waitFor } from './simHarness.ts';

let sim: ApiServer;
beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 3 });
});
afterAll(async () => {
  await sim.close();
});

const clients: [string, () => LeaseClient][] = [
  ['fetchLeaseClient', () => fetchLeaseClient({ baseUrl: sim.url })],
  ['kubeLeaseClient', () => kubeLeaseClient(simKubeConfig(sim))],
];

describe.each(clients)('%s against the simulator', (label, make) => {
  it('should get nothing, create, refuse a second create, update on the current version and refuse a stale one', async () => {
    const client = make();
    const name = `lease-${label.toLowerCase()}`;
    expect(await firstValueFrom(client.get('default', name))).toBeUndefined();
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: 'default', name },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.123456Z', leaseTransitions: 0 },
    };
    const created = await firstValueFrom(client.create(lease));
    expect(created.spec).toMatchObject({ holderIdentity: 'a', renewTime: '2026-01-01T00:00:00.123456Z' });
    await expect(firstValueFrom(client.create(lease))).rejects.toMatchObject({ code: 409 });
    const updated = await firstValueFrom(client.update({ ...created, spec: { ...created.spec, holderIdentity: 'b' } }));
    expect(updated.spec?.holderIdentity).toBe('b');
    const stale = firstValueFrom(client.update({ ...created, spec: { ...created.spec, holderIdentity: 'c' } }));
    await expect(stale).rejects.toBeInstanceOf(KubeApiError);
    await expect(stale).rejects.toMatchObject({ code: 409 });
    expect((await firstValueFrom(client.get('default', name)))?.spec?.holderIdentity).toBe('b');
  });

  it('should elect one leader among two candidates, and hand over at once on stop', async () => {
    const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 100 };
    const name = `election-${label.toLowerCase()}`;
    const elect = (identity: string) => leaderElection({ client: make(), namespace: 'default', name, identity, ...timing });
    const a = elect('a');
    const b = elect('b');
    const seen: Record<string, LeaderElectionState[]> = { a: [], b: [] };
    a.subscribe((s) => seen.a.push(s));
    expect(await waitFor(() => seen.a.some((s) => s.phase === 'leading'))).toBe(true);
    b.subscribe((s) => seen.b.push(s));
    expect(await waitFor(() => seen.b.some((s) => s.phase === 'following' && s.holder === 'a'))).toBe(true);
    const stoppedAt = Date.now();
    await a.stop();
    expect(await waitFor(() => seen.b.some((s) => s.phase === 'leading'))).toBe(true);
    // Released: b did not wait out the 2 s lease (its tries come every 100-220 ms).
    expect(Date.now() - stoppedAt).toBeLessThan(timing.leaseDurationMs);
    expect(seen.a.at(-1)).toEqual({ phase: 'stopped' });
    await b.stop();
    const lease = sim.storage.list('leases', 'default').find((l) => l.metadata?.name === name) as Lease;
    expect(lease.spec).toMatchObject({ holderIdentity: '', leaseTransitions: 1 });
  });
});

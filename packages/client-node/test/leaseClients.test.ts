/**
 * The Lease calls and leader election over the write contract's clients (fetch and client-node)
 * and real HTTP, against the simulator and a real kube-apiserver (its optimistic concurrency: 409
 * on a stale resourceVersion).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiError } from '@rxinformer/core';
import { fetchApiClient, type ApiClient } from '@rxinformer/controller';
import { leaderElection, leaseClient, type Lease, type LeaderElectionState } from '@rxinformer/core/leader-election';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { firstValueFrom } from 'rxjs';
import { kubeApiClient } from '../src/index.ts';
import { waitFor } from './simHarness.ts';

describe.each(serverKinds())('Lease clients against the %s server', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 3 } });
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());

  const clients: [string, () => ApiClient][] = [
    ['fetchApiClient', () => fetchApiClient(server.fetchOptions())],
    ['kubeApiClient', () => kubeApiClient(server.kubeConfig())],
  ];

  describe.each(clients)('%s', (_label, make) => {
    it('should get nothing, create, refuse a second create, update on the current version and refuse a stale one', async () => {
      const client = leaseClient(make());
      const namespace = await server.namespace('lease');
      const name = 'lease';
      expect(await firstValueFrom(client.get(namespace, name))).toBeUndefined();
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace, name },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.123456Z', leaseTransitions: 0 },
      };
      const created = await firstValueFrom(client.create(lease));
      expect(created.spec).toMatchObject({ holderIdentity: 'a', renewTime: '2026-01-01T00:00:00.123456Z' });
      await expect(firstValueFrom(client.create(lease))).rejects.toMatchObject({ code: 409, reason: 'AlreadyExists' });
      const updated = await firstValueFrom(client.update({ ...created, spec: { ...created.spec, holderIdentity: 'b' } }));
      expect(updated.spec?.holderIdentity).toBe('b');
      const stale = firstValueFrom(client.update({ ...created, spec: { ...created.spec, holderIdentity: 'c' } }));
      await expect(stale).rejects.toBeInstanceOf(KubeApiError);
      await expect(stale).rejects.toMatchObject({ code: 409, reason: 'Conflict' });
      await expect(stale).rejects.toThrow(/the object has been modified; please apply your changes to the latest version/);
      expect((await firstValueFrom(client.get(namespace, name)))?.spec?.holderIdentity).toBe('b');
    });

    it('should elect one leader among two candidates, and hand over at once on stop', async () => {
      // A lease far longer than the wait below: b can lead in time only if a released it.
      const timing = { leaseDurationMs: 60_000, renewDeadlineMs: 1000, retryPeriodMs: 100 };
      const namespace = await server.namespace('election');
      const name = 'election';
      const elect = (identity: string) => leaderElection({ client: make(), namespace, name, identity, ...timing });
      const a = elect('a');
      const b = elect('b');
      try {
        const seen: Record<string, LeaderElectionState[]> = { a: [], b: [] };
        a.subscribe((s) => seen.a.push(s));
        expect(await waitFor(() => seen.a.some((s) => s.phase === 'leading'))).toBe(true);
        b.subscribe((s) => seen.b.push(s));
        expect(await waitFor(() => seen.b.some((s) => s.phase === 'following' && s.holder === 'a'))).toBe(true);
        await a.stop(); // often with a renewal in flight (every 100 ms): the release must land all the same
        expect(await waitFor(() => seen.b.some((s) => s.phase === 'leading'), 20_000)).toBe(true);
        expect(seen.a.at(-1)).toEqual({ phase: 'stopped' });
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
      const lease: Lease = await server.api.get(`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`);
      expect(lease.spec).toMatchObject({ holderIdentity: '', leaseTransitions: 1 });
    });
  });
});

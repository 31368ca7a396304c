/**
 * A token the server stops accepting and then accepts again (an expired token, a revoked one
 * restored, an auth webhook down for a while): a synced informer sees 401s, backs off between them
 * and recovers on its own, with the changes made meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { KubeApiError, type ReflectorStatus } from '@rxinformer/core';
import { pod } from '@rxinformer/testing';
import { createKubeInformerFactory, pods } from '../src/index.ts';
import { simKubeConfig, waitFor } from './simHarness.ts';

let sim: ApiServer;
beforeAll(async () => {
  sim = await startApiServer({ port: 0, auth: { token: 'valid' } });
  sim.storage.create('pods', pod('before', { namespace: null }), 'default');
});
afterAll(() => sim.close());

describe('an informer whose token the server refuses for a while', () => {
  it('should back off on 401 and recover on its own once the token is accepted again', async () => {
    const factory = createKubeInformerFactory(simKubeConfig(sim, 'valid'));
    try {
      const informer = factory.informerFor(pods, { reflector: { backoff: { initialMs: 50, maxMs: 200 } } });
      const statuses: ReflectorStatus[] = [];
      informer.status$.subscribe((s) => statuses.push(s));
      factory.start();
      await factory.waitForCacheSync();
      sim.faults.setAuth({ token: 'rotated' }); // our token no longer works
      sim.faults.dropWatches();
      const refused = () =>
        statuses.filter((s) => s.phase === 'backingOff' && s.lastError instanceof KubeApiError && s.lastError.code === 401);
      expect(await waitFor(() => refused().length >= 2)).toBe(true);
      expect(refused().every((s) => (s.backoffMs ?? 0) >= 50)).toBe(true);
      sim.storage.create('pods', pod('meanwhile', { namespace: null }), 'default');
      sim.faults.setAuth({ token: 'valid' }); // accepted again
      expect(await waitFor(() => informer.getStore().get('default/meanwhile') !== undefined)).toBe(true);
      expect(await waitFor(() => statuses.at(-1)?.phase === 'watching')).toBe(true);
      sim.storage.create('pods', pod('after', { namespace: null }), 'default');
      expect(await waitFor(() => informer.getStore().get('default/after') !== undefined)).toBe(true);
    } finally {
      await factory.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { ControllerError, KubeObject } from '@rxinformer/core';
import { startPodLabeler, type PodLabeler } from './podLabeler.ts';
import { waitFor } from '../../packages/client-node/test/simHarness.ts';

const pod = (name: string, labels: Record<string, string> = {}): KubeObject & { spec: object } => ({ metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

describe('startPodLabeler', () => {
  let sim: ApiServer;
  let labeler: PodLabeler | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 11 });
    sim.storage.create('namespaces', { metadata: { name: 'shop' } });
  });
  afterAll(async () => {
    await labeler?.stop();
    await sim.close();
  });

  const labelsIn = (namespace: string) => new Map(sim.storage.list('pods', namespace).map((p) => [p.metadata!.name!, p.metadata!.labels?.['example.com/seen']]));

  it('should label every pod, retry failed patches with backoff, follow new pods and stop cleanly', async () => {
    for (const name of ['a', 'b', 'c']) sim.storage.create('pods', pod(name), 'shop');
    sim.storage.create('pods', pod('other'), 'default'); // another namespace: out of scope
    sim.faults.failNext(2, { on: 'write', code: 500 }); // the first two patches fail
    const errors: ControllerError[] = [];
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    labeler = startPodLabeler(kc, { namespace: 'shop', retryBaseDelayMs: 20, onError: (e) => errors.push(e) });

    expect(await waitFor(() => [...labelsIn('shop').values()].every((v) => v === 'true'))).toBe(true);
    expect(errors.length).toBe(2);
    expect(errors.every((e) => !e.dropped && typeof e.key === 'string')).toBe(true);
    expect(labeler.controller.queue.metrics().retries).toBe(2);
    expect(labelsIn('default').get('other')).toBeUndefined();

    sim.storage.create('pods', pod('d', { app: 'web' }), 'shop'); // after the sync
    expect(await waitFor(() => labelsIn('shop').get('d') === 'true')).toBe(true);
    expect(sim.storage.get('pods', 'shop', 'd').metadata!.labels).toEqual({ app: 'web', 'example.com/seen': 'true' });

    // A pod deleted while its key is queued is a no-op, not an error.
    sim.storage.delete('pods', 'shop', 'a');
    const queue = labeler.controller.queue;
    expect(await waitFor(() => labeler!.pods.getStore().get('shop/a') === undefined && queue.metrics().depth === 0 && queue.metrics().processing === 0)).toBe(true);
    expect((await firstValueFrom(labeler.controller.metrics$)).reconciled).toBeGreaterThanOrEqual(4);
    expect(errors.length).toBe(2);

    await labeler.stop();
    expect(labeler.controller.queue.shuttingDown).toBe(true);
    labeler = undefined;
  });
});

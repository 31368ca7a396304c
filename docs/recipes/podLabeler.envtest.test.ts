/**
 * Recipe: testing a controller against a real API server. The pod labeler of podLabeler.ts, run
 * against a real etcd and kube-apiserver that @rxinformer/envtest starts for this file: written to
 * and read back through the API, as the controller's users will run it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { eventually, startTestEnvironment, type TestEnvironment } from '@rxinformer/envtest';
import { startPodLabeler } from './podLabeler.ts';

describe('startPodLabeler against a real API server', () => {
  let env: TestEnvironment;
  let kc: KubeConfig;
  let core: CoreV1Api;
  beforeAll(async () => {
    env = await startTestEnvironment(); // etcd + kube-apiserver for this file; `stop()` removes them
    kc = env.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  }, 120_000);
  afterAll(() => env.stop());

  /** A namespace of its own for each test: nothing one test does is seen by another. */
  let serial = 0;
  const namespace = async () => {
    const name = `shop-${++serial}`;
    await core.createNamespace({ body: { metadata: { name } } });
    return name;
  };
  const createPod = (ns: string, name: string) =>
    core.createNamespacedPod({ namespace: ns, body: { metadata: { name }, spec: { containers: [{ name: 'main', image: 'nginx' }] } } });
  const labels = async (ns: string) => (await core.listNamespacedPod({ namespace: ns })).items.map((p) => p.metadata?.labels ?? {});

  it('should label every pod of its namespace, and pods created later', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c']) await createPod(ns, name);
    const labeler = startPodLabeler(kc, { namespace: ns });
    try {
      // Polled until it holds (a predicate returning false fails an attempt), 10 s at most.
      await eventually(async () => (await labels(ns)).every((l) => l['example.com/seen'] === 'true'));
      await createPod(ns, 'd');
      await eventually(async () => expect((await labels(ns)).filter((l) => l['example.com/seen'] === 'true')).toHaveLength(4));
      // The server's own record of who wrote what: the controller's patch owns the label.
      const d = await core.readNamespacedPod({ namespace: ns, name: 'd' });
      expect(JSON.stringify(d.metadata?.managedFields)).toContain('"f:example.com/seen"');
    } finally {
      await labeler.stop();
    }
  }, 60_000);
});

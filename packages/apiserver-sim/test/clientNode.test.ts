/** @kubernetes/client-node 2.x against the simulator: CoreV1Api CRUD and makeInformer through churn. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig, makeInformer, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../src/index.ts';
import { sleep } from './helpers.ts';

describe('@kubernetes/client-node', () => {
  let sim: ApiServer;
  let api: CoreV1Api;
  let kc: KubeConfig;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 21, history: { maxEvents: 200 } });
    kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    api = kc.makeApiClient(CoreV1Api);
  });
  afterAll(() => sim.close());

  it('should create, list, read, replace, patch and delete pods with CoreV1Api', async () => {
    const namespace = 'default';
    const created = await api.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'cn', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    });
    expect(created.metadata?.uid).toBeDefined();
    expect(created.status?.phase).toBe('Pending');
    const list = await api.listNamespacedPod({ namespace, labelSelector: 'a=1' });
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['cn']);
    expect(list.metadata?.resourceVersion).toBe(sim.storage.resourceVersion);
    const read = await api.readNamespacedPod({ name: 'cn', namespace });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    read.metadata!.labels = { a: '2' };
    const replaced = await api.replaceNamespacedPod({ name: 'cn', namespace, body: read });
    expect(replaced.metadata?.labels).toEqual({ a: '2' });
    await expect(api.replaceNamespacedPod({ name: 'cn', namespace, body: read })).rejects.toMatchObject({ code: 409 });
    const patched = await api.patchNamespacedPod(
      { name: 'cn', namespace, body: { metadata: { labels: { b: 'x' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.labels).toEqual({ a: '2', b: 'x' });
    const smp = await api.patchNamespacedPod(
      { name: 'cn', namespace, body: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(smp.spec?.containers[0].image).toBe('nginx:2');
    await api.deleteNamespacedPod({ name: 'cn', namespace });
    await expect(api.readNamespacedPod({ name: 'cn', namespace })).rejects.toMatchObject({ code: 404 });
  });

  it('should keep makeInformer in sync through churn, a dropped watch and a compaction', async () => {
    const namespace = 'default';
    const informer = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => api.listNamespacedPod({ namespace }));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    let n = 0;
    const names: string[] = [];
    const churn = (steps: number) => {
      for (let i = 0; i < steps; i++) {
        const r = (i * 7 + n) % 10;
        if (r < 4 || names.length < 5) {
          const name = `churn-${n++}`;
          sim.storage.create(
            'pods',
            { metadata: { name, labels: { step: String(i) } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
            namespace,
          );
          names.push(name);
        } else if (r < 7) {
          const name = names[(i * 3) % names.length];
          const cur = sim.storage.get('pods', namespace, name);
          sim.storage.update('pods', { ...cur, metadata: { ...cur.metadata, labels: { step: `u${i}` } } }, namespace, name);
        } else if (r < 9) {
          const [name] = names.splice((i * 5) % names.length, 1);
          sim.storage.delete('pods', namespace, name);
        } else {
          // delete then recreate under the same name: a new UID
          const name = names[(i * 11) % names.length];
          sim.storage.delete('pods', namespace, name);
          sim.storage.create(
            'pods',
            { metadata: { name, labels: { recreated: 'yes' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
            namespace,
          );
        }
      }
    };
    churn(30);
    await informer.start();
    const inSync = async () => {
      const want = new Map(
        sim.storage.list('pods', namespace).map((p) => [p.metadata!.name!, `${p.metadata!.uid}@${p.metadata!.resourceVersion}`]),
      );
      for (let i = 0; i < 200; i++) {
        const have = new Map(informer.list(namespace).map((p) => [p.metadata!.name!, `${p.metadata!.uid}@${p.metadata!.resourceVersion}`]));
        if (have.size === want.size && [...want].every(([k, v]) => have.get(k) === v)) return;
        await sleep(25);
      }
      throw new Error(`informer out of sync: ${informer.list(namespace).length} objects, want ${want.size}`);
    };
    await inSync();
    churn(100);
    await inSync();
    // a dropped connection stops a client-node informer with an error: the documented pattern restarts it
    sim.faults.dropWatches();
    for (let i = 0; i < 100 && errors.length === 0; i++) await sleep(10);
    expect(errors).toHaveLength(1);
    churn(40);
    await informer.start();
    await inSync();
    // a compaction + ERROR 410 makes it relist on its own
    const opened = sim.watches.sessions().length;
    expect(opened).toBe(1);
    churn(20);
    sim.faults.compact();
    sim.faults.injectWatchError();
    churn(20);
    await inSync();
    expect(errors).toHaveLength(1);
    await informer.stop();
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { LeaseHistory, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { startLeaderElectedLabeler } from './leaderElectedLabeler.ts';
import { startShardedLabeler } from './shardedLabeler.ts';

const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 100 };
const waitFor = async (check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
};

let sim: ApiServer;
let kc: KubeConfig;
beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 21, shardedListAndWatch: true });
  sim.storage.create('namespaces', { metadata: { name: 'shop' } });
  kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
});
afterAll(async () => {
  await sim.close();
});

describe('startLeaderElectedLabeler', () => {
  it('should label pods from the leader only, and hand over at once when it stops', async () => {
    const history = new LeaseHistory(sim.storage.storage);
    const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    sim.storage.create('pods', pod('a'), 'shop');
    const one = startLeaderElectedLabeler(kc, { namespace: 'shop', identity: 'one', timing });
    const labelled = (name: string) => sim.storage.get('pods', 'shop', name).metadata?.labels?.['example.com/seen'] === 'true';
    expect(await waitFor(() => labelled('a'))).toBe(true);
    const two = startLeaderElectedLabeler(kc, { namespace: 'shop', identity: 'two', timing });
    await one.stop();
    sim.storage.create('pods', pod('b'), 'shop');
    expect(await waitFor(() => labelled('b'))).toBe(true); // labelled by two, without waiting out the Lease
    expect(history.terms('shop/pod-labeler').map((t) => t.holder)).toEqual(['one', '', 'two']);
    await two.stop();
    history.close();
  });
});

describe('startShardedLabeler', () => {
  it('should label every ConfigMap, each replica caching and labelling its share', async () => {
    for (let i = 0; i < 60; i++) sim.storage.create('configmaps', { metadata: { name: `cm-${i}` } }, 'shop');
    const replicas = ['r1', 'r2'].map((identity) => startShardedLabeler(kc, { namespace: 'shop', identity, timing }));
    const shards = () => sim.storage.list('configmaps', 'shop').map((c) => c.metadata?.labels?.['example.com/shard']);
    expect(await waitFor(() => shards().every((s) => s === 'r1' || s === 'r2'))).toBe(true);
    expect(await waitFor(() => replicas.every((r) => r.informer.getStore().size > 10))).toBe(true);
    expect(replicas.map((r) => r.informer.getStore().size).reduce((a, b) => a + b)).toBe(60);
    await replicas[0].stop(); // r1 leaves: r2 takes its share and relabels it
    expect(await waitFor(() => shards().every((s) => s === 'r2'))).toBe(true);
    await replicas[1].stop();
  });
});

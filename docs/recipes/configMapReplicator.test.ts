import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { KubeObject } from '@rxinformer/core';
import { REPLICA_OF_LABEL, REPLICAS_FINALIZER, REPLICATE_LABEL, startReplicator, type Replicator } from './configMapReplicator.ts';

/** Polls `check` every 20 ms for up to 15 s. */
async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('startReplicator', () => {
  let sim: ApiServer;
  let replicator: Replicator | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 5 });
    for (const name of ['config', 'team-a', 'team-b']) sim.storage.create('namespaces', { metadata: { name } });
  });
  afterAll(async () => {
    await replicator?.stop();
    await sim.close();
  });
  const get = (ns: string, name: string) => sim.storage.find('configmaps', ns, name) as (KubeObject & { data?: object }) | undefined;

  it('should copy labelled ConfigMaps, keep the copies equal, and delete them before the source goes', async () => {
    sim.storage.create('configmaps', { metadata: { name: 'shared', labels: { [REPLICATE_LABEL]: 'true' } }, data: { a: '1' } }, 'config');
    sim.storage.create('configmaps', { metadata: { name: 'private' }, data: { p: '1' } }, 'config');
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    replicator = startReplicator(kc, { namespace: 'config', targets: ['team-a', 'team-b'] });

    await eventually(() => get('team-a', 'shared') !== undefined && get('team-b', 'shared') !== undefined);
    expect(get('team-a', 'shared')).toMatchObject({ metadata: { labels: { [REPLICA_OF_LABEL]: 'config.shared' } }, data: { a: '1' } });
    expect(get('config', 'shared')!.metadata!.finalizers).toEqual([REPLICAS_FINALIZER]);
    expect(get('team-a', 'private')).toBeUndefined();

    const source = get('config', 'shared')!;
    sim.storage.update('configmaps', { ...source, data: { a: '2', b: '3' } }, 'config', 'shared');
    await eventually(() => JSON.stringify(get('team-b', 'shared')?.data) === '{"a":"2","b":"3"}');

    sim.storage.delete('configmaps', 'config', 'shared'); // held by the finalizer until the copies are gone
    await eventually(() => get('config', 'shared') === undefined);
    expect(get('team-a', 'shared')).toBeUndefined();
    expect(get('team-b', 'shared')).toBeUndefined();

    await replicator.stop();
    replicator = undefined;
    const events = sim.storage.list('events.k8s.io/v1/events', 'config') as (KubeObject & {
      reason: string;
      note: string;
      series?: { count: number };
    })[];
    expect(events.map((e) => [e.reason, e.note]).sort()).toEqual([
      ['Replicated', 'copied to team-a, team-b'],
      ['Unreplicated', 'copies deleted from team-a, team-b'],
    ]);
  });
});

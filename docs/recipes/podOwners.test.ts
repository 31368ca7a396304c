import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startPodOwners, type PodOwners } from './podOwners.ts';

const owned = (name: string, uid: string) => ({
  metadata: { name, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${uid}`, uid, controller: true }] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

describe('startPodOwners', () => {
  let sim: ApiServer;
  let owners: PodOwners | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 13 });
    sim.storage.create('pods', owned('a-1', 'rs-a'), 'default');
    sim.storage.create('pods', owned('a-2', 'rs-a'), 'default');
    sim.storage.create('pods', owned('b-1', 'rs-b'), 'default');
  });
  afterAll(async () => {
    await owners?.stop();
    await sim.close();
  });

  it('should index the pods by owner from their metadata alone, and follow changes', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    owners = await startPodOwners(kc, 'default');
    expect(owners.ownedBy('rs-a')).toEqual(['default/a-1', 'default/a-2']);
    const pod = owners.pods.getStore().get('default/b-1')!;
    expect(pod).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: expect.objectContaining({ name: 'b-1' }),
    });
    expect(pod).not.toHaveProperty('spec');
    sim.storage.create('pods', owned('b-2', 'rs-b'), 'default');
    await firstValueFrom(
      owners.pods.store$.pipe(
        filter((s) => s.indexKeys('byOwner', 'rs-b').length === 2),
        timeout(15_000),
      ),
    );
    expect(owners.ownedBy('rs-b')).toEqual(['default/b-1', 'default/b-2']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { AGE, LIST_VIEW_CELLS, listViewPods } from '@rxinformer/testing';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startPodListView, type PodListView } from './podListView.ts';

describe('startPodListView', () => {
  let sim: ApiServer;
  let view: PodListView | undefined;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 17 });
    sim.storage.create('namespaces', { metadata: { name: 'lv' } });
    for (const p of listViewPods(Date.now()))
      sim.storage.create('pods', { metadata: { name: p.name }, spec: p.spec, status: p.status }, 'lv');
  });
  afterAll(async () => {
    await view?.stop();
    await sim.close();
  });

  it("should show kubectl's columns of every pod from the preset's projection, and follow changes", async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    view = await startPodListView(kc, 'lv');
    const shown = view.rows().map(({ Namespace, ...cells }) => [Namespace, ...Object.values(cells).map((c, i) => (i === 4 ? AGE : c))]);
    const expected = listViewPods(0)
      .filter((p) => !p.finalizer) // stored directly here: never deleted, so not Terminating
      .map((p) => ['lv', ...LIST_VIEW_CELLS.pods[p.name]])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(shown.filter((r) => expected.some((e) => e[1] === r[1]))).toEqual(expected);
    expect(view.pods.getStore().get('lv/web')).not.toHaveProperty('spec.restartPolicy'); // projected

    const pending = sim.storage.get('pods', 'lv', 'pending');
    sim.storage.update('pods', { ...pending, status: { phase: 'Running', podIPs: [{ ip: '10.0.0.9' }] } }, 'lv', 'pending', {
      subresource: 'status',
    });
    await firstValueFrom(
      view.pods.store$.pipe(
        filter((s) => s.get('lv/pending')?.status?.phase === 'Running'),
        timeout(15_000),
      ),
    );
    expect(view.rows().find((r) => r.Name === 'pending')).toMatchObject({ Status: 'Running', IP: '10.0.0.9' });
  });
});

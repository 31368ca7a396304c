import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { createSharedInformer, fetchListerWatcher } from '@rxinformer/core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { podRows, podsResource, type PodRow } from './podRows.ts';
import { pod } from '@rxinformer/testing';

describe('podRows', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 13 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('should emit the rows of the browser-safe informer when a pod comes or goes, and not for a change the rows do not show', async () => {
    sim.storage.create('pods', pod('b', { namespace: null }), 'default');
    const informer = createSharedInformer(fetchListerWatcher({ baseUrl: sim.url, resource: podsResource, namespace: 'default' }));
    const emitted: (readonly PodRow[])[] = [];
    const subscription = podRows(informer.store$).subscribe((rows) => emitted.push(rows));
    const storeWhere = (check: (pod: V1Pod | undefined) => boolean, key: string) =>
      firstValueFrom(
        informer.store$.pipe(
          filter((s) => check(s.get(key))),
          timeout({ first: 15_000 }),
        ),
      );
    try {
      informer.start();
      await firstValueFrom(informer.synced$.pipe(filter(Boolean), timeout({ first: 15_000 })));
      expect(emitted.at(-1)).toEqual([{ key: 'default/b', name: 'b', namespace: 'default', phase: 'Pending' }]);

      sim.storage.create('pods', pod('a', { namespace: null }), 'default');
      await storeWhere((p) => p !== undefined, 'default/a');
      expect(emitted.at(-1)!.map((r) => r.key)).toEqual(['default/a', 'default/b']);

      const before = emitted.length;
      const b = sim.storage.get('pods', 'default', 'b');
      const { resourceVersion } = sim.storage.update(
        'pods',
        { ...b, metadata: { ...b.metadata, labels: { tier: 'web' } } },
        'default',
        'b',
      ).metadata!;
      await storeWhere((p) => p?.metadata?.resourceVersion === resourceVersion, 'default/b');
      expect(emitted.length).toBe(before); // a label is not in the rows: no new value, no re-render

      sim.storage.delete('pods', 'default', 'a');
      await storeWhere((p) => p === undefined, 'default/a');
      expect(emitted.at(-1)!.map((r) => r.key)).toEqual(['default/b']);
      expect(emitted.length).toBe(before + 1);
    } finally {
      subscription.unsubscribe();
      informer.stop();
    }
  });
});

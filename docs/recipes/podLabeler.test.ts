import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { KubeObject, Store } from '@rxinformer/core';
import type { ControllerError } from '@rxinformer/controller';
import { filter, firstValueFrom, timeout, type Observable } from 'rxjs';
import { startPodLabeler, type PodLabeler } from './podLabeler.ts';
import { pod, until } from '@rxinformer/testing';

/** The first value of `source` that passes `check`, or a TimeoutError after 15 s. */
const firstWhere = <T>(source: Observable<T>, check: (value: T) => boolean) =>
  firstValueFrom(source.pipe(filter(check), timeout({ first: 15_000 })));
const labelled = (store: Store<KubeObject>, names: string[]) =>
  names.every((n) => store.get(`shop/${n}`)?.metadata?.labels?.['example.com/seen'] === 'true');

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

  it('should label every pod, retry failed patches with backoff, follow new pods and stop cleanly', async () => {
    for (const name of ['a', 'b', 'c']) sim.storage.create('pods', pod(name, { namespace: null }), 'shop');
    sim.storage.create('pods', pod('other', { namespace: null }), 'default'); // another namespace: out of scope
    sim.faults.failNext(2, { on: 'write', code: 500 }); // the first two patches fail
    const errors: ControllerError[] = [];
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    labeler = startPodLabeler(kc, { namespace: 'shop', retryBaseDelayMs: 20, onError: (e) => errors.push(e) }); // failures are logged too

    await firstWhere(labeler.pods.store$, (s) => labelled(s, ['a', 'b', 'c']));
    expect(sim.storage.list('pods', 'shop').map((p) => p.metadata!.labels)).toEqual([
      { 'example.com/seen': 'true' },
      { 'example.com/seen': 'true' },
      { 'example.com/seen': 'true' },
    ]);
    expect(errors.map((e) => e.dropped)).toEqual([false, false]);
    expect(labeler.run.queue.metrics().retries).toBe(2);
    expect(sim.storage.get('pods', 'default', 'other').metadata!.labels?.['example.com/seen']).toBeUndefined(); // out of scope: never labelled

    sim.storage.create('pods', pod('d', { labels: { app: 'web' }, namespace: null }), 'shop'); // after the sync
    await firstWhere(labeler.pods.store$, (s) => labelled(s, ['d']));
    expect(sim.storage.get('pods', 'shop', 'd').metadata!.labels).toEqual({ app: 'web', 'example.com/seen': 'true' });

    // A pod deleted before its key is reconciled is a no-op, not an error.
    const { controller, run } = labeler;
    const idle = () => controller.reconcileStats().activeWorkers === 0 && run.queue.length === 0;
    await until(idle);
    const before = controller.reconcileStats().total.success;
    sim.storage.delete('pods', 'shop', 'a');
    await firstWhere(labeler.pods.store$, (s) => s.get('shop/a') === undefined); // its key is queued now
    await until(() => controller.reconcileStats().total.success > before && idle());
    expect(errors.length).toBe(2);

    await labeler.stop();
    expect(labeler.run.queue.shuttingDown).toBe(true);
    labeler = undefined;
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSharedInformer, fetchListerWatcher, type KubeObject, type ReflectorStatus } from '@rxinformer/core';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';

// End to end over real HTTP: the shared informer, through the fetch ListerWatcher, against the
// simulator, with every fault the simulator can inject between bursts of churn.
describe('shared informer over fetch against the simulator', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 7, bookmarkIntervalMs: 200, history: { maxEvents: 200 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const serverView = () =>
    new Map(
      sim.storage
        .list('configmaps', 'default')
        .map((o) => [`default/${o.metadata!.name}`, `${o.metadata!.uid}@${o.metadata!.resourceVersion}`]),
    );

  it('should converge to the server through churn and every fault, and see recreations as delete + add', async () => {
    const lw = fetchListerWatcher({ baseUrl: sim.url, path: '/api/v1/namespaces/default/configmaps' });
    const informer = createSharedInformer(lw, {
      reflector: { pageSize: 7, minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 20, maxMs: 200 } },
    });
    const statuses: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => statuses.push(s));
    const view = new Map<string, KubeObject>();
    const uidChanges: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        view.set(`default/${o.metadata!.name}`, o);
      },
      onUpdate: (old, o) => {
        if (old.metadata?.uid !== o.metadata?.uid) uidChanges.push(o.metadata!.name!);
        view.set(`default/${o.metadata!.name}`, o);
      },
      onDelete: (o) => {
        view.delete(`default/${o.metadata!.name}`);
      },
    });
    let n = 0;
    const churn = () => {
      for (let i = 0; i < 15; i++) {
        const name = `cm-${n++ % 20}`;
        const cur = sim.storage.find('configmaps', 'default', name);
        if (!cur) sim.storage.create('configmaps', { metadata: { name }, data: { v: String(n) } }, 'default');
        else if (n % 5 === 0) sim.storage.delete('configmaps', 'default', name);
        else if (n % 7 === 0) {
          sim.storage.delete('configmaps', 'default', name);
          sim.storage.create('configmaps', { metadata: { name }, data: { v: 'again' } }, 'default');
        } else sim.storage.update('configmaps', { ...cur, data: { v: String(n) } }, 'default', name);
      }
    };
    churn();
    informer.start();
    const faults: (() => void)[] = [
      () => sim.faults.dropWatches(),
      () => sim.faults.injectWatchError(),
      () => sim.faults.compact(),
      () => sim.faults.failNext(2, { code: 500 }),
      () => sim.faults.failNext(1, { code: 429, retryAfterSeconds: 1 }),
      () => sim.faults.malformedLine(),
      () => sim.faults.stallWatches(),
      () => sim.faults.restart(),
    ];
    for (const fault of faults) {
      await sleep(150);
      fault();
      churn();
    }
    const want = serverView();
    const deadline = Date.now() + 20_000;
    const have = () =>
      new Map(
        informer
          .getStore()
          .list()
          .map((o) => [`default/${o.metadata!.name}`, `${o.metadata!.uid}@${o.metadata!.resourceVersion}`]),
      );
    while (Date.now() < deadline && JSON.stringify([...have()].sort()) !== JSON.stringify([...want].sort())) await sleep(50);
    informer.stop();
    expect(have()).toEqual(want);
    const handlerView = new Map([...view].map(([k, o]) => [k, `${o.metadata!.uid}@${o.metadata!.resourceVersion}`]));
    expect(handlerView).toEqual(want);
    expect(uidChanges).toEqual([]); // recreations arrive as delete + add, never as an update
    const errors = new Set(statuses.map((s) => s.lastError?.name).filter(Boolean));
    expect([...errors]).toEqual(expect.arrayContaining(['KubeApiError', 'WatchDecodeError']));
    expect(statuses.at(-1)?.phase).toBe('stopped');
  });
});

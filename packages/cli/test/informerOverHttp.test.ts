import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSharedInformer, fetchListerWatcher, type KubeObject, type ReflectorStatus } from '@rxinformer/core';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';

// End to end over real HTTP: the shared informer, through the fetch ListerWatcher, against the
// simulator and a real kube-apiserver, behind the fault proxy, with every fault each can have
// between bursts of churn written through the API.
describe.each(serverKinds())('shared informer over fetch against the %s server', (kind) => {
  let server: TestServer;
  let ns: string;
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 7, bookmarkIntervalMs: 200, history: { maxEvents: 200 } } });
    ns = await server.namespace('over-http');
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const identity = (o: KubeObject) => [`${ns}/${o.metadata!.name}`, `${o.metadata!.uid}@${o.metadata!.resourceVersion}`] as const;
  const serverView = async () => new Map((await server.api.get(`/api/v1/namespaces/${ns}/configmaps`)).items.map(identity));

  it('should converge to the server through churn and every fault, and see recreations as delete + add', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const lw = fetchListerWatcher({ ...server.fetchOptions(), path });
    const informer = createSharedInformer(lw, {
      reflector: { pageSize: 7, minWatchTimeoutSeconds: 2, idleGraceMs: 500, backoff: { initialMs: 20, maxMs: 200 } },
    });
    const statuses: ReflectorStatus[] = [];
    informer.status$.subscribe((s) => statuses.push(s));
    const view = new Map<string, KubeObject>();
    const uidChanges: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void view.set(`${ns}/${o.metadata!.name}`, o),
      onUpdate: (old, o) => {
        if (old.metadata?.uid !== o.metadata?.uid) uidChanges.push(o.metadata!.name!);
        view.set(`${ns}/${o.metadata!.name}`, o);
      },
      onDelete: ({ key }) => void view.delete(key),
    });
    let n = 0;
    const churn = async () => {
      for (let i = 0; i < 15; i++) {
        const name = `cm-${n++ % 20}`;
        const cur = await server.api.find(`${path}/${name}`);
        if (!cur) await server.api.create(path, { metadata: { name }, data: { v: String(n) } });
        else if (n % 5 === 0) await server.api.delete(`${path}/${name}`);
        else if (n % 7 === 0) {
          await server.api.delete(`${path}/${name}`);
          await server.api.create(path, { metadata: { name }, data: { v: 'again' } });
        } else await server.api.update(`${path}/${name}`, { ...cur, data: { v: String(n) } });
      }
    };
    await churn();
    informer.start();
    const faults: (() => unknown)[] = [
      () => server.proxy.cut(),
      // What only the simulator can do: a 410 as an ERROR event on a live watch, a garbled line.
      ...(server.sim ? [() => server.sim!.faults.injectWatchError(), () => server.sim!.faults.malformedLine()] : []),
      () => server.proxy.reset(),
      () => server.compact(),
      () => server.proxy.failNext(2, { code: 500 }),
      () => server.proxy.failNext(1, { code: 429, retryAfterSeconds: 1 }),
      () => server.proxy.stall(),
      () => server.restart(),
    ];
    for (const fault of faults) {
      await sleep(150);
      await fault();
      await churn();
    }
    const want = await serverView();
    const have = () => new Map(informer.getStore().list().map(identity));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && JSON.stringify([...have()].sort()) !== JSON.stringify([...want].sort())) await sleep(50);
    informer.stop();
    expect(have()).toEqual(want);
    expect(new Map([...view.values()].map(identity))).toEqual(want);
    expect(uidChanges).toEqual([]); // recreations arrive as delete + add, never as an update
    const errors = new Set(statuses.map((s) => s.lastError?.name).filter(Boolean));
    expect([...errors]).toEqual(expect.arrayContaining(['KubeApiError', ...(server.sim ? ['WatchDecodeError'] : [])]));
    expect(statuses.some((s) => s.lastError?.name === 'KubeApiError' && (s.lastError as { code?: number }).code === 410)).toBe(true);
    expect(statuses.at(-1)?.phase).toBe('stopped');
  }, 90_000);
});

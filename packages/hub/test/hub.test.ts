import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  projected,
  tableRows,
  type InformerFactory,
  type TableRowObject,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { apiChurn, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { allowAllAuthorizerForTests, startTestHub, tabSource, tokenTableAuthenticatorForTests, type TestHub } from './hubKit.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const USERS = {
  'token-a': { username: 'alice', groups: ['system:authenticated'] },
  'token-b': { username: 'bob', groups: ['system:authenticated'] },
};
const TABS = 12;

// The protocol over real WebSockets: tabs of two users, each a core informer factory over
// hubListerWatcherSource, served by one hub over one factory of the server under test.
describe.each(serverKinds())('the hub against the %s server', (kind) => {
  let server: TestServer;
  let hub: TestHub;
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
    hub = await startTestHub(server, { authenticator: tokenTableAuthenticatorForTests(USERS), authorizer: allowAllAuthorizerForTests });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    await hub?.close();
    await server?.close();
  });

  it('should serve many tabs from one informer per resource and scope, and resume a dropped tab without a resend', async () => {
    const ns = await server.namespace('hub');
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    const churn = apiChurn(server.api, { collections: [collection], make: (name) => ({ metadata: { name }, data: { v: '0' } }), seed: 36 });
    await churn.seed(30);
    const watchesBefore = server.proxy.counts.watches;
    const requestsBefore = server.proxy.counts.requests;
    const logMark = server.proxy.requests.length;
    const tabs = Array.from({ length: TABS }, (_, i) => {
      const { source, wire } = tabSource(hub.url, i % 2 ? 'token-a' : 'token-b');
      const factory = createInformerFactory(source, { namespace: ns });
      factories.push(factory);
      const informer = factory.informerFor(CONFIGMAPS);
      factory.start();
      return { informer, wire };
    });
    const converge = async (step: string) => {
      const want = view((await server.api.get(collection)).items as KubeObject[]);
      await until(() => tabs.every((t) => same(t.informer, want)), {
        timeoutMs: 60_000,
        intervalMs: 50,
        what: `every tab at the server's list after ${step}`,
      });
      return want;
    };
    const listed = await converge('the initial list');
    await churn.run({ count: 30 }).done;
    await converge('churn');
    // One streaming list (a watch that first sends every object) on the API server, for every tab of every user.
    expect(server.proxy.counts.watches - watchesBefore).toBe(1);
    expect(server.proxy.counts.requests - requestsBefore).toBe(1);
    expect(server.proxy.requests.slice(logMark).filter((r) => r.includes('sendInitialEvents=true'))).toHaveLength(1);
    expect(hub.hub.metrics()).toMatchObject({ clients: TABS, informers: 1 });
    expect(tabs[0].wire.sockets).toHaveLength(1);

    // A tab's socket drops: it reconnects, and its informer resumes from the hub's history.
    const dropped = tabs[0];
    const [before, relists] = [dropped.wire.objects, relistsOf(dropped.informer)];
    let seenByHub = 0;
    const counting = hub.factory.informerFor(CONFIGMAPS, { namespace: ns }).events$.subscribe(() => seenByHub++);
    dropped.wire.sockets[0].terminate();
    await churn.run({ count: 10, mix: { update: 1 } }).done;
    await converge('a dropped socket');
    counting.unsubscribe();
    await until(() => dropped.wire.sockets.length === 2, { what: 'a second socket' });
    expect(relistsOf(dropped.informer)).toBe(relists);
    expect(seenByHub).toBeGreaterThanOrEqual(10);
    expect(dropped.wire.objects - before).toBe(seenByHub); // each change once, nothing sent again
    expect(listed.length).toBeGreaterThan(seenByHub);
  }, 180_000);

  it("should send projected tabs only their paths and Table tabs the server's rows, from one informer per form, authorized as the full one", async () => {
    const ns = await server.namespace('hub-proj');
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    const BIG = 'x'.repeat(4096);
    const churn = apiChurn(server.api, {
      collections: [collection],
      make: (name) => ({ metadata: { name }, data: { v: name, big: BIG } }),
      seed: 4,
    });
    await churn.seed(16);
    const deny = new Set(['bob']);
    const guarded = await startTestHub(server, {
      authenticator: tokenTableAuthenticatorForTests(USERS),
      authorizer: { authorize: (user) => Promise.resolve({ allowed: !deny.has(user.username), reason: 'test' }) },
    });
    const watchesBefore = server.proxy.counts.watches;
    const tab = (token: string, resource: ResourceDescriptor) => {
      const { source, wire } = tabSource(guarded.url, token);
      const factory = createInformerFactory(source, { namespace: ns });
      factories.push(factory);
      const informer = factory.informerFor(resource) as SharedInformer<KubeObject>;
      factory.start();
      return { informer, wire };
    };
    const paths = tab('token-a', projected(CONFIGMAPS, ['data.v']));
    const paths2 = tab('token-a', projected(CONFIGMAPS, ['data.v']));
    const rows = tab('token-a', tableRows(CONFIGMAPS));
    const denied = [tab('token-b', projected(CONFIGMAPS, ['data.v'])), tab('token-b', tableRows(CONFIGMAPS))];
    try {
      await churn.run({ count: 16, mix: { create: 1, update: 2, delete: 1 } }).done;
      const want = (await server.api.get(collection)).items as KubeObject[];
      const names = want.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
      const of = (t: typeof paths) =>
        t.informer
          .getStore()
          .list()
          .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
          .sort();
      await until(() => [paths, paths2, rows].every((t) => JSON.stringify(of(t)) === JSON.stringify(names)), {
        timeoutMs: 60_000,
        intervalMs: 50,
        what: 'the projected and Table tabs at the server',
      });
      for (const o of paths.informer.getStore().list())
        expect((o as KubeObject & { data?: unknown }).data).toEqual({ v: o.metadata?.name });
      for (const o of rows.informer.getStore().list())
        expect((o as TableRowObject).cells).toMatchObject({ Name: o.metadata?.name, Data: 2 });
      // The big field never crossed the wire: every projected tab received less than one object's worth of it per object.
      expect(paths.wire.bytes).toBeLessThan(paths.wire.objects * BIG.length);
      expect(paths.wire.objects).toBeGreaterThanOrEqual(names.length); // at least each object it holds
      expect(names.length).toBeGreaterThan(0);
      // Paths are projected on the hub from the full informer (no watch of their own); Table rows are one informer for every tab.
      // (a hub informer serves its list before its watch reaches the server: wait for both, then count)
      await until(() => server.proxy.counts.watches - watchesBefore >= 2, { timeoutMs: 60_000, what: "the hub's watches" });
      expect(server.proxy.counts.watches - watchesBefore).toBe(2);
      expect(guarded.hub.metrics().informers).toBe(2);
      // bob may not list: neither form reaches him.
      expect(guarded.hub.metrics().decisions.denied.fresh).toBeGreaterThanOrEqual(2);
      for (const d of denied) expect(d.wire.objects).toBe(0);
    } finally {
      for (const f of factories.splice(0)) f.shutdown();
      await guarded.close();
    }
  }, 180_000);
});

/** `name=uid@rv`, sorted. */
const view = (objects: readonly KubeObject[]) =>
  objects.map((o) => `${o.metadata?.name}=${o.metadata?.uid}@${o.metadata?.resourceVersion}`).sort();

const same = (informer: SharedInformer<KubeObject>, want: string[]) =>
  JSON.stringify(view(informer.getStore().list())) === JSON.stringify(want);

function relistsOf(informer: SharedInformer<KubeObject>): number {
  let relists = 0;
  informer.status$.subscribe((s) => (relists = s.relistCount)).unsubscribe();
  return relists;
}

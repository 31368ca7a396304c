import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  type InformerFactory,
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
    // One list and one watch on the API server, for every tab of every user.
    expect(server.proxy.counts.watches - watchesBefore).toBe(1);
    expect(server.proxy.counts.requests - requestsBefore).toBe(2);
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

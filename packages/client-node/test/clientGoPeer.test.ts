import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { until } from '@rxinformer/testing';
import {
  buildClientGoPeer,
  handlerCalls,
  serverKinds,
  START_TIMEOUT_MS,
  startClientGoPeer,
  startTestServer,
  type ClientGoPeer,
  type ClientGoPeerOptions,
  type PeerLine,
  type RequestLine,
  type TestServer,
} from '@rxinformer/testing/servers';

// The client-go peer (packages/testing/clientgo), client-go v0.36.3's shared informer, against the
// real kube-apiserver v1.36.3: what its handler sees, in each mode the side-by-side comparisons
// will run it in. This holds the peer itself to the server before anything is compared with it.
const real = serverKinds().includes('real');

const variants: { resource: 'configmaps' | 'pods'; watchList: boolean; protobuf: boolean }[] = [
  { resource: 'configmaps', watchList: true, protobuf: false },
  { resource: 'configmaps', watchList: false, protobuf: false },
  { resource: 'pods', watchList: true, protobuf: true },
  { resource: 'pods', watchList: false, protobuf: true },
];

const bodyOf = (resource: string, name: string) =>
  resource === 'pods'
    ? { metadata: { name, labels: { v: '1' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } }
    : { metadata: { name, labels: { v: '1' } }, data: { v: name } };

const identity = (o: any) => ({ key: `${o.metadata.namespace}/${o.metadata.name}`, uid: o.metadata.uid, rv: o.metadata.resourceVersion });

(real ? describe : describe.skip)('the client-go peer against the real server', () => {
  let server: TestServer;
  const peers: ClientGoPeer[] = [];
  beforeAll(async () => {
    await buildClientGoPeer(); // nothing when `npm run testenv:build` has built it
    server = await startTestServer('real');
  }, START_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    for (const p of peers) p.kill();
    await server?.close();
  });
  const start = async (options: ClientGoPeerOptions) => {
    const peer = await startClientGoPeer(options);
    peers.push(peer);
    return peer;
  };

  it.each(variants)(
    'should see $resource with watch-list $watchList, protobuf $protobuf: initial adds, then live events, and end with the server’s list',
    async ({ resource, watchList, protobuf }) => {
      const ns = await server.namespace(`clientgo-${resource}`);
      const path = `/api/v1/namespaces/${ns}/${resource}`;
      const initial = await Promise.all(['c', 'a', 'b'].map((name) => server.api.create(path, bodyOf(resource, name))));
      const peer = await start({ kubeConfig: server.kubeConfig(), resource, namespace: ns, watchList, protobuf, logRequests: true });
      expect(peer.lines[0]).toEqual({
        event: 'start',
        watchList,
        clientGo: 'v0.36.3',
        contentType: protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json',
        informer: 'typed',
        resource: `v1/${resource}`,
      });
      await peer.waitFor((l) => l.event === 'synced');
      const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1);
      expect(handlerCalls(peer.lines).sort(byKey)).toEqual(
        initial.map((o) => ({ event: 'add', ...identity(o), initial: true })).sort(byKey),
      );
      expectInitialRequests(peer.lines, watchList, protobuf);

      const added = await server.api.create(path, bodyOf(resource, 'd'));
      const a = initial.find((o) => o.metadata.name === 'a');
      const b = initial.find((o) => o.metadata.name === 'b');
      const updated = await server.api.patch(`${path}/a`, { metadata: { labels: { v: '2' } } });
      await server.api.delete(`${path}/b`);
      const deletedRv = String((await server.api.get(path)).metadata.resourceVersion);
      const live = () => handlerCalls(peer.lines).slice(3);
      await peer.waitFor(() => live().some((l) => l.event === 'delete'));
      const rv: unknown = expect.any(String);
      expect(live()).toEqual([
        { event: 'add', ...identity(added), initial: false },
        { event: 'update', ...identity(updated), oldRv: a.metadata.resourceVersion, oldUid: a.metadata.uid },
        // A pod's deletion, even with grace period 0, first writes its deletionTimestamp: an update.
        ...(resource === 'pods'
          ? [{ event: 'update' as const, ...identity(b), rv, oldRv: b.metadata.resourceVersion, oldUid: b.metadata.uid }]
          : []),
        { event: 'delete', ...identity(b), rv, finalStateUnknown: false },
      ]);
      // The deleted object's last state, at the deletion's own resource version.
      const deleted = live().at(-1)!;
      expect(Number(deleted.rv)).toBeGreaterThan(Number(b.metadata.resourceVersion));
      expect(Number(deleted.rv)).toBeLessThanOrEqual(Number(deletedRv));

      const run = await peer.stop();
      expect({ code: run.code, watchErrors: run.lines.filter((l) => l.event === 'watchError' || l.event === 'unparsed') }).toEqual({
        code: 0,
        watchErrors: [],
      });
      const listed = (await server.api.get(path)).items.map(identity).sort(byKey);
      expect(run.store).toEqual(listed);
      expect(run.store!.map((i) => i.key)).toEqual([`${ns}/a`, `${ns}/c`, `${ns}/d`]);
    },
    90_000,
  );

  it('should report a failed watch as a watchError line and recover from it', async () => {
    const ns = await server.namespace('clientgo-errors');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await server.api.create(path, bodyOf('configmaps', 'a'));
    const peer = await start({ kubeConfig: server.kubeConfig(), namespace: ns, watchList: false });
    await peer.waitFor((l) => l.event === 'synced');
    await until(() => server.proxy.open() === 1, { intervalMs: 20, what: 'the watch after the list' });
    server.proxy.failNext(1, { code: 500, on: 'watch' });
    server.proxy.cut(); // the watch ends before its headers came (the proxy sends them with the first event); the next is answered 500
    // The 500's Status message; the cut itself is no error to client-go: it watches again.
    expect(await peer.waitFor((l) => l.event === 'watchError', 30_000)).toEqual({
      event: 'watchError',
      message: 'injected by the fault proxy',
    });
    const b = await server.api.create(path, bodyOf('configmaps', 'b'));
    await peer.waitFor((l) => l.event === 'add' && l.key === `${ns}/b`, 30_000);
    const run = await peer.stop();
    expect(run.store).toEqual((await server.api.get(path)).items.map(identity));
    expect(run.store).toContainEqual(identity(b));
  }, 60_000);

  it('should watch a custom resource through the dynamic informer', async () => {
    const ns = await server.namespace('clientgo-crd');
    await server.api.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'widgets.clientgo.test' },
      spec: {
        group: 'clientgo.test',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const path = `/apis/clientgo.test/v1/namespaces/${ns}/widgets`;
    const served = async () => (await server.api.call('GET', path)).status === 200;
    for (const deadline = Date.now() + 30_000; !(await served()) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    const widget = (name: string) => ({ apiVersion: 'clientgo.test/v1', kind: 'Widget', metadata: { name }, size: 1 });
    await server.api.create(path, widget('a'));
    const peer = await start({
      kubeConfig: server.kubeConfig(),
      group: 'clientgo.test',
      version: 'v1',
      resource: 'widgets',
      namespace: ns,
    });
    expect(peer.lines[0]).toMatchObject({ informer: 'dynamic', contentType: 'application/json', resource: 'clientgo.test/v1/widgets' });
    await peer.waitFor((l) => l.event === 'synced');
    const b = await server.api.create(path, widget('b'));
    expect(await peer.waitFor((l) => l.event === 'add' && l.key === `${ns}/b`)).toEqual({ event: 'add', ...identity(b), initial: false });
    const run = await peer.stop();
    expect(run.store).toEqual((await server.api.get(path)).items.map(identity));
  }, 60_000);

  it('should reject at the start when the peer cannot run, with its fatal line', async () => {
    await expect(startClientGoPeer({ kubeConfig: '/nonexistent/kubeconfig' })).rejects.toThrow(
      /could not start: kubeconfig "\/nonexistent\/kubeconfig"/,
    );
  });

  it('should print a bench result: the sync, then the live events counted', async () => {
    const ns = await server.namespace('clientgo-bench');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    for (const name of ['a', 'b', 'c', 'd']) await server.api.create(path, bodyOf('configmaps', name));
    const peer = await start({ kubeConfig: server.kubeConfig(), namespace: ns, mode: 'bench watch', events: 3, protobuf: true });
    await peer.waitFor((l) => l.event === 'synced');
    for (const name of ['a', 'b', 'c']) await server.api.patch(`${path}/${name}`, { data: { v: 'x' } });
    const run = await peer.exited;
    expect(run.result).toMatchObject({ event: 'result', mode: 'watch', objects: 4, events: 3 });
    expect(run.result!.timedOut).toBeUndefined();
    expect(run.result!.ms).toBeGreaterThan(0);
    expect(run.result!.syncMs).toBeGreaterThan(0);
  }, 60_000);
});

/** A watch-list (one watch with sendInitialEvents, no list) or a list then a watch, in the content type asked for. */
function expectInitialRequests(lines: readonly PeerLine[], watchList: boolean, protobuf: boolean) {
  const requests = lines.filter((l): l is RequestLine => l.event === 'request');
  const kind = (r: RequestLine) =>
    !/[?&]watch=true/.test(r.url) ? 'list' : r.url.includes('sendInitialEvents=true') ? 'watch-list' : 'watch';
  expect(requests.map((r) => [kind(r), r.status])).toEqual(
    watchList
      ? [['watch-list', 200]]
      : [
          ['list', 200],
          ['watch', 200],
        ].slice(0, Math.max(1, requests.length)),
  );
  expect(requests[0].contentType).toMatch(protobuf ? /^application\/vnd\.kubernetes\.protobuf/ : /^application\/json/);
}

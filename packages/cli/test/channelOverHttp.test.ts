import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  fetchListerWatcher,
  type KubeObject,
  type ListerWatcherSource,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import {
  channelListerWatcherSource,
  createInformerServer,
  inProcessConnections,
  type ChannelConnection,
  type ServerMessage,
} from '@rxinformer/core/channel';
import { until } from '@rxinformer/testing';
import { apiChurn, serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const FAST = { reflector: { backoff: { initialMs: 50, maxMs: 1000 } } };

// Differential, over real HTTP: an informer over the channel (a server of a factory's informers
// over fetch, as a SharedWorker or a hub runs it) and an informer straight over fetch watch the
// same configmaps through churn, a relist of the server's informer (a compaction and a restart
// while it is blind) and a dropped channel; both must end with the server's list, and the channel
// must carry differences, never the whole cache again.
describe.each(serverKinds())('an informer over the channel against the %s server', (kind) => {
  let server: TestServer;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const c of cleanups.splice(0)) c();
    await server?.close();
  });

  it('should converge to the store of an informer over HTTP, resuming from differences after a server relist and a dropped channel', async () => {
    const ns = await server.namespace('channel');
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    const churn = apiChurn(server.api, { collections: [collection], make: (name) => ({ metadata: { name }, data: { v: '0' } }), seed: 35 });
    await churn.seed(40);
    const http = server.fetchOptions();
    const source: ListerWatcherSource = (resource, scope) => fetchListerWatcher({ ...http, resource, ...scope });

    // The server's side: a factory's informers, served over the channel.
    const hub = createInformerFactory(source, { namespace: ns });
    const hubInformer = hub.informerFor(CONFIGMAPS, FAST);
    hub.start();
    const informerServer = createInformerServer({ informerFor: (resource, scope) => hub.informerFor(resource, scope) });
    const wire = countedConnections();
    const channel = channelListerWatcherSource(() => {
      const [client, end] = inProcessConnections();
      informerServer.serve(wire.counted(end));
      return (wire.current = client);
    });
    const tab = createInformerFactory(channel, { namespace: ns });
    const mirror = tab.informerFor(CONFIGMAPS, FAST);
    const direct = createInformerFactory(source, { namespace: ns });
    const straight = direct.informerFor(CONFIGMAPS, FAST);
    cleanups.push(() => {
      tab.shutdown();
      channel.close();
      direct.shutdown();
      informerServer.shutdown();
      hub.shutdown();
    });
    tab.start();
    direct.start();
    const converge = convergence(server, collection, mirror, straight);
    const size = (await converge('the initial list')).length;
    expect(wire.objects()).toBe(size);

    await churn.run({ count: 40 }).done;
    await converge('churn');

    // The server's informer blind, then a compaction and a restart: it relists, and the channel
    // carries its differences to the tab, which never relists.
    const [hubRelists, sentBefore] = [relistsOf(hubInformer), wire.objects()];
    server.proxy.stall();
    const changes = churn.run({ count: 12, mix: { create: 1, update: 3, delete: 1, recreate: 1 } });
    await changes.done;
    await server.compact();
    await server.restart();
    server.proxy.cut();
    const afterRelist = await converge('a relist of the server informer');
    expect(relistsOf(hubInformer)).toBeGreaterThan(hubRelists);
    expect(relistsOf(mirror)).toBe(0);
    const counters = changes.counters;
    const written = counters.created + counters.updated + counters.deleted + 2 * counters.recreated;
    expect(wire.objects() - sentBefore).toBeLessThanOrEqual(written);
    expect(wire.objects() - sentBefore).toBeLessThan(afterRelist.length);

    // The channel drops: the tab reconnects and resumes from the server's history.
    let seenByHub = 0;
    const counting = hubInformer.events$.subscribe(() => seenByHub++);
    const sentBeforeDrop = wire.objects();
    wire.current?.close();
    await churn.run({ count: 10, mix: { update: 1 } }).done;
    await converge('a dropped channel');
    counting.unsubscribe();
    expect(wire.connections).toBe(2);
    expect(wire.objects() - sentBeforeDrop).toBe(seenByHub);
    expect(seenByHub).toBeGreaterThanOrEqual(10);
    expect(relistsOf(mirror)).toBe(0);
    console.log(
      `${kind}: ${size} objects listed; relist of the server informer: ${sentBeforeDrop - sentBefore} objects sent for ${written} writes ` +
        `(cache ${afterRelist.length}); dropped channel: ${wire.objects() - sentBeforeDrop} sent for ${seenByHub} events`,
    );
  }, 300_000);
});

/** The server ends of the channel's connections, counting the objects sent (list items and events, bookmarks aside). */
function countedConnections() {
  let objects = 0;
  const wire = {
    current: undefined as ChannelConnection | undefined,
    connections: 0,
    objects: () => objects,
    counted: (end: ChannelConnection): ChannelConnection => {
      wire.connections++;
      return {
        ...end,
        send: (m) => {
          const message = m as ServerMessage;
          if (message.t === 'page') objects += message.page.items.length;
          if (message.t === 'events') objects += message.events.filter((e) => e.type !== 'BOOKMARK').length;
          end.send(m);
        },
      };
    },
  };
  return wire;
}

function relistsOf(informer: SharedInformer<KubeObject>): number {
  let relists = 0;
  informer.status$.subscribe((s) => (relists = s.relistCount)).unsubscribe();
  return relists;
}

/** `name=uid@rv`, sorted. */
const view = (objects: readonly KubeObject[]) =>
  objects.map((o) => `${o.metadata?.name}=${o.metadata?.uid}@${o.metadata?.resourceVersion}`).sort();

/** Waits until both informers hold the server's list of `collection`; resolves to that list. */
function convergence(server: TestServer, collection: string, mirror: SharedInformer<KubeObject>, straight: SharedInformer<KubeObject>) {
  return async (step: string): Promise<string[]> => {
    const want = view((await server.api.get(collection)).items as KubeObject[]);
    const same = (informer: SharedInformer<KubeObject>) => JSON.stringify(view(informer.getStore().list())) === JSON.stringify(want);
    await until(() => same(mirror) && same(straight), {
      timeoutMs: 120_000,
      intervalMs: 50,
      what: `both informers at the server's list after ${step}`,
    });
    return want;
  };
}

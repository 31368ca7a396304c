import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  type InformerFactory,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import type { Socket } from 'node:net';
import { allowAllAuthorizerForTests, startTestHub, tabSource, tokenTableAuthenticatorForTests, type TestHub } from './hubKit.ts';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const KB = 1024;

// A tab whose socket stops reading (its TCP reader paused for real): the hub holds its events
// coalesced by key once the socket's buffer passes the high water, and past its budget sends a 410,
// so the tab relists from the hub's cache when it reads again; either way it converges.
describe.each(serverKinds())('a slow tab on the hub against the %s server', (kind) => {
  let server: TestServer;
  let hub: TestHub;
  const factories: InformerFactory[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
    hub = await startTestHub(server, {
      authenticator: tokenTableAuthenticatorForTests({ t: { username: 'slow', groups: [] } }),
      authorizer: allowAllAuthorizerForTests,
      limits: { highWaterBytes: 64 * KB, maxPendingBytes: 1536 * KB },
    });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of factories.splice(0)) f.shutdown();
    await hub?.close();
    await server?.close();
  });

  it('should coalesce the updates of a paused reader by key, and resync it past the budget', async () => {
    const ns = await server.namespace('slow');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const write = async (name: string, size: number, v: number) => {
      const body = { metadata: { name }, data: { v: String(v), pad: 'x'.repeat(size) } };
      const found = await server.api.find(`${path}/${name}`);
      return found ? server.api.update(`${path}/${name}`, { ...body, metadata: { ...found.metadata } }) : server.api.create(path, body);
    };
    for (const n of ['filler', 'a', 'b', 'c']) await write(n, 1 * KB, 0);
    const { source, wire } = tabSource(hub.url, 't');
    const factory = createInformerFactory(source, { namespace: ns });
    factories.push(factory);
    const informer = factory.informerFor(CONFIGMAPS);
    factory.start();
    const converge = async (step: string) => {
      const want = view((await server.api.get(path)).items as KubeObject[]);
      await until(() => JSON.stringify(view(informer.getStore().list())) === JSON.stringify(want), {
        timeoutMs: 60_000,
        what: `the tab after ${step}`,
      });
    };
    await converge('the initial list');
    const socket = (wire.sockets[0] as unknown as { _socket: Socket })._socket;
    // Fills the socket's buffers (the kernel's first) with a large object until the hub holds events.
    const congest = async () => {
      for (let v = 1; hub.hub.metrics().eventsCoalesced === 0 || v < 3; v++) {
        if (v > 400) throw new Error('the hub never held an event for the paused tab');
        await write('filler', 700 * KB, v);
      }
    };

    socket.pause();
    await congest();
    const before = wire.objects;
    for (let v = 1; v <= 10; v++) for (const n of ['a', 'b', 'c']) await write(n, 100 * KB, v);
    const { eventsCoalesced } = hub.hub.metrics();
    socket.resume();
    await converge('updates held for a paused reader');
    expect(eventsCoalesced).toBeGreaterThanOrEqual(27); // a, b and c: each of their ten updates but the last
    expect(wire.objects - before).toBeLessThan(30);
    expect(hub.hub.metrics().resyncs).toBe(0);
    expect(relistsOf(informer)).toBe(0);

    socket.pause();
    const coalescedBefore = hub.hub.metrics().eventsCoalesced;
    for (let v = 1; hub.hub.metrics().eventsCoalesced === coalescedBefore; v++) {
      if (v > 400) throw new Error('the hub never held an event for the paused tab');
      await write('filler', 700 * KB, 100 + v);
    }
    for (let i = 0; i < 20; i++) await write(`many-${i}`, 100 * KB, 0);
    await until(() => hub.hub.metrics().resyncs === 1, { what: 'a resync' });
    socket.resume();
    await converge('a resync');
    expect(relistsOf(informer)).toBe(1);
  }, 240_000);
});

const view = (objects: readonly KubeObject[]) => objects.map((o) => `${o.metadata?.name}=${o.metadata?.resourceVersion}`).sort();

function relistsOf(informer: SharedInformer<KubeObject>): number {
  let relists = 0;
  informer.status$.subscribe((s) => (relists = s.relistCount)).unsubscribe();
  return relists;
}

/**
 * A metadata-only informer against a hostile server over real HTTP: one that ignores `as=` and
 * puts objects of another kind (a ConfigMap with a password) into the pods' list and watch, paged
 * and streaming. The declared kind is checked before anything is reduced to metadata, so nothing
 * but pods enters either cache, and the report that the server sent full objects stays on the
 * status after good events.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { metadataOnly, NotPartialMetadataError, type KubeObject, type ReflectorStatus } from '@rxinformer/core';
import { INITIAL_EVENTS_END_ANNOTATION } from '@rxinformer/core/http';
import { UnexpectedTypeError } from '@rxinformer/core/reflector';
import { createKubeInformerFactory, pods } from '../src/index.ts';
import { startRawServer, type RawServer } from './rawServer.ts';
import { serverKubeConfig, waitFor } from './simHarness.ts';

const pod = (name: string, rv: string): KubeObject =>
  ({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  }) as KubeObject;
const configMap = (name: string, rv: string): KubeObject =>
  ({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv },
    data: { password: 'hunter2' },
  }) as KubeObject;
const list = (items: KubeObject[], token?: string) =>
  JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '10', ...(token && { continue: token }) }, items });
const line = (type: string, object: KubeObject) => JSON.stringify({ type, object }) + '\n';

/**
 * Pods with ConfigMaps among them, whatever Accept asks: two pages (a ConfigMap on each), a
 * streaming list (one streamed ConfigMap), then a watch that sends a ConfigMap and a pod and stays open.
 */
function hostile(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname !== '/api/v1/pods') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' });
  if (url.searchParams.get('watch') !== 'true') {
    if (url.searchParams.get('continue') === 'c1') return void res.end(list([pod('p2', '7'), configMap('cm3', '8')]));
    return void res.end(list([pod('p1', '5'), configMap('cm2', '6')], 'c1'));
  }
  if (url.searchParams.get('sendInitialEvents') === 'true') {
    res.write(line('ADDED', pod('p1', '5')) + line('ADDED', configMap('cm2', '6')) + line('ADDED', pod('p2', '7')));
    const end = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { resourceVersion: '10', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
    };
    res.write(line('BOOKMARK', end as KubeObject));
  }
  res.write(line('ADDED', configMap('cm', '11')) + line('ADDED', pod('q', '12')));
}

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
  server.handler = hostile;
});
afterAll(() => server.close());

describe.each([
  ['a paged list', { pageSize: 2, useStreamingList: false }],
  ['a streaming list', {}],
])('a metadata-only informer of pods over %s, given ConfigMaps by a server that ignores as=', (_how, listing) => {
  it('should cache only the pods, reduced, as the full informer does, and keep reporting the full objects', async () => {
    const factory = createKubeInformerFactory(serverKubeConfig(server.url));
    try {
      const podMeta = factory.informerFor(metadataOnly(pods), { reflector: listing });
      const full = factory.informerFor(pods, { reflector: listing });
      const statuses: ReflectorStatus[] = [];
      podMeta.status$.subscribe((s) => statuses.push(s));
      factory.start();
      await factory.waitForCacheSync();
      expect(await waitFor(() => podMeta.getStore().size >= 3 && full.getStore().size >= 3)).toBe(true);
      expect([...full.getStore().keys()].sort()).toEqual(['default/p1', 'default/p2', 'default/q']);
      expect([...podMeta.getStore().keys()].sort()).toEqual(['default/p1', 'default/p2', 'default/q']);
      expect(
        podMeta
          .getStore()
          .list()
          .every((o) => o.kind === 'PartialObjectMetadata' && Object.keys(o).length === 3),
      ).toBe(true);
      expect(JSON.stringify(podMeta.getStore().list())).not.toContain('hunter2');
      // The ConfigMaps were skipped as objects of another type, not reduced.
      const skipped = statuses.flatMap((s) => (s.lastError instanceof UnexpectedTypeError ? [s.lastError] : []));
      expect(skipped.map((e) => (e.object as KubeObject).kind)).toContain('ConfigMap');
      // The server's full objects are still reported after the good events that followed.
      const latest = statuses[statuses.length - 1];
      expect(latest.warning).toBeInstanceOf(NotPartialMetadataError);
      expect((latest.warning as NotPartialMetadataError).object).toMatchObject({ kind: 'Pod' });
    } finally {
      await factory.close();
    }
  });
});

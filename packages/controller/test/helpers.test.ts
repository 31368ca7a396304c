/**
 * Finalizers, owner references and the event recorder against the simulator and a real
 * kube-apiserver, through fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import {
  createEventRecorder,
  fetchApiClient,
  finalizer,
  isNotFound,
  ownerKey,
  resourceApi,
  setControllerReference,
  type ApiClient,
  type ResourceApi,
} from '../src/index.ts';
import { configMaps, type ConfigMap } from './kit.ts';

describe.each(serverKinds())('controller helpers against the %s server', (kind) => {
  let server: TestServer;
  let ns: string;
  let client: ApiClient;
  let cms: ResourceApi<ConfigMap>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    ns = await server.namespace('helpers');
    client = fetchApiClient(server.fetchOptions());
    cms = resourceApi(client, configMaps);
  }, START_TIMEOUT_MS);
  afterAll(() => server?.close());
  const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data: { a: '1' } });

  it('should add the finalizer before apply, and on deletion run cleanup then release the object', async () => {
    const name = 'example.com/cleanup';
    const log: string[] = [];
    const handlers = {
      apply: (o: ConfigMap) => void log.push(`apply ${String(o.metadata!.finalizers)}`),
      cleanup: (o: ConfigMap) => void log.push(`cleanup ${o.metadata!.deletionTimestamp ? 'deleting' : 'live'}`),
    };
    const created = await cms.create(cm('fin'));
    const first = await finalizer(cms, name, created, handlers);
    expect(first).toMatchObject({ event: 'apply', object: { metadata: { finalizers: [name] } } });
    const again = await finalizer(cms, name, first.object, handlers);
    expect(again.object).toBe(first.object); // nothing written: the finalizer is there
    await cms.delete({ namespace: ns, name: 'fin' });
    const deleting = await cms.get({ namespace: ns, name: 'fin' });
    expect(deleting.metadata!.deletionTimestamp).toBeDefined();
    expect(await finalizer(cms, name, deleting, handlers)).toMatchObject({ event: 'cleanup' });
    expect(log).toEqual([`apply ${name}`, `apply ${name}`, 'cleanup deleting']);
    expect(isNotFound(await cms.get({ namespace: ns, name: 'fin' }).catch((e: unknown) => e))).toBe(true);
    await expect(finalizer(cms, 'no-domain', created, handlers)).rejects.toThrow(/qualified/);
  });

  it('should write a controller owner reference the server accepts, and key the owned object to its owner', async () => {
    const owner = await cms.create(cm('owner'));
    const { object } = await cms.createOrUpdate(cm('owned'), (d) => void setControllerReference(owner, d));
    expect(object.metadata!.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(ownerKey(object, { kind: 'ConfigMap', apiVersion: 'v1' })).toBe(`${ns}/owner`);
    // Set again: unchanged, nothing to write.
    expect((await cms.createOrUpdate(cm('owned'), (d) => void setControllerReference(owner, d))).result).toBe('unchanged');
  });

  it('should record events.k8s.io/v1 Events with a series count, in the regarding object namespace', async () => {
    const recorder = createEventRecorder({
      client,
      reportingController: 'example.com/replicator',
      reportingInstance: 'replicator-0',
      onError: (e) => {
        throw e;
      },
    });
    const regarding = await cms.create(cm('regarded'));
    const related = await cms.get({ namespace: ns, name: 'owner' });
    const info = { type: 'Warning', reason: 'FailedReplicate', action: 'Replicate', note: 'namespace b is gone', related } as const;
    recorder.event(regarding, info);
    recorder.event(regarding, info);
    recorder.event(regarding, info);
    recorder.event(regarding, { ...info, type: 'Normal', reason: 'Replicated', note: 'copied' });
    await recorder.stop();
    const list = (await client.request({ method: 'GET', path: `/apis/events.k8s.io/v1/namespaces/${ns}/events` })) as {
      items: KubeObject[];
    };
    const events = list.items.filter((e) => (e as { regarding?: { name?: string } }).regarding?.name === 'regarded');
    expect(events).toHaveLength(2);
    const failed = events.find((e) => (e as { reason?: string }).reason === 'FailedReplicate');
    expect(failed).toMatchObject({
      type: 'Warning',
      action: 'Replicate',
      note: 'namespace b is gone',
      reportingController: 'example.com/replicator',
      reportingInstance: 'replicator-0',
      regarding: { kind: 'ConfigMap', name: 'regarded', uid: regarding.metadata!.uid },
      related: { kind: 'ConfigMap', name: 'owner' },
      series: { count: 3 },
    });
  });
});

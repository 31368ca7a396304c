/**
 * Keys that name no object of the primary never reach a reconcile, against the simulator and a real
 * kube-apiserver: an ownerReference named `.` (which the server accepts from anyone who can create
 * an object) would be the key `ns/.`, and a reconcile that cleans up by name would delete
 * `configmaps/.` — the whole collection once a URL parser resolved it. The builder reports such a
 * key on `onError` / `errors$` and queues the event's other keys as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createInformerFactory, fetchListerWatcher, InvalidPathSegmentError, type KubeObject } from '@rxinformer/core';
import type { ControllerError } from '../src/index.ts';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { until } from '@rxinformer/testing';
import { controllerFor, fetchApiClient, InvalidSourceKeyError, type MapToKeys, type RunningController } from '../src/index.ts';
import { configMaps, secrets } from './kit.ts';

describe.each(serverKinds())('keys a source cannot give, against the %s server', (kind) => {
  let server: TestServer;
  const running: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const stop of running) await stop();
    await server?.close();
  });

  /**
   * A controller of the ConfigMaps of `ns` with `secrets` as its second source, whose reconcile
   * deletes by name what the cache does not hold (a cleanup, as a reconcile of a deleted object
   * does); what it reconciled and what it reported.
   */
  const start = (ns: string, how: 'owns' | MapToKeys<KubeObject>) => {
    const factory = createInformerFactory(
      (resource, scope) => fetchListerWatcher({ ...server.fetchOptions(), resource, namespace: scope.namespace }),
      { namespace: ns },
    );
    const reconciled: string[] = [];
    const reported: ControllerError<string>[] = [];
    const builder = controllerFor(factory, configMaps, {
      name: `keys-${kind}`,
      client: fetchApiClient(server.fetchOptions()),
      onError: (e) => reported.push(e),
    });
    const withSource = how === 'owns' ? builder.owns(secrets) : builder.watches(secrets, how);
    const run: RunningController = withSource
      .reconcile(async ({ namespace, name, object, api }) => {
        reconciled.push(name);
        if (object === undefined) await api(configMaps).delete({ namespace, name });
      })
      .start();
    running.push(async () => {
      await run.stop();
      factory.shutdown();
    });
    return { reconciled, reported, run };
  };
  const names = async (ns: string) =>
    (await server.api.get<{ items: KubeObject[] }>(`/api/v1/namespaces/${ns}/configmaps`)).items.map((i) => i.metadata!.name);

  it('should report an owner reference named . instead of queueing ns/., and still reconcile the former owner', async () => {
    const ns = await server.namespace('owner-dot');
    const base = `/api/v1/namespaces/${ns}`;
    const good = await server.api.create<KubeObject>(`${base}/configmaps`, { metadata: { name: 'good' } });
    await server.api.create(`${base}/configmaps`, { metadata: { name: 'other' } });
    const ref = (name: string, uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, controller: true });
    const dot = ref('.', '0e0e0e0e-0000-4000-8000-000000000001');
    await server.api.create(`${base}/secrets`, { metadata: { name: 'bad', ownerReferences: [dot] } }); // accepted
    await server.api.create(`${base}/secrets`, { metadata: { name: 's', ownerReferences: [ref('good', good.metadata!.uid!)] } });
    const { reconciled, reported } = start(ns, 'owns');
    await until(() => reconciled.includes('good') && reconciled.includes('other') && reported.length === 1, { timeoutMs: 15_000 });
    // The owner moves from good to `.`: good is reconciled (it lost its secret), `.` is reported.
    const before = reconciled.filter((n) => n === 'good').length;
    await server.api.patch(`${base}/secrets/s`, { metadata: { ownerReferences: [dot] } });
    await until(() => reconciled.filter((n) => n === 'good').length > before && reported.length === 2, { timeoutMs: 15_000 });
    expect(reconciled.filter((n) => n !== 'good' && n !== 'other')).toEqual([]);
    expect(await names(ns)).toEqual(['good', 'other']);
    for (const [i, objectKey] of [`${ns}/bad`, `${ns}/s`].entries()) {
      const { key, error, dropped } = reported[i];
      expect({ key, dropped, error }).toEqual({ key: undefined, dropped: true, error: expect.any(InvalidSourceKeyError) });
      const e = error as InvalidSourceKeyError;
      expect([e.source, e.objectKey, e.cause]).toEqual([`keys-${kind}/owns/secrets`, objectKey, expect.any(InvalidPathSegmentError)]);
      expect(e.message).toBe(
        `keys-${kind}/owns/secrets: ${objectKey} gave no key, refused: invalid owner reference name ".": may not be '.'`,
      );
    }
  });

  it("should report each key a mapper gives that names no ConfigMap, and reconcile the event's good key", async () => {
    const ns = await server.namespace('mapper-keys');
    const base = `/api/v1/namespaces/${ns}`;
    for (const name of ['good', 'other']) await server.api.create(`${base}/configmaps`, { metadata: { name } });
    const bad = [`${ns}/.`, `${ns}/..`, `${ns}/a/b`, `${ns}/x%y`, 'good', `../good`, `${ns}/`];
    const keys = [`${ns}/good`, ...bad];
    await server.api.create(`${base}/secrets`, { metadata: { name: 'pointer', annotations: { keys: JSON.stringify(keys) } } });
    const keysOf = (s: KubeObject | undefined): string[] => JSON.parse(s?.metadata?.annotations?.keys ?? '[]');
    const { reconciled, reported } = start(ns, (oldObj, newObj) => [...keysOf(oldObj), ...keysOf(newObj)]);
    await until(() => reconciled.includes('good') && reported.length === bad.length, { timeoutMs: 15_000 });
    expect(reported.map((r) => r.key)).toEqual(bad);
    expect(reported.every((r) => r.error instanceof InvalidSourceKeyError && r.dropped)).toBe(true);
    expect((reported[0].error as Error).message).toBe(
      `keys-${kind}/watches/secrets: ${ns}/pointer gave the key "${ns}/.", refused: invalid name ".": may not be '.'`,
    );
    expect((reported[4].error as Error).message).toMatch(/invalid key "good": a key of configmaps \(namespaced\) is namespace\/name$/);
    expect(reconciled.filter((n) => n !== 'good' && n !== 'other')).toEqual([]);
    expect(await names(ns)).toEqual(['good', 'other']);
  });
});

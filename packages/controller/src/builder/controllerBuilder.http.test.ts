/**
 * The builder over real HTTP, against the simulator and a real kube-apiserver: a late start on
 * warm caches, owned objects and watched objects mapped from their old and new state, retries,
 * and one key never in two workers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createInformerFactory,
  fetchListerWatcher,
  type InformerFactory,
  type KubeObject,
  type ResourceDescriptor,
} from '@rxinformer/core';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { until } from '@rxinformer/testing';
import { controllerFor } from './controllerBuilder.ts';
import type { RunningController } from './controller.ts';
import { labelsChanged } from './predicates.ts';

const configMaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const secrets: ResourceDescriptor = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };

describe.each(serverKinds())('controllerFor against the %s server', (kind) => {
  let server: TestServer;
  const open: { factory: InformerFactory; run?: RunningController }[] = [];
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { seed: 7 } });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    for (const o of open) {
      await o.run?.stop();
      o.factory.shutdown();
    }
    await server?.close();
  });

  /** A factory of one namespace over HTTP, shut down after the tests. */
  const factoryIn = (namespace: string) => {
    const factory = createInformerFactory(
      (resource, scope) => fetchListerWatcher({ ...server.fetchOptions(), resource, namespace: scope.namespace }),
      {
        namespace,
      },
    );
    open.push({ factory });
    return factory;
  };
  /** A reconcile that counts its calls per name; `calls` in order. */
  const counting = () => {
    const counts = new Map<string, number>();
    const calls: string[] = [];
    const record = (name: string) => {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      calls.push(name);
    };
    return { counts, calls, record };
  };
  const cm = (name: string, labels?: Record<string, string>) => ({ metadata: { name, labels }, data: { v: '1' } });

  it('should reconcile every cached object when started late on warm caches, as a new leader does', async () => {
    const ns = await server.namespace('warm');
    const names = Array.from({ length: 12 }, (_, i) => `cm-${i}`);
    for (const n of names) await server.api.create(`/api/v1/namespaces/${ns}/configmaps`, cm(n));
    const factory = factoryIn(ns);
    const { counts, record } = counting();
    const seen: string[] = [];
    const ctl = controllerFor(factory, configMaps, { name: `warm-${kind}` }).reconcile(async ({ key, name, namespace, object }) => {
      record(name);
      seen.push(`${key}=${namespace}/${name}:${object === undefined ? 'gone' : object.metadata?.name}`);
    });
    factory.start();
    await factory.waitForCacheSync(); // a standby replica: caches warm, not leading
    await new Promise((r) => setTimeout(r, 200));
    expect(counts.size).toBe(0);
    const run = ctl.start(); // becomes leader
    open.push({ factory, run });
    await until(() => counts.size === names.length, { timeoutMs: 15_000 });
    expect([...counts.keys()].sort()).toEqual([...names].sort());
    await server.api.delete(`/api/v1/namespaces/${ns}/configmaps/cm-3`);
    await until(() => counts.get('cm-3') === 2, { timeoutMs: 15_000 });
    expect(seen.filter((s) => s.startsWith(`${ns}/cm-3=`))).toEqual([`${ns}/cm-3=${ns}/cm-3:cm-3`, `${ns}/cm-3=${ns}/cm-3:gone`]);
    await run.stop();
  });

  it('should reconcile the controller owner of the old and the new state of an owned object', async () => {
    const ns = await server.namespace('owns');
    const base = `/api/v1/namespaces/${ns}`;
    const o1 = await server.api.create<KubeObject>(`${base}/configmaps`, cm('o1'));
    const o2 = await server.api.create<KubeObject>(`${base}/configmaps`, cm('o2'));
    const ref = (o: KubeObject, controller = true) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: o.metadata!.name,
      uid: o.metadata!.uid,
      controller,
    });
    await server.api.create(`${base}/secrets`, { metadata: { name: 's', ownerReferences: [ref(o1)] }, stringData: { k: 'v' } });
    const factory = factoryIn(ns);
    const { counts, record } = counting();
    const run = controllerFor(factory, configMaps, { name: `owns-${kind}`, concurrency: 2 })
      .owns(secrets, { predicates: [labelsChanged] })
      .reconcile(async ({ name }) => record(name))
      .start();
    open.push({ factory, run });
    // The lists queue o1 twice (itself, its secret): a key waits once.
    await until(() => counts.get('o1') === 1 && counts.get('o2') === 1, { timeoutMs: 15_000 });
    await server.api.patch(`${base}/secrets/s`, { stringData: { k: 'w' } }); // labels unchanged: filtered out
    await server.api.patch(`${base}/secrets/s`, { metadata: { labels: { moved: 'yes' }, ownerReferences: [ref(o2)] } });
    await until(() => counts.get('o1') === 2 && counts.get('o2') === 2, { timeoutMs: 15_000 });
    await server.api.delete(`${base}/secrets/s`);
    await until(() => counts.get('o2') === 3, { timeoutMs: 15_000 });
    expect(counts.get('o1')).toBe(2);
    await run.stop();
  });

  it('should map a watched object from its old and new state, retry failures, and never run one key twice at once', async () => {
    const ns = await server.namespace('watches');
    const base = `/api/v1/namespaces/${ns}`;
    for (const n of ['t1', 't2', 't3']) await server.api.create(`${base}/configmaps`, cm(n));
    await server.api.create(`${base}/secrets`, { metadata: { name: 'pointer', labels: { target: 't1' } }, stringData: { k: 'v' } });
    const factory = factoryIn(ns);
    const { counts, record } = counting();
    const active = new Set<string>();
    let overlaps = 0;
    let failOnce = true;
    const run = controllerFor(factory, configMaps, { name: `watches-${kind}`, concurrency: 4, queue: { baseDelayMs: 20 } })
      .watches(secrets, (oldObj, newObj) =>
        [oldObj, newObj].map((s) => s?.metadata?.labels?.target).flatMap((t) => (t === undefined ? [] : [`${ns}/${t}`])),
      )
      .reconcile(async ({ name }) => {
        if (active.has(name)) overlaps++;
        active.add(name);
        await new Promise((r) => setTimeout(r, 5));
        active.delete(name);
        record(name);
        if (name === 't3' && failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
      })
      .start();
    open.push({ factory, run });
    const errors: unknown[] = [];
    run.errors$.subscribe((e) => errors.push(e.error));
    await until(() => counts.get('t3') === 2 && counts.get('t1') === 1 && counts.get('t2') === 1, { timeoutMs: 15_000 }); // t3 retried
    expect(errors).toHaveLength(1);
    const before = counts.get('t1')!;
    // The label moves from t1 to t2: both are reconciled (the old target learns it lost it).
    await server.api.patch(`${base}/secrets/pointer`, { metadata: { labels: { target: 't2' } } });
    await until(() => counts.get('t1') === before + 1 && counts.get('t2') === 2, { timeoutMs: 15_000 });
    expect(counts.get('t3')).toBe(2);
    for (let i = 0; i < 5; i++) await server.api.patch(`${base}/configmaps/t3`, { data: { v: String(i) } });
    await until(() => (counts.get('t3') ?? 0) >= 3, { timeoutMs: 15_000 });
    expect(overlaps).toBe(0);
    await run.stop();
  });
});

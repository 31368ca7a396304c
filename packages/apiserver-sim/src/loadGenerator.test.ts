import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { createLoadGenerator, objectStoreTarget, type ChurnTarget } from './loadGenerator.ts';
import { realisticPod } from './realisticPod.ts';
import { startApiServer, type ApiServer } from './index.ts';
import { testScheduler } from '@rxinformer/testing';

/** A Map-backed target that hands out UIDs, to check what the generator does. */
function mapTarget() {
  const objects = new Map<string, KubeObject>();
  let uid = 0;
  const log: string[] = [];
  const target: ChurnTarget = {
    create: (o, ns) => {
      const k = `${ns}/${o.metadata!.name}`;
      if (objects.has(k)) throw new Error('exists');
      objects.set(k, { ...o, metadata: { ...o.metadata, uid: `u${++uid}` } });
      log.push(`create ${k}`);
    },
    update: (o, ns, name) => {
      objects.set(`${ns}/${name}`, o);
      log.push(`update ${ns}/${name}`);
    },
    delete: (ns, name) => {
      objects.delete(`${ns}/${name}`);
      log.push(`delete ${ns}/${name}`);
    },
    get: (ns, name) => objects.get(`${ns}/${name}`),
  };
  return { target, objects, log };
}

describe('realisticPod', () => {
  it('should be about 3-4.5 KB of JSON with managedFields', () => {
    const size = JSON.stringify(realisticPod(7)).length;
    expect(size).toBeGreaterThan(3000);
    expect(size).toBeLessThan(4500);
    expect(realisticPod(7).metadata?.managedFields?.length).toBeGreaterThan(0);
  });
});

describe('createLoadGenerator', () => {
  it('should churn at the given rate in virtual time, with every kind of change, deterministically', () => {
    const runOnce = () => {
      const { target, objects, log } = mapTarget();
      const ts = testScheduler();
      let counters;
      ts.run(({ flush }) => {
        const load = createLoadGenerator({ target, namespaces: ['a', 'b'], seed: 3, scheduler: ts });
        load.seed(50);
        const churn = load.churn({ ratePerSecond: 200, count: 400 });
        ts.schedule(
          () => expect(churn.counters.created + churn.counters.updated + churn.counters.deleted + churn.counters.recreated - 50).toBe(200),
          1002,
        ); // 200 changes in the first second
        flush();
        counters = { ...churn.counters };
      });
      return { counters, size: objects.size, log };
    };
    const a = runOnce();
    const b = runOnce();
    expect(a).toEqual(b); // same seed, same history
    const c = a.counters as unknown as Record<string, number>;
    expect(c.created + c.updated + c.deleted + c.recreated).toBe(450);
    for (const k of ['updated', 'deleted', 'recreated']) expect(c[k]).toBeGreaterThan(0);
    const recreate = a.log.findIndex((l, i) => l.startsWith('delete') && a.log[i + 1] === l.replace('delete', 'create'));
    expect(recreate).toBeGreaterThanOrEqual(0);
  });
});

describe('objectStoreTarget', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 2 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('should drive the simulator: a recreated pod gets a new UID under the same name', () => {
    const target = objectStoreTarget(sim.storage);
    const load = createLoadGenerator({ target, seed: 9 });
    load.seed(3);
    const name = realisticPod(0).metadata!.name!;
    const before = sim.storage.get('pods', 'default', name).metadata?.uid;
    target.delete('default', name);
    target.create({ ...realisticPod(0), metadata: { ...realisticPod(0).metadata, namespace: 'default' } }, 'default');
    expect(sim.storage.get('pods', 'default', name).metadata?.uid).not.toBe(before);
    expect(sim.storage.list('pods', 'default')).toHaveLength(3);
  });

  it('should write unalike pods as a cluster does: the controller creates, the kubelet writes the status, keyed by the pod IP', () => {
    const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces: ['real'], seed: 4, unalike: true });
    sim.storage.create('namespaces', { metadata: { name: 'real' } });
    load.seed(2);
    const [a, b] = sim.storage.list('pods', 'real') as (KubeObject & {
      spec: { volumes: { name: string }[] };
      status: { podIP: string };
    })[];
    const managers = (p: KubeObject) =>
      (p.metadata!.managedFields as { manager: string; subresource?: string }[]).map((e) => [e.manager, e.subresource]);
    expect(managers(a)).toEqual([
      ['kube-controller-manager', undefined],
      ['kubelet', 'status'],
    ]);
    const kubelet = (p: KubeObject) => JSON.stringify((p.metadata!.managedFields as { fieldsV1: unknown }[])[1].fieldsV1);
    expect(kubelet(a)).toContain(`k:{\\"ip\\":\\"${a.status.podIP}\\"}`);
    expect(kubelet(a)).not.toBe(kubelet(b));
    expect(a.spec.volumes[0].name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(a.spec.volumes[0].name).not.toBe(b.spec.volumes[0].name);
    expect(a.status).toEqual((realisticPod(0, { unalike: true }) as typeof a).status); // the status survived its own write
  });
});

describe('realisticPod unalike', () => {
  it("should differ between pods where a real cluster's do, and leave the default pods as they were", () => {
    const [a, b] = [realisticPod(1, { unalike: true }), realisticPod(2, { unalike: true })] as (KubeObject &
      Record<string, any> & { metadata: { managedFields: unknown[] } })[];
    expect(a.spec.volumes[0].name).not.toBe(b.spec.volumes[0].name);
    expect(a.spec.containers[0].volumeMounts[0].name).toBe(a.spec.volumes[0].name);
    expect(new Set(a.status.conditions.map((c: { lastTransitionTime: string }) => c.lastTransitionTime)).size).toBe(3);
    expect(JSON.stringify(a.metadata.managedFields[1])).not.toBe(JSON.stringify(b.metadata.managedFields[1]));
    const [c, d] = [realisticPod(1), realisticPod(2)] as (KubeObject & Record<string, any>)[];
    expect(c.spec.volumes).toEqual(d.spec.volumes);
  });
});

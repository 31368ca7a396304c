import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { realisticPod, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { createKubeInformerFactory, pods, type KubeInformerFactory } from '@rxinformer/client-node';
import type { KubeObject } from '@rxinformer/core';
import { LAST_APPLIED_ANNOTATION, slimTransform } from './slimTransform.ts';

/** A realistic pod as `kubectl apply` leaves it: the applied manifest again in an annotation. */
function appliedPod(i: number): KubeObject {
  const pod = realisticPod(i) as V1Pod;
  const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod.metadata!.name, labels: pod.metadata!.labels }, spec: pod.spec };
  pod.metadata!.annotations = { ...pod.metadata!.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(manifest) + '\n' };
  return pod as KubeObject;
}

const jsonBytes = (objects: readonly KubeObject[]) => objects.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);

describe('slimTransform', () => {
  it('should drop managedFields and the last-applied annotation, and keep everything else', () => {
    const pod = appliedPod(1);
    const before = structuredClone(pod);
    const slim = slimTransform()(pod);
    expect(slim).toBe(pod); // mutated in place: the store freezes it next
    expect(slim.metadata!.managedFields).toBeUndefined();
    expect(Object.keys(slim.metadata!.annotations!).sort()).toEqual(
      Object.keys(before.metadata!.annotations!)
        .filter((k) => k !== LAST_APPLIED_ANNOTATION)
        .sort(),
    );
    const { managedFields: _m, annotations: _a, ...restBefore } = before.metadata!;
    const { annotations: _b, ...restAfter } = slim.metadata!;
    expect(restAfter).toEqual(restBefore);
    expect({ ...slim, metadata: undefined }).toEqual({ ...before, metadata: undefined });
  });

  it('should drop annotations longer than maxAnnotationLength, and keep managedFields when asked', () => {
    const pod: KubeObject = {
      metadata: { name: 'p', managedFields: [{ manager: 'm' }], annotations: { small: 'x', big: 'y'.repeat(5000) } },
    };
    slimTransform({ dropManagedFields: false, dropAnnotations: [], maxAnnotationLength: 4096 })(pod);
    expect(pod.metadata).toEqual({ name: 'p', managedFields: [{ manager: 'm' }], annotations: { small: 'x' } });
  });

  it('should return an object without metadata as is', () => {
    const obj = { kind: 'Thing' } as KubeObject;
    expect(slimTransform()(obj)).toEqual({ kind: 'Thing' });
  });
});

describe('slimTransform in an informer factory against the simulator', () => {
  const count = 200;
  let sim: ApiServer;
  const factories: KubeInformerFactory[] = [];
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 12 });
    for (let i = 0; i < count; i++) sim.storage.create('pods', appliedPod(i), 'default');
  });
  afterAll(async () => {
    for (const f of factories) await f.close();
    await sim.close();
  });

  it('should cache frozen, slimmer pods that differ from the full ones only in what was dropped', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const full = createKubeInformerFactory(kc, { namespace: 'default' });
    const slim = createKubeInformerFactory(kc, { namespace: 'default', transform: slimTransform() });
    factories.push(full, slim);
    const fullPods = full.informerFor(pods);
    const slimPods = slim.informerFor(pods);
    full.start();
    slim.start();
    await Promise.all([full.waitForCacheSync(), slim.waitForCacheSync()]);

    const fullList = fullPods.getStore().list();
    const slimList = slimPods.getStore().list();
    expect(slimList.length).toBe(count);
    for (const s of slimList) {
      const f = fullPods.getStore().get(`default/${s.metadata!.name}`)!;
      expect(f.metadata!.managedFields!.length).toBeGreaterThan(0);
      expect(f.metadata!.annotations![LAST_APPLIED_ANNOTATION]).toBeDefined();
      expect(s.metadata!.managedFields).toBeUndefined();
      expect(s.metadata!.annotations![LAST_APPLIED_ANNOTATION]).toBeUndefined();
      expect({ ...s, metadata: { ...s.metadata, annotations: undefined } }).toEqual({
        ...f,
        metadata: { ...f.metadata, managedFields: undefined, annotations: undefined },
      });
      expect(Object.isFrozen(s.metadata)).toBe(true);
    }
    // What it saves, in JSON bytes of the cached objects (the retained heap follows the same shape).
    expect(jsonBytes(slimList) / jsonBytes(fullList)).toBeLessThan(0.6);
  });
});

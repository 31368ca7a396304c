import { describe, expect, it } from '@jest/globals';
import { InvalidObjectError, type KubeObject } from '@rxinformer/core';
import { AlreadyOwnedError, controllerOf, InvalidOwnerError, ownerKey, setControllerReference } from './owners.ts';

const owner = (name: string, uid: string, namespace?: string): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Replicator',
  metadata: { name, uid, namespace },
});

describe('owner references', () => {
  it('should make the owner the controller, blocking its deletion, and give its key', () => {
    const cm: KubeObject = {
      metadata: { name: 'copy', namespace: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Other', name: 'o', uid: '9' }] },
    };
    setControllerReference(owner('r', '1', 'a'), cm);
    expect(cm.metadata!.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Other', name: 'o', uid: '9' },
      { apiVersion: 'example.com/v1', kind: 'Replicator', name: 'r', uid: '1', controller: true, blockOwnerDeletion: true },
    ]);
    expect(controllerOf(cm)?.name).toBe('r');
    expect(ownerKey(cm, { kind: 'Replicator' })).toBe('a/r');
    expect(ownerKey(cm, { kind: 'Replicator', apiVersion: 'example.com/v2' })).toBe('a/r');
    expect(ownerKey(cm, { kind: 'Replicator', apiVersion: 'other.io/v1' })).toBeUndefined();
    expect(ownerKey(cm, { kind: 'Deployment' })).toBeUndefined();
  });

  it('should replace its own reference (a new uid after a recreation) but refuse a second controller', () => {
    const cm: KubeObject = { metadata: { name: 'copy', namespace: 'a' } };
    setControllerReference(owner('r', '1', 'a'), cm);
    setControllerReference({ ...owner('r', '2', 'a'), apiVersion: 'example.com/v2' }, cm);
    expect(cm.metadata!.ownerReferences).toEqual([expect.objectContaining({ uid: '2', controller: true })]);
    expect(() => setControllerReference(owner('s', '3', 'a'), cm)).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(owner('s', '3', 'a'), cm)).toThrow(/already controlled by Replicator "r"/);
  });

  it('should refuse owners that cannot own the object', () => {
    const cm = (): KubeObject => ({ metadata: { name: 'copy', namespace: 'a' } });
    expect(() => setControllerReference(owner('r', '1', 'b'), cm())).toThrow(InvalidOwnerError);
    expect(() => setControllerReference(owner('r', '1', 'b'), { metadata: { name: 'node-thing' } })).toThrow(/cluster-scoped/);
    expect(() => setControllerReference({ kind: 'Replicator', metadata: { name: 'r' } }, cm())).toThrow(InvalidObjectError);
    // a cluster-scoped owner may own a namespaced object
    expect(ownerKey(setControllerReference(owner('r', '1'), cm()), { kind: 'Replicator', clusterScoped: true })).toBe('r');
  });
});

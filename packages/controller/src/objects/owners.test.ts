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
    expect(ownerKey(setControllerReference(owner('r', '1'), cm()), { kind: 'Replicator', namespaced: false })).toBe('r');
  });

  const deployments = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
  const nodes = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
  const owned = (ownerReferences: unknown, namespace = 'ns'): KubeObject => ({
    metadata: { name: 'x', namespace, ownerReferences: ownerReferences as [] },
  });

  it("should key the controller owner of a resource descriptor's group and kind, as the builder's owns does", () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u' };
    expect(
      ownerKey(
        owned([
          { ...ref, name: 'other' },
          { ...ref, controller: true },
        ]),
        deployments,
      ),
    ).toBe('ns/web');
    expect(ownerKey(owned([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'n', controller: true }]), nodes)).toBe('n1');
    // The core group is a group: a descriptor's '' does not match apps.
    expect(ownerKey(owned([{ ...ref, controller: true }]), { ...deployments, group: '' })).toBeUndefined();
  });

  it('should give no key for an owner that is not the controller, of another group or kind, or malformed', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true };
    for (const refs of [
      [{ ...ref, controller: false }],
      [{ ...ref, apiVersion: 'extensions/v1beta1' }],
      [{ ...ref, kind: 'ReplicaSet' }],
      [{ ...ref, name: '' }],
      [{ ...ref, apiVersion: 7 }],
      [null],
      'not a list',
    ]) {
      expect(ownerKey(owned(refs), deployments)).toBeUndefined();
      expect(ownerKey(owned(refs), { kind: 'Deployment', apiVersion: 'apps/v1' })).toBeUndefined();
    }
    expect(controllerOf(owned('not a list'))).toBeUndefined();
    expect(controllerOf(owned([null, { ...ref, name: 'first' }, { ...ref, name: 'second' }]))?.name).toBe('first');
    expect(ownerKey(undefined, deployments)).toBeUndefined();
    expect(ownerKey(owned([ref], ''), deployments)).toBeUndefined(); // a namespaced owner needs the namespace
  });
});

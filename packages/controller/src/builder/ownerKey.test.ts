import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { controllerOwnerKey } from './ownerKey.ts';

const deployments = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
const nodes = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const owned = (ownerReferences: unknown[], namespace = 'ns'): KubeObject => ({ metadata: { name: 'x', namespace, ownerReferences } });

describe('controllerOwnerKey', () => {
  it("should give the controller owner's key when it is of the primary's group and kind", () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u' };
    expect(
      controllerOwnerKey(
        owned([
          { ...ref, name: 'other' },
          { ...ref, controller: true },
        ]),
        deployments,
      ),
    ).toBe('ns/web');
    expect(controllerOwnerKey(owned([{ apiVersion: 'v1', kind: 'Node', name: 'n1', controller: true }]), nodes)).toBe('n1');
  });

  it('should give none for an owner that is not the controller, of another group or kind, or malformed', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true };
    for (const refs of [
      [{ ...ref, controller: false }],
      [{ ...ref, apiVersion: 'extensions/v1beta1' }],
      [{ ...ref, kind: 'ReplicaSet' }],
      [{ ...ref, name: '' }],
      [null],
      'not a list' as unknown as unknown[],
    ])
      expect(controllerOwnerKey(owned(refs), deployments)).toBeUndefined();
    expect(controllerOwnerKey(undefined, deployments)).toBeUndefined();
    expect(controllerOwnerKey(owned([ref], ''), deployments)).toBeUndefined(); // a namespaced owner needs the namespace
  });
});

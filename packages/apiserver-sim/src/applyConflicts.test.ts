import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { applyConflictError, findApplyConflicts, releaseFields } from './applyConflicts.ts';
import { withManagedFields, type ManagedFieldsEntry } from './managedFields.ts';

const T = '2025-01-01T00:00:00Z';
const deployment = (replicas: number, image: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { app: 'd' } },
    spec: {
      replicas,
      template: {
        spec: {
          containers: [
            { name: 'web', image },
            { name: 'log', image: 'fluent:1' },
          ],
        },
      },
    },
  }) as KubeObject;

/** `obj` with managedFields: `owner` applied all of it (`operation`). */
function owned(obj: KubeObject, owner: string, operation: 'Apply' | 'Update'): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, managedFields: withManagedFields(undefined, obj, owner, operation, T) } };
}

describe('findApplyConflicts', () => {
  it('should report leaf fields another manager owns that the apply changes, with their paths', () => {
    const current = owned(deployment(3, 'nginx:1'), 'ci', 'Apply');
    const conflicts = findApplyConflicts(current, deployment(5, 'nginx:2'), 'hpa');
    expect(conflicts.map((c) => c.field)).toEqual(['.spec.replicas', '.spec.template.spec.containers[name="web"].image']);
    expect(conflicts[1]).toMatchObject({
      manager: 'ci',
      operation: 'Apply',
      keys: ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'],
    });
  });

  it("should not conflict on equal values, on the manager's own fields, or on fields nobody owns", () => {
    const current = owned(deployment(3, 'nginx:1'), 'ci', 'Apply');
    expect(findApplyConflicts(current, deployment(3, 'nginx:1'), 'hpa')).toEqual([]);
    expect(findApplyConflicts(current, deployment(9, 'nginx:9'), 'ci')).toEqual([]);
    const extra = { ...deployment(3, 'nginx:1'), spec: { replicas: 3, paused: true } } as KubeObject;
    expect(findApplyConflicts(current, extra, 'hpa')).toEqual([]);
  });

  it('should compare owned metadata labels', () => {
    const current = owned(deployment(3, 'nginx:1'), 'kubectl-create', 'Update');
    const relabel = { ...deployment(3, 'nginx:1'), metadata: { name: 'd', labels: { app: 'other' } } } as KubeObject;
    expect(findApplyConflicts(current, relabel, 'ci')).toMatchObject([
      { field: '.metadata.labels.app', manager: 'kubectl-create', operation: 'Update' },
    ]);
  });
});

describe('applyConflictError', () => {
  it('should be a 409 Conflict Status with one FieldManagerConflict cause per field', () => {
    const current = owned(deployment(3, 'nginx:1'), 'kubectl-create', 'Update');
    const e = applyConflictError(findApplyConflicts(current, deployment(4, 'nginx:1'), 'ci'));
    expect(e.status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.replicas',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using apps/v1', field: '.spec.replicas' }],
      },
    });
  });
});

describe('releaseFields', () => {
  it('should take the conflicting fields away from their owner without mutating the entries', () => {
    const current = owned(deployment(3, 'nginx:1'), 'ci', 'Apply');
    const entries = current.metadata!.managedFields as ManagedFieldsEntry[];
    const before = JSON.stringify(entries);
    const conflicts = findApplyConflicts(current, deployment(5, 'nginx:2'), 'hpa');
    const [ci] = releaseFields(entries, conflicts);
    expect(JSON.stringify(entries)).toBe(before);
    const spec = ci.fieldsV1['f:spec'] as any;
    expect(spec['f:replicas']).toBeUndefined();
    expect(spec['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:image']).toBeUndefined();
    expect(spec['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:name']).toEqual({});
    expect(spec['f:template']['f:spec']['f:containers']['k:{"name":"log"}']['f:image']).toEqual({});
  });

  it('should drop an entry left owning nothing', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } as KubeObject;
    const current = owned(cm, 'ci', 'Apply');
    const conflicts = findApplyConflicts(current, { ...cm, data: { a: '2' } } as KubeObject, 'other');
    expect(releaseFields(current.metadata!.managedFields as ManagedFieldsEntry[], conflicts)).toEqual([]);
  });
});

describe('status subresource applies', () => {
  const podWith = (status: Record<string, unknown>, entries: ManagedFieldsEntry[]): KubeObject =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: entries }, spec: { nodeName: 'n1' }, status }) as KubeObject;
  const kubelet: ManagedFieldsEntry = {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: T,
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {} } },
    subresource: 'status',
  };
  const creator: ManagedFieldsEntry = {
    manager: 'creator',
    operation: 'Update',
    apiVersion: 'v1',
    time: T,
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:nodeName': {} } },
  };

  it('should compare only status, against every manager owning status fields', () => {
    const current = podWith({ phase: 'Running', podIP: '10.0.0.1' }, [creator, kubelet]);
    const applied = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { nodeName: 'n2' },
      status: { phase: 'Failed', podIP: '10.0.0.1' },
    } as unknown as KubeObject;
    const conflicts = findApplyConflicts(current, applied, 'ctl', 'status');
    expect(conflicts).toEqual([
      {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        subresource: 'status',
        field: '.status.phase',
        keys: ['f:status', 'f:phase'],
      },
    ]);
    expect(applyConflictError(conflicts).status.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.phase',
    );
    // the same configuration against the main resource: status is not compared, the spec is
    expect(findApplyConflicts(current, applied, 'ctl').map((c) => c.field)).toEqual(['.spec.nodeName']);
  });

  it('should hand a forced status field over from the entry of that subresource only', () => {
    const sameNameMain: ManagedFieldsEntry = { ...kubelet, subresource: undefined, fieldsV1: { 'f:status': { 'f:phase': {} } } };
    const current = podWith({ phase: 'Running', podIP: '10.0.0.1' }, [sameNameMain, kubelet]);
    const conflicts = findApplyConflicts(current, { status: { phase: 'Failed' } } as unknown as KubeObject, 'ctl', 'status');
    expect(conflicts.map((c) => c.subresource)).toEqual([undefined, 'status']);
    const released = releaseFields([sameNameMain, kubelet], conflicts.slice(1));
    expect(released).toEqual([sameNameMain, { ...kubelet, fieldsV1: { 'f:status': { 'f:podIP': {} } } }]);
  });
});

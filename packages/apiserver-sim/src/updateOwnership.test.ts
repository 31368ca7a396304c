import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { findApplyConflicts } from './applyConflicts.ts';
import { withManagedFields } from './managedFields.ts';
import { changedFields, subtractFields, unionFields, withUpdatedFields } from './updateOwnership.ts';

const T = '2025-01-01T00:00:00Z';
const cm = (data: Record<string, string>, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(labels ? { labels } : {}) }, data }) as KubeObject;
const podWithEnv = (image: string, env: { name: string; value: string }[], phase?: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'web', image, env }] },
    ...(phase ? { status: { phase } } : {}),
  }) as KubeObject;

describe('changedFields', () => {
  it('should list added and changed leaves, and removed fields, within the owned scope', () => {
    const d = changedFields(cm({ a: '1', b: '2' }, { app: 'x' }), cm({ a: '9', c: '3' }, { app: 'x' }));
    expect(d).toEqual({ changed: { 'f:data': { 'f:a': {}, 'f:c': {} } }, removed: { 'f:data': { 'f:b': {} } } });
  });

  it('should walk keyed list items: an added item whole, a changed item by its leaves, a removed item', () => {
    const d = changedFields(
      podWithEnv('nginx:1', [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ]),
      podWithEnv('nginx:1', [
        { name: 'A', value: '9' },
        { name: 'C', value: '3' },
      ]),
    );
    const env = (d.changed as any)['f:spec']['f:containers']['k:{"name":"web"}']['f:env'];
    expect(env).toEqual({ 'k:{"name":"A"}': { 'f:value': {} }, 'k:{"name":"C"}': { '.': {}, 'f:name': {}, 'f:value': {} } });
    expect((d.removed as any)['f:spec']['f:containers']['k:{"name":"web"}']['f:env']).toEqual({ 'k:{"name":"B"}': {} });
  });

  it('should compare only status for the status subresource, and ignore it otherwise', () => {
    expect(changedFields(podWithEnv('x', [], 'Pending'), podWithEnv('x', [], 'Running'), 'status')).toEqual({
      changed: { 'f:status': { 'f:phase': {} } },
      removed: {},
    });
    expect(changedFields(podWithEnv('x', [], 'Pending'), podWithEnv('x', [], 'Running'))).toEqual({ changed: {}, removed: {} });
  });
});

describe('unionFields and subtractFields', () => {
  it('should merge and remove paths, sharing untouched nodes', () => {
    const a = { 'f:data': { 'f:a': {} }, 'f:spec': { 'f:x': {} } };
    const u = unionFields(a, { 'f:data': { 'f:b': {} } });
    expect(u).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:spec': { 'f:x': {} } });
    expect(u['f:spec']).toBe(a['f:spec']);
    expect(subtractFields(u, { 'f:data': { 'f:a': {}, 'f:b': {} } })).toEqual({ 'f:spec': { 'f:x': {} } });
    expect(subtractFields(a, { 'f:other': {} })).toBe(a);
  });
});

describe('withUpdatedFields', () => {
  it('should give the writer only what it changed and take it from the other managers, keeping untouched entries', () => {
    const first = cm({ a: '1', b: '2' }, { app: 'x' });
    const applied = withManagedFields(undefined, first, 'ci', 'Apply', T);
    const status = {
      manager: 'kubelet',
      operation: 'Update' as const,
      apiVersion: 'v1',
      time: T,
      fieldsType: 'FieldsV1' as const,
      fieldsV1: { 'f:status': {} },
      subresource: 'status',
    };
    const next = cm({ a: 'edited', b: '2' }, { app: 'x', env: 'test' });
    const entries = withUpdatedFields([...applied, status], first, next, 'kubectl-edit', T);
    expect(entries.map((e) => e.manager)).toEqual(['ci', 'kubelet', 'kubectl-edit']);
    expect(entries[0].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:data': { 'f:b': {} } });
    expect(entries[1]).toBe(status);
    expect(entries[2]).toMatchObject({
      operation: 'Update',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:env': {} } }, 'f:data': { 'f:a': {} } },
    });
    // the applier now conflicts on .data.a only
    const stored = { ...next, metadata: { ...next.metadata, managedFields: entries } } as KubeObject;
    expect(findApplyConflicts(stored, first, 'ci').map((c) => `${c.manager} ${c.field}`)).toEqual(['kubectl-edit .data.a']);
  });

  it("should add to the writer's earlier fields, drop removed ones, and drop an entry left empty", () => {
    const one = withUpdatedFields([], cm({}), cm({ a: '1' }), 'w', T);
    const two = withUpdatedFields(one, cm({ a: '1' }), cm({ a: '1', b: '2' }), 'w', T);
    expect(two[0].fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    const other = withUpdatedFields(two, cm({ a: '1', b: '2' }), cm({}), 'cleaner', T);
    expect(other).toEqual([]);
  });

  it("should stamp the writer's entry when it adds or changes a field, and keep its time when it only removes", () => {
    const later = '2025-01-01T00:01:00Z';
    const one = withUpdatedFields([], cm({}), cm({ a: '1', b: '2' }), 'w', T);
    expect(withUpdatedFields(one, cm({ a: '1', b: '2' }), cm({ a: '2', b: '2' }), 'w', later)[0].time).toBe(later);
    const removed = withUpdatedFields(one, cm({ a: '1', b: '2' }), cm({ a: '1' }), 'w', later);
    expect(removed).toEqual([
      { manager: 'w', operation: 'Update', apiVersion: 'v1', time: T, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '@rxinformer/core';
import { pruneDroppedFields, removedFields, withoutFields } from './applyPrune.ts';
import { withManagedFields, type ManagedFieldsEntry } from './managedFields.ts';

const T = '2025-01-01T00:00:00Z';
const cm = (data: Record<string, string>, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(labels ? { labels } : {}) }, data }) as KubeObject;
const deployment = (env: { name: string; value: string }[], labels: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels },
    spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx', env }] } } },
  }) as KubeObject;
/** The managedFields after `manager` wrote `obj` (`operation`), starting from `entries`. */
const wrote = (entries: ManagedFieldsEntry[], obj: KubeObject, manager: string, operation: 'Apply' | 'Update') =>
  withManagedFields(entries, obj, manager, operation, T);

describe('removedFields', () => {
  it('should list the fields the applier owned before and no longer applies', () => {
    const previous = { 'f:data': { 'f:a': {}, 'f:b': {} } };
    expect(removedFields(previous, { 'f:data': { 'f:a': {} } }, [])).toEqual({
      'f:data': { dropIfEmpty: false, children: { 'f:b': 'all' } },
    });
  });

  it('should keep fields another manager owns, and list items under which another manager owns a field', () => {
    const item = { '.': {}, 'f:name': {}, 'f:value': {} };
    const previous = { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:spec': { 'f:env': { 'k:{"name":"X"}': item } } };
    const other = { 'f:data': { 'f:b': {} }, 'f:spec': { 'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:value': {} } } } };
    expect(removedFields(previous, {}, [other])).toEqual({
      'f:data': { dropIfEmpty: false, children: { 'f:a': 'all' } },
      'f:spec': {
        dropIfEmpty: false,
        children: {
          'f:env': { dropIfEmpty: false, children: { 'k:{"name":"X"}': { dropIfEmpty: false, children: { 'f:name': 'all' } } } },
        },
      },
    });
  });

  it('should drop a container nobody else owns anything under once it is empty', () => {
    expect(removedFields({ 'f:data': { 'f:a': {} } }, {}, [])).toEqual({ 'f:data': { dropIfEmpty: true, children: { 'f:a': 'all' } } });
  });
});

describe('withoutFields', () => {
  it('should delete map keys, drop keyed list items and scalar set items, and not mutate its input', () => {
    const obj = {
      data: { a: '1', b: '2' },
      env: [
        { name: 'X', value: '1' },
        { name: 'Y', value: '2' },
      ],
      finalizers: ['f1', 'f2'],
    };
    const before = JSON.stringify(obj);
    const out = withoutFields(obj, {
      'f:data': { dropIfEmpty: false, children: { 'f:b': 'all' } },
      'f:env': { dropIfEmpty: false, children: { 'k:{"name":"Y"}': 'all' } },
      'f:finalizers': { dropIfEmpty: true, children: { 'v:"f1"': 'all' } },
    });
    expect(out).toEqual({ data: { a: '1' }, env: [{ name: 'X', value: '1' }], finalizers: ['f2'] });
    expect(JSON.stringify(obj)).toBe(before);
  });

  it('should remove an emptied container only when marked so', () => {
    expect(withoutFields({ data: { a: '1' } }, { 'f:data': { dropIfEmpty: true, children: { 'f:a': 'all' } } })).toEqual({});
    expect(withoutFields({ data: { a: '1' } }, { 'f:data': { dropIfEmpty: false, children: { 'f:a': 'all' } } })).toEqual({ data: {} });
  });
});

describe('pruneDroppedFields', () => {
  it('should remove a data key the applier dropped', () => {
    const entries = wrote([], cm({ a: '1', b: '2' }), 'ci', 'Apply');
    expect(pruneDroppedFields(cm({ a: '1', b: '2' }), entries, cm({ a: '1' }), 'ci')).toEqual(cm({ a: '1' }));
  });

  it('should remove a dropped env var and label but keep a label another manager also owns', () => {
    const first = deployment(
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      { app: 'd', tier: 'web' },
    );
    const entries = wrote(
      wrote([], first, 'ci', 'Apply'),
      { metadata: { labels: { tier: 'web' } } } as KubeObject,
      'kubectl-label',
      'Update',
    );
    const next = deployment([{ name: 'A', value: '1' }], {});
    const out = pruneDroppedFields(first, entries, next, 'ci') as any;
    expect(out.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(out.metadata.labels).toEqual({ tier: 'web' });
  });

  it('should prune within the subresource applied to', () => {
    const obj = { ...cm({ a: '1' }), status: { phase: 'Ready', message: 'hi' } } as KubeObject;
    const entries = withManagedFields(wrote([], obj, 'ctl', 'Apply'), obj, 'ctl', 'Apply', T, 'status');
    const out = pruneDroppedFields(obj, entries, { status: { phase: 'Ready' } } as KubeObject, 'ctl', 'status') as any;
    expect(out.status).toEqual({ phase: 'Ready' });
    expect(out.data).toEqual({ a: '1' });
  });

  it('should change nothing on a first apply or when another manager applied the field', () => {
    const obj = cm({ a: '1', b: '2' });
    expect(pruneDroppedFields(obj, [], cm({ a: '1' }), 'ci')).toBe(obj);
    const entries = wrote(wrote([], obj, 'ci', 'Apply'), cm({ b: '2' }), 'other', 'Apply');
    expect(pruneDroppedFields(obj, entries, cm({ a: '1' }), 'ci')).toEqual(obj);
  });
});

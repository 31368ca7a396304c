import { describe, expect, it } from '@jest/globals';
import { NEVER, concat, of } from 'rxjs';
import { InvalidOptionsError } from '../errors.ts';
import { expectedTypeOf } from '../expectedType.ts';
import { createInformerFactory } from '../informer/informerFactory.ts';
import { metadataOnly } from '../partialObjectMetadata.ts';
import { TABLE_ROW_TYPE, tableRows } from '../tableRow.ts';
import type { KubeObject, ListerWatcher, ResourceDescriptor, WatchEvent } from '../types.ts';
import { project } from './project.ts';
import { projected } from './projected.ts';
import { PRESETS } from './presets.ts';
import { PAGED } from '@rxinformer/testing';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const pod = (name: string, rv: string, kind = 'Pod'): KubeObject & { spec: object; status: object } => ({
  apiVersion: 'v1',
  kind,
  metadata: {
    name,
    namespace: 'default',
    uid: `u-${name}`,
    resourceVersion: rv,
    annotations: { big: 'x'.repeat(100) },
    managedFields: [{}],
  },
  spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'nginx', env: [] }] },
  status: { phase: 'Running', hostIP: '10.0.0.1' },
});

/** A source whose ListerWatcher lists `items` and then watches `events`; it records the descriptors asked for. */
function source(items: KubeObject[], events: WatchEvent[] = []) {
  const seen: ResourceDescriptor[] = [];
  const lw: ListerWatcher = {
    list: () => of({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: structuredClone(items) }),
    watch: () => concat(of(...structuredClone(events)), NEVER),
  };
  const make = (resource: ResourceDescriptor) => {
    seen.push(resource);
    return lw as ListerWatcher<never>;
  };
  return { make, seen };
}

describe('projected', () => {
  it('should make a frozen descriptor the factory keys by its paths, apart from the full, metadata, Table and other informers', () => {
    const { make, seen } = source([]);
    const factory = createInformerFactory(make);
    try {
      const rows = factory.informerFor(projected(pods, ['status.phase', 'spec.nodeName']));
      expect(Object.isFrozen(projected(pods, ['status.phase']))).toBe(true);
      expect(factory.informerFor(projected(pods, project(['spec.nodeName', 'status.phase', 'status.phase'])))).toBe(rows);
      const others = [
        factory.informerFor(pods),
        factory.informerFor(metadataOnly(pods)),
        factory.informerFor(tableRows(pods)),
        factory.informerFor(projected(pods, ['status.phase'])),
        factory.informerFor(projected(pods, PRESETS.pods)),
      ];
      expect(new Set([rows, ...others]).size).toBe(6);
      expect(seen.map((r) => r.projection?.paths.length ?? (r.metadataOnly ? 'metadata' : r.table ? 'table' : 'full'))).toEqual([
        2,
        'full',
        'metadata',
        'table',
        1,
        PRESETS.pods.paths.length,
      ]);
    } finally {
      factory.shutdown();
    }
  });

  it('should store projected, frozen objects, on list and watch, and run the factory transform on what the projection made', () => {
    const { make } = source(
      [pod('a', '2')],
      [{ type: 'MODIFIED', object: { ...pod('a', '3'), status: { phase: 'Failed' } } } as WatchEvent],
    );
    const seenByTransform: KubeObject[] = [];
    const factory = createInformerFactory(make, {
      transform: (o) => {
        seenByTransform.push(o);
        return o;
      },
    });
    const informer = factory.informerFor(projected(pods, ['status.phase', 'spec.containers[*].image']));
    try {
      factory.start();
      const stored = informer.getStore().get('default/a') as { spec: { containers: object[] } };
      expect(stored).toEqual({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'default', uid: 'u-a', resourceVersion: '3' },
        spec: { containers: [{ image: 'nginx' }] },
        status: { phase: 'Failed' },
      });
      expect(Object.isFrozen(stored) && Object.isFrozen(stored.spec.containers[0])).toBe(true);
      expect(seenByTransform.every((o) => !('hostIP' in (o as { status: object }).status))).toBe(true);
      expect(seenByTransform).toHaveLength(2);
    } finally {
      factory.shutdown();
    }
  });

  it('should keep objects of another kind out of a projected informer, as out of the full one', () => {
    const { make } = source([pod('a', '2'), pod('cm', '3', 'ConfigMap')]);
    const factory = createInformerFactory(make);
    const informer = factory.informerFor(projected(pods, PRESETS.pods), { reflector: PAGED }); // `source` answers lists
    try {
      factory.start();
      expect(informer.getStore().keys()).toEqual(['default/a']);
      expect(expectedTypeOf(projected(pods, PRESETS.pods))).toEqual(expectedTypeOf(pods));
      expect(expectedTypeOf(tableRows(pods))).toBe(TABLE_ROW_TYPE);
    } finally {
      factory.shutdown();
    }
  });

  it('should refuse to combine forms, and a projection not made by project()', () => {
    expect(() => projected(metadataOnly(pods), ['status.phase'])).toThrow(InvalidOptionsError);
    expect(() => projected(tableRows(pods), ['status.phase'])).toThrow(InvalidOptionsError);
    expect(() => metadataOnly(projected(pods, ['status.phase']))).toThrow(InvalidOptionsError);
    expect(() => tableRows(projected(pods, ['status.phase']))).toThrow(InvalidOptionsError);
    expect(() => tableRows(metadataOnly(pods))).toThrow(InvalidOptionsError);
    expect(() => metadataOnly(tableRows(pods))).toThrow(InvalidOptionsError);
    expect(() => projected(pods, ((o: KubeObject) => o) as never)).toThrow(InvalidOptionsError);
    expect(projected(projected(pods, ['a']), ['b']).projection.paths).toEqual(['b']);
    const factory = createInformerFactory(source([]).make);
    try {
      expect(() => factory.informerFor({ ...pods, metadataOnly: true, table: true })).toThrow(/more than one/);
      expect(() => factory.informerFor({ ...pods, projection: ((o: KubeObject) => o) as never })).toThrow(/made by project/);
    } finally {
      factory.shutdown();
    }
  });
});

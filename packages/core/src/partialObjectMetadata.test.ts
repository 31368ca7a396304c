import { describe, expect, it } from '@jest/globals';
import { concat, NEVER, of } from 'rxjs';
import { createInformerFactory } from './informerFactory.ts';
import {
  metadataOnly,
  NotPartialMetadataError,
  PARTIAL_OBJECT_METADATA_TYPE,
  type PartialObjectMetadata,
} from './partialObjectMetadata.ts';
import { reflector } from './reflector.ts';
import type { KubeObject, ListerWatcher, ReflectorEvent, ResourceDescriptor, WatchEvent } from './types.ts';

const meta = (name: string, rv: string): PartialObjectMetadata => ({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'PartialObjectMetadata',
  metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: rv, labels: { app: 'web' } },
});
/** A full pod, as a list item of a PodList (no type) or a watch object (typed). */
const fullPod = (name: string, rv: string, typed = false): KubeObject =>
  ({
    ...(typed && { apiVersion: 'v1', kind: 'Pod' }),
    metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: rv },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running' },
  }) as KubeObject;

/** Runs a reflector expecting PartialObjectMetadata over one list page and watch events; returns what it emitted. */
function run(items: KubeObject[], events: WatchEvent[], pageKind = 'PartialObjectMetadataList'): ReflectorEvent[] {
  const lw: ListerWatcher = {
    list: () => of({ apiVersion: 'meta.k8s.io/v1', kind: pageKind, metadata: { resourceVersion: '10' }, items }),
    watch: () => concat(of(...events), NEVER),
  };
  const out: ReflectorEvent[] = [];
  reflector(lw, { expectedType: PARTIAL_OBJECT_METADATA_TYPE })
    .subscribe((e) => out.push(e))
    .unsubscribe();
  return out;
}
const errorsOf = (out: ReflectorEvent[]) =>
  out.flatMap((e) => (e.type === 'status' && e.status.lastError ? [e.status.lastError] : [])).filter((e, i, all) => all.indexOf(e) === i);

describe('metadata-only reflection', () => {
  it('should keep PartialObjectMetadata as it is, with no report', () => {
    const a = meta('a', '5');
    const out = run([a], [{ type: 'MODIFIED', object: meta('a', '11') }]);
    const replace = out.find((e) => e.type === 'replace');
    expect(replace?.type === 'replace' && replace.items[0]).toBe(a);
    expect(errorsOf(out)).toEqual([]);
  });

  it('should reduce the full objects of a server that ignores as= to their metadata, reported once', () => {
    const out = run(
      [fullPod('a', '5'), fullPod('b', '6')],
      [
        { type: 'MODIFIED', object: fullPod('a', '11', true) },
        { type: 'ADDED', object: fullPod('c', '12', true) },
        { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '13' } } },
      ],
      'PodList',
    );
    const replace = out.find((e) => e.type === 'replace');
    expect(replace?.type === 'replace' && replace.items).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('a', '5').metadata },
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('b', '6').metadata },
    ]);
    const changes = out.filter((e) => e.type === 'added' || e.type === 'modified');
    expect(changes.map((e) => (e.type === 'added' || e.type === 'modified') && e.object)).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('a', '11').metadata },
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('c', '12').metadata },
    ]);
    expect(out.some((e) => e.type === 'bookmark' && e.resourceVersion === '13')).toBe(true);
    const errors = errorsOf(out);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(NotPartialMetadataError);
    expect(errors[0]).toMatchObject({ reason: 'NotPartialObjectMetadata' });
  });

  it('should report full objects first seen on the watch', () => {
    const out = run([meta('a', '5')], [{ type: 'MODIFIED', object: fullPod('a', '11', true) }]);
    expect(errorsOf(out).map((e) => e.message)).toEqual([expect.stringContaining('full objects, Pod (a)')]);
  });
});

describe('metadataOnly', () => {
  const pods: ResourceDescriptor<KubeObject & { spec?: unknown }> = {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
  };

  it('should make a frozen descriptor the factory keeps apart from the full one, expecting PartialObjectMetadata', () => {
    const seen: ResourceDescriptor[] = [];
    const lw: ListerWatcher = { list: () => NEVER, watch: () => NEVER };
    const factory = createInformerFactory((resource) => {
      seen.push(resource);
      return lw as ListerWatcher<never>;
    });
    const podMeta = metadataOnly(pods);
    expect(Object.isFrozen(podMeta)).toBe(true);
    expect(podMeta).toMatchObject({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, metadataOnly: true });
    const metaInformer = factory.informerFor(podMeta);
    const fullInformer = factory.informerFor(pods);
    expect(metaInformer).not.toBe(fullInformer);
    expect(factory.informerFor(metadataOnly(pods))).toBe(metaInformer);
    expect(seen.map((r) => r.metadataOnly === true)).toEqual([true, false]);
    factory.shutdown();
  });

  it("should have the factory's metadata informer expect PartialObjectMetadata: a server's full objects are stored reduced", () => {
    const lw: ListerWatcher = {
      list: () => of({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '3' }, items: [fullPod('a', '2')] }),
      watch: () => NEVER,
    };
    const factory = createInformerFactory(() => lw as ListerWatcher<never>);
    const informer = factory.informerFor(metadataOnly(pods));
    try {
      factory.start();
      expect(informer.getStore().get('default/a')).toEqual({
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        metadata: fullPod('a', '2').metadata,
      });
    } finally {
      factory.shutdown(); // its watch timers, even when the expectation failed
    }
  });
});

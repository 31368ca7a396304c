import { describe, expect, it } from '@jest/globals';
import { concat, NEVER, of } from 'rxjs';
import { expectedTypeOf, PARTIAL_OBJECT_METADATA_TYPE, UnexpectedTypeError, type ExpectedType } from './expectedType.ts';
import { createInformerFactory } from './informer/informerFactory.ts';
import { metadataOnly, NotPartialMetadataError, type PartialObjectMetadata } from './partialObjectMetadata.ts';
import { reflector } from './reflector/reflector.ts';
import type { KubeObject, ListerWatcher, ListPage, ReflectorEvent, ReflectorStatus, ResourceDescriptor, WatchEvent } from './types.ts';

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
function run(
  items: KubeObject[],
  events: WatchEvent[],
  pageKind = 'PartialObjectMetadataList',
  expectedType: ExpectedType = PARTIAL_OBJECT_METADATA_TYPE,
): ReflectorEvent[] {
  const lw: ListerWatcher = {
    list: () => of({ apiVersion: 'meta.k8s.io/v1', kind: pageKind, metadata: { resourceVersion: '10' }, items }),
    watch: () => concat(of(...events), NEVER),
    watchList: true,
  };
  const out: ReflectorEvent[] = [];
  reflector(lw, { useStreamingList: false, expectedType })
    .subscribe((e) => out.push(e))
    .unsubscribe();
  return out;
}
const pods: ResourceDescriptor<KubeObject & { spec?: unknown }> = {
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
};
/** A full ConfigMap with a secret in it, as a hostile server slips into a pods list or watch. */
const configMap = (name: string, rv: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: rv },
    data: { password: 'hunter2' },
  }) as KubeObject;
const statusesOf = (out: ReflectorEvent[]): ReflectorStatus[] => out.flatMap((e) => (e.type === 'STATUS' ? [e.status] : []));
const errorsOf = (out: ReflectorEvent[]) =>
  out.flatMap((e) => (e.type === 'STATUS' && e.status.lastError ? [e.status.lastError] : [])).filter((e, i, all) => all.indexOf(e) === i);

describe('metadata-only reflection', () => {
  it('should keep PartialObjectMetadata as it is, with no report', () => {
    const a = meta('a', '5');
    const out = run([a], [{ type: 'MODIFIED', object: meta('a', '11') }]);
    const replace = out.find((e) => e.type === 'LIST');
    expect(replace?.type === 'LIST' && replace.items[0]).toBe(a);
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
    const replace = out.find((e) => e.type === 'LIST');
    expect(replace?.type === 'LIST' && replace.items).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('a', '5').metadata },
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('b', '6').metadata },
    ]);
    const changes = out.filter((e) => e.type === 'ADDED' || e.type === 'MODIFIED');
    expect(changes.map((e) => (e.type === 'ADDED' || e.type === 'MODIFIED') && e.object)).toEqual([
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('a', '11').metadata },
      { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: fullPod('c', '12').metadata },
    ]);
    expect(out.some((e) => e.type === 'BOOKMARK' && e.resourceVersion === '13')).toBe(true);
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

describe('metadata-only reflection of a resource of known type', () => {
  const podMeta = expectedTypeOf(metadataOnly(pods));
  const stored = (out: ReflectorEvent[]) =>
    out.flatMap((e) => (e.type === 'LIST' ? e.items : e.type === 'ADDED' || e.type === 'MODIFIED' ? [e.object] : []));

  it('should skip objects of another kind whole, before reducing anything, on the list and the watch', () => {
    const out = run(
      [fullPod('a', '5', true), configMap('cm1', '6')],
      [
        { type: 'ADDED', object: configMap('cm2', '11') },
        { type: 'ADDED', object: fullPod('b', '12', true) },
      ],
      'PodList',
      podMeta,
    );
    expect(stored(out).map((o) => [o.kind, o.metadata?.name])).toEqual([
      ['PartialObjectMetadata', 'a'],
      ['PartialObjectMetadata', 'b'],
    ]);
    expect(JSON.stringify(out.filter((e) => e.type !== 'STATUS'))).not.toContain('hunter2');
    const skipped = errorsOf(out).filter((e) => e instanceof UnexpectedTypeError);
    expect(skipped.map((e) => (e.object as KubeObject).metadata?.name)).toEqual(['cm1', 'cm2']);
    expect(skipped[0].message).toContain('expected meta.k8s.io/v1 PartialObjectMetadata of v1 Pod');
  });

  it('should skip another kind in a streaming list, as an object of the list', () => {
    const end = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { resourceVersion: '10', annotations: { 'k8s.io/initial-events-end': 'true' } },
    };
    const lw: ListerWatcher = {
      watchList: true,
      list: () => NEVER,
      watch: () =>
        concat(
          of(
            ...([
              { type: 'ADDED', object: fullPod('a', '5', true) },
              { type: 'ADDED', object: configMap('cm', '6') },
              { type: 'BOOKMARK', object: end as KubeObject },
            ] as WatchEvent[]),
          ),
          NEVER,
        ),
    };
    const out: ReflectorEvent[] = [];
    reflector(lw, { expectedType: podMeta, useStreamingList: true })
      .subscribe((e) => out.push(e))
      .unsubscribe();
    const replace = out.find((e) => e.type === 'LIST');
    expect(replace?.type === 'LIST' && replace.items.map((o) => [o.kind, o.metadata?.name])).toEqual([['PartialObjectMetadata', 'a']]);
    expect(errorsOf(out).find((e) => e instanceof UnexpectedTypeError)).toMatchObject({ count: 1, object: { kind: 'ConfigMap' } });
  });

  it('should keep the report of full objects on the status after the good events that follow', () => {
    const out = run(
      [fullPod('a', '5', true)],
      [
        { type: 'MODIFIED', object: meta('a', '11') },
        { type: 'BOOKMARK', object: { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { resourceVersion: '12' } } },
      ],
      'PodList',
      podMeta,
    );
    const statuses = statusesOf(out);
    const last = statuses[statuses.length - 1];
    expect(last.lastError).toBeUndefined(); // the failure report is over
    expect(last.warning).toBeInstanceOf(NotPartialMetadataError); // the condition is not
    expect(new Set(statuses.map((s) => s.warning).filter(Boolean)).size).toBe(1);
  });

  it('should end the report once a list answers with metadata only', () => {
    let lists = 0;
    const lw: ListerWatcher = {
      list: () => {
        const items = lists++ === 0 ? [fullPod('a', '5', true)] : [meta('a', '6')];
        return of({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: String(10 + lists) }, items } as ListPage);
      },
      // The first watch ends at once with 410: a relist.
      watch: () => (lists === 1 ? of({ type: 'ERROR', object: { kind: 'Status', code: 410 } } as WatchEvent) : NEVER),
    };
    const out: ReflectorEvent[] = [];
    reflector(lw, { useStreamingList: false, expectedType: podMeta })
      .subscribe((e) => out.push(e))
      .unsubscribe();
    const replaces = out.map((e, i) => [e, i] as const).filter(([e]) => e.type === 'LIST');
    expect(replaces).toHaveLength(2);
    const after = (i: number) => statusesOf(out.slice(i)).at(0);
    expect(after(replaces[0][1])?.warning).toBeInstanceOf(NotPartialMetadataError);
    expect(after(replaces[1][1])?.warning).toBeUndefined();
  });
});

describe('metadataOnly', () => {
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
    const informer = factory.informerFor(metadataOnly(pods), { reflector: { useStreamingList: false } });
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

  it('should have the factory keep objects of another kind out of a metadata-only informer, as out of the full one', () => {
    const lw: ListerWatcher = {
      list: () =>
        of({
          kind: 'PodList',
          apiVersion: 'v1',
          metadata: { resourceVersion: '3' },
          items: [fullPod('a', '2', true), configMap('cm', '1')],
        }),
      watch: () =>
        concat(
          of(
            ...([
              { type: 'ADDED', object: configMap('cm2', '4') },
              { type: 'ADDED', object: fullPod('b', '5', true) },
            ] as WatchEvent[]),
          ),
          NEVER,
        ),
    };
    const factory = createInformerFactory(() => lw as ListerWatcher<never>);
    const paged = { reflector: { useStreamingList: false } }; // the ListerWatcher answers lists
    const informer = factory.informerFor(metadataOnly(pods), paged);
    const full = factory.informerFor(pods, paged);
    try {
      factory.start();
      expect([...full.getStore().keys()].sort()).toEqual(['default/a', 'default/b']);
      expect([...informer.getStore().keys()].sort()).toEqual(['default/a', 'default/b']);
      expect(expectedTypeOf(metadataOnly(pods))).toEqual({
        ...PARTIAL_OBJECT_METADATA_TYPE,
        metadataOf: { apiVersion: 'v1', kind: 'Pod' },
      });
    } finally {
      factory.shutdown();
    }
  });
});

/**
 * The page of the IndexedDB snapshot test: an informer over the ConfigMaps of `?ns=`, through the
 * page server's origin, persisting its cache in IndexedDB. Loaded again, it starts from the stored
 * snapshot. `window.snap` reports what its handler heard and which requests it sent.
 */
import { createInformerFactory, fetchListerWatcher, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { indexedDbSnapshotStore } from '@rxinformer/core/snapshot';

const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const namespace = new URL(location.href).searchParams.get('ns') ?? 'default';
const requests: string[] = [];
const calls: string[] = [];
const v = (o: KubeObject | undefined) => `${o?.metadata?.name}=${(o as { data?: { value?: string } } | undefined)?.data?.value}`;

const factory = createInformerFactory(
  (resource, where) =>
    fetchListerWatcher({
      baseUrl: location.origin,
      resource,
      ...where,
      fetch: (input, init) => (
        requests.push((input instanceof Request ? input.url : String(input as string | URL)).replace(location.origin, '')),
        fetch(input, init)
      ),
    }),
  { namespace, snapshots: { store: indexedDbSnapshotStore(), server: `${location.origin} as test` } },
);
const informer = factory.informerFor<KubeObject>(CONFIGMAPS);
informer.addEventHandler({
  onAdd: (o, initial, _key, fromSnapshot) => void calls.push(`add ${v(o)}${initial ? ' initial' : ''}${fromSnapshot ? ' snapshot' : ''}`),
  onUpdate: (a, b) => void calls.push(`update ${v(a)}->${v(b)}`),
  onDelete: (d) => void calls.push(`delete ${v(d.lastKnown)}`),
});
factory.start();

(window as unknown as { snap: unknown }).snap = {
  calls,
  requests,
  synced: () => informer.hasSynced(),
  start: () => informer.getStatus().snapshot?.start,
  /** Stops the informer and resolves once its snapshot is written (a tab's `pagehide` would do this). */
  save: async () => {
    factory.shutdown();
    await factory.saveSnapshots();
  },
};

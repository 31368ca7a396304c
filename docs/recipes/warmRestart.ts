/**
 * Recipe: restarting warm. A controller process and a dashboard tab persist their informers' caches
 * and, at their next start, show them at once and resume the watch where they left off: inside the
 * server's watch window (at least 75 s on kube-apiserver) nothing is listed again.
 *
 * The calls are those of client-node's `warmRestart.test.ts` (both servers: resume, 410 and relist,
 * corrupt and foreign files) and browser-example's `snapshotStore.test.ts` (IndexedDB in Chromium).
 */
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { configMaps, createKubeInformerFactory, fileSnapshotStore, type KubeInformerFactory } from '@rxinformer/client-node';
import { createInformerFactory, fetchListerWatcher, type InformerFactory, type ResourceDescriptor, type Wire } from '@rxinformer/core';
import { indexedDbSnapshotStore } from '@rxinformer/core/snapshot';

/**
 * A controller's factory whose informers start from the snapshots in `dir` (a directory of the
 * process's own, e.g. a pod's emptyDir or a node's /var/lib/<controller>), saving them at SIGTERM.
 */
export function warmControllerFactory(
  kc: KubeConfig,
  dir: string,
  enqueue: (key: string, fromSnapshot: boolean) => void,
): KubeInformerFactory {
  const factory = createKubeInformerFactory(kc, { snapshots: { store: fileSnapshotStore(dir) } });
  const cms = factory.informerFor<Wire<V1ConfigMap>>(configMaps);
  cms.addEventHandler({
    // A level-triggered controller reconciles a restored object as a listed one; `fromSnapshot`
    // tells them apart for one that must (it may be stale until the informer has synced).
    onAdd: (_cm, _initial, key, fromSnapshot) => enqueue(key, fromSnapshot === true),
    onUpdate: (_old, _cm, key) => enqueue(key, false),
  });
  process.once('SIGTERM', () => {
    // close(): informers stopped, their snapshots saved, the connections closed.
    void factory.close().finally(() => process.exit(0));
  });
  return factory;
}

/** A dashboard tab's factory over its backend's API proxy, persisting in IndexedDB where there is one. */
export function warmTabFactory(apiBase: string, user: string): InformerFactory {
  const snapshots = typeof indexedDB === 'undefined' ? undefined : { store: indexedDbSnapshotStore(), server: `${apiBase} as ${user}` };
  const factory = createInformerFactory((resource, where) => fetchListerWatcher({ baseUrl: apiBase, resource, ...where }), {
    ...(snapshots && { snapshots }),
  });
  // Save when the tab goes away (reload, close): the next load starts from it.
  globalThis.addEventListener?.('pagehide', () => {
    factory.shutdown();
    void factory.saveSnapshots();
  });
  return factory;
}

/** What a dashboard shows while the restored cache is not yet confirmed by the server. */
export function banner(factory: InformerFactory, resource: ResourceDescriptor): string | undefined {
  const informer = factory.informerFor(resource);
  const snapshot = informer.getStatus().snapshot;
  return snapshot?.start === 'restored' && !informer.hasSynced() ? `as of ${snapshot.restored?.writtenAt}` : undefined;
}

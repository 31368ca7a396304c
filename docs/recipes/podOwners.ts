/**
 * Recipe: a metadata-only informer. Which pods does each ReplicaSet own? Only the pods' metadata is
 * needed (owner references, labels), so the informer caches `PartialObjectMetadata`: a fraction of
 * the memory of the full pods, and a faster first sync.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';
import { metadataOnly, type PartialObjectMetadata, type SharedInformer } from '@rxinformer/core';

/** The index of pods by the uid of their controller (a ReplicaSet, a Job…). */
export const BY_OWNER = 'byOwner';

/** The owner references a pod's metadata carries (`ObjectMeta` types them loosely). */
interface OwnerReference {
  uid: string;
  controller?: boolean;
}

/** A running index of pods by owner. */
export interface PodOwners {
  /** The metadata-only pod cache, indexed `BY_OWNER`. */
  readonly pods: SharedInformer<PartialObjectMetadata>;
  /** `namespace/name` of the pods whose controller has `uid`. */
  ownedBy(uid: string): string[];
  /** Stops the informer and closes its connections. */
  stop(): Promise<void>;
}

/**
 * Starts the index; resolves once the pods' metadata is cached.
 *
 * @example
 * const owners = await startPodOwners(kc, 'default');
 * owners.ownedBy(replicaSet.metadata.uid); // ['default/web-7d9f8b6c5d-x7k2p', …]
 */
export async function startPodOwners(kubeConfig: KubeConfig, namespace?: string): Promise<PodOwners> {
  const factory = createKubeInformerFactory(kubeConfig, { namespace });
  // Lists with Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1 and watches
  // with as=PartialObjectMetadata: the server sends each pod's metadata only.
  const podMeta = factory.informerFor(metadataOnly(pods), {
    indexers: {
      [BY_OWNER]: (p) => ((p.metadata.ownerReferences ?? []) as OwnerReference[]).filter((o) => o.controller).map((o) => o.uid),
    },
  });
  factory.start();
  await factory.waitForCacheSync();
  return {
    pods: podMeta,
    ownedBy: (uid) => [...podMeta.getStore().indexKeys(BY_OWNER, uid)].sort(),
    stop: () => factory.close(),
  };
}

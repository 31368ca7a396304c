/**
 * Many clusters (multicluster-runtime's providers and requests): the `ClusterProvider` contract,
 * the multi-cluster factory, its views across clusters (`SharedInformer`s whose keys are
 * `cluster://NAME/namespace/name`), and the cluster keys. Browser-safe; the Node providers
 * (kubeconfig contexts, a folder of kubeconfigs, Cluster API) are in `@rxinformer/client-node`.
 *
 * @example
 * const fleet = createMultiClusterFactory(provider);
 * const pods = fleet.informerFor(podsResource);
 * fleet.start();
 * await fleet.waitForCacheSync();
 * pods.getStore().get('cluster://eu-1/default/web');
 *
 * @module @rxinformer/core/multicluster
 */
export { CLUSTER_KEY_SCHEME, checkClusterName, clusterKey, parseClusterKey } from './clusterKey.ts';
export type { ClusterKeyParts } from './clusterKey.ts';
export { ClusterGoneError, ClusterSourceError } from './clusterProvider.ts';
export type {
  Cluster,
  ClusterEvent,
  ClusterJoin,
  ClusterLeave,
  ClusterProvider,
  ClusterProviderStatus,
  ClusterProviderSynced,
} from './clusterProvider.ts';
export { createMultiClusterFactory } from './multiClusterFactory.ts';
export type { ClusterMember, MultiClusterFactory, MultiClusterFactoryOptions } from './multiClusterFactory.ts';
export type { ClusterDelta, ClusterStatus, MultiClusterInformer } from './multiClusterInformer.ts';

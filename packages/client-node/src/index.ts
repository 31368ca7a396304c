/**
 * @rxinformer/client-node — ListerWatchers, typed resources and informer factories over a
 * @kubernetes/client-node KubeConfig. Re-exports nothing of core: import that from @rxinformer/core.
 *
 * @example
 * const kc = new KubeConfig();
 * kc.loadFromDefault();
 * const factory = createKubeInformerFactory(kc, { namespace: 'default' });
 * const podInformer = factory.informerFor(pods);
 * factory.start();
 * await factory.waitForCacheSync();
 *
 * @module @rxinformer/client-node
 */

// Informer factory
export { createKubeInformerFactory } from './factory.ts';
export type { KubeInformerFactory, KubeInformerFactoryOptions } from './factory.ts';

// Snapshots of informer caches as files (warm restarts)
export { fileSnapshotStore } from './fileSnapshotStore.ts';
export type { FileSnapshotStoreOptions } from './fileSnapshotStore.ts';

// ListerWatcher and transport
export { kubeConfigListerWatcher } from './kubeConfigListerWatcher.ts';
export type { KubeConfigListerWatcherOptions } from './kubeConfigListerWatcher.ts';
export { protobufCodec, PROTOBUF_ACCEPT, PROTOBUF_MEDIA_TYPE } from './protobuf/wire.ts';
export { ProtobufDecodeError } from './protobuf/errors.ts';
export type { ProtobufDecodeReason } from './protobuf/errors.ts';
export { createKubeTransport, sharedKubeTransport } from './kubeTransport.ts';
export type { KubeTransport, KubeTransportOptions } from './kubeTransport.ts';
export type { TransportConnections } from './kubeTransport.ts';
export type { Http2Options } from './connections.ts';
export { DEFAULT_HTTP2_OPTIONS } from './transportOptions.ts';
export { ConnectionUnresponsiveError } from './connectionLiveness.ts';
export { StreamIdleError } from './http2Stream.ts';
export { ProxyTunnelError } from './tlsConnect.ts';

// Leases (leader election and shard membership)

// Writes (@rxinformer/controller's ApiClient)
export { kubeApiClient } from './kubeApiClient.ts';
export type { KubeApiClientOptions } from './kubeApiClient.ts';

// Typed built-in resources
export {
  apiVersionOf,
  builtinResources,
  defineResource,
  pods,
  services,
  endpoints,
  configMaps,
  secrets,
  nodes,
  namespaces,
  events,
  persistentVolumeClaims,
  persistentVolumes,
  serviceAccounts,
  deployments,
  replicaSets,
  statefulSets,
  daemonSets,
  jobs,
  cronJobs,
  ingresses,
  leases,
  eventsV1,
  customResourceDefinitions,
} from './resources.ts';
export type { KubeResource } from './resources.ts';

// Dynamic resources (discovery)
export { createDiscovery, discoverResource, ResourceNotFoundError, ResourceNotWatchableError } from './dynamic.ts';
export type { Discovery, DiscoveryOptions, ResourceRef } from './dynamic.ts';

// Errors
export { CredentialError, RequestTimeoutError, ResponseDecodeError } from './errors.ts';
export { DEFAULT_EXEC_TIMEOUT_MS, ExecPluginError } from './execCredential.ts';
export type { ExecPluginFailure } from './execCredential.ts';

// Many clusters: clusters over KubeConfigs, and providers of them (core's `@rxinformer/core/multicluster`)
export { kubeCluster, kubeClusterClients } from './kubeCluster.ts';
export type { KubeCluster } from './kubeCluster.ts';
export { kubeconfigContextsProvider, kubeconfigFolderProvider, parseKubeconfig } from './kubeconfigProviders.ts';
export type { KubeconfigFolderOptions } from './kubeconfigProviders.ts';
export { clusterApiProvider, CLUSTER_NAME_LABEL, CLUSTER_SECRET_TYPE } from './clusterApiProvider.ts';
export type { ClusterApiProviderOptions } from './clusterApiProvider.ts';

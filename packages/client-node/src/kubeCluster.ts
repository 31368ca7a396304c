/**
 * A cluster of a multi-cluster factory made from a KubeConfig: its ListerWatchers over a transport
 * of its own (closed when the cluster leaves), and the KubeConfig, from which a reconcile's
 * client is made (`kubeApiClient(member.cluster.kubeConfig)`).
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ApiClient } from '@rxinformer/controller';
import type { ListerWatcherSource } from '@rxinformer/core';
import { checkClusterName, ClusterGoneError, type Cluster, type MultiClusterFactory } from '@rxinformer/core/multicluster';
import { kubeApiClient } from './kubeApiClient.ts';
import { kubeConfigListerWatcher } from './kubeConfigListerWatcher.ts';
import { createKubeTransport, type KubeTransport } from './kubeTransport.ts';

/** A cluster reached through a KubeConfig (its current context). */
export interface KubeCluster extends Cluster {
  /** The KubeConfig of the cluster, its current context the cluster's. */
  readonly kubeConfig: KubeConfig;
  /** The `ApiClient` of writes to the cluster (@rxinformer/controller's), over the cluster's own connections. */
  apiClient(): ApiClient;
}

/**
 * The cluster `name` reached through `kubeConfig`'s current context (or `context`): a copy of the
 * KubeConfig set to that context, a transport of its own made on the first request and closed by
 * `close()`.
 *
 * @example
 * const eu = kubeCluster('eu-1', kc, 'eu-1-admin');
 * createMultiClusterFactory({ clusters$: of({ type: 'join', cluster: eu }, { type: 'synced' }) });
 *
 * Caveat: throws `InvalidOptionsError` for a name with `/` (it goes into keys) and for a context
 * the KubeConfig does not have.
 */
export function kubeCluster(name: string, kubeConfig: KubeConfig, context?: string): KubeCluster {
  checkClusterName(name);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: kubeConfig.clusters,
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: context ?? kubeConfig.getCurrentContext(),
  });
  let transport: KubeTransport | undefined;
  let client: ApiClient | undefined;
  const source: ListerWatcherSource = (resource, scope) =>
    kubeConfigListerWatcher(kc, {
      resource,
      namespace: scope.namespace,
      labelSelector: scope.labelSelector,
      fieldSelector: scope.fieldSelector,
      transport: (transport ??= createKubeTransport(kc)),
    });
  return {
    name,
    source,
    kubeConfig: kc,
    apiClient: () => (client ??= kubeApiClient(kc, { transport: (transport ??= createKubeTransport(kc)) })),
    close: async () => {
      await transport?.close();
    },
  };
}

/**
 * The `client` option of a controller over `fleet`: the `ApiClient` of the cluster of each request
 * (`req.cluster`), over that cluster's connections.
 *
 * @example
 * controllerFor(fleet, configMaps, { name: 'stamp', client: kubeClusterClients(fleet) });
 *
 * Caveat: a cluster that has left gives a `ClusterGoneError` (the reconcile fails and retries; once
 * its objects have left the view, the key reconciles as gone).
 */
export function kubeClusterClients(fleet: Pick<MultiClusterFactory<KubeCluster>, 'cluster'>): (cluster: string) => ApiClient {
  return (cluster) => {
    const member = fleet.cluster(cluster);
    if (member === undefined) throw new ClusterGoneError(cluster);
    return member.cluster.apiClient();
  };
}

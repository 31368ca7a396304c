/**
 * A cluster of a multi-cluster factory made from a KubeConfig: its ListerWatchers over a transport
 * of its own (closed when the cluster leaves), and the KubeConfig, from which a reconcile's
 * client is made (`kubeApiClient(member.cluster.kubeConfig)`).
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ListerWatcherSource } from '@rxinformer/core';
import { checkClusterName, type Cluster } from '@rxinformer/core/multicluster';
import { kubeConfigListerWatcher } from './kubeConfigListerWatcher.ts';
import { createKubeTransport } from './kubeTransport.ts';

/** A cluster reached through a KubeConfig (its current context). */
export interface KubeCluster extends Cluster {
  /** The KubeConfig of the cluster, its current context the cluster's. */
  readonly kubeConfig: KubeConfig;
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
  let transport: ReturnType<typeof createKubeTransport> | undefined;
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
    close: async () => {
      await transport?.close();
    },
  };
}

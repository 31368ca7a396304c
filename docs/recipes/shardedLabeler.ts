/**
 * Recipe: a sharded controller. Replicas share the ConfigMaps of a namespace: each holds its own
 * Lease in the ring `cm-labeler`, gets a share of the slots of KEP-5866's hash space, lists and
 * watches only their objects (`shardSelector`, filtered locally too when the server ignores it) and
 * labels them. When a replica leaves or dies, its slots move to the others; a key is never
 * reconciled by two replicas at once.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { configMaps, kubeConfigListerWatcher, kubeLeaseClient, leases } from '@rxinformer/client-node';
import { splitMetaNamespaceKey, type Wire } from '@rxinformer/core';
import { type Lease } from '@rxinformer/core/leader-election';
import { runShardedController, type ShardedControllerHandle } from '@rxinformer/core/sharding';

/** Options of `startShardedLabeler`. */
export interface ShardedLabelerOptions {
  /** The namespace whose ConfigMaps are labelled (the ring's Leases live there too). Required. */
  namespace: string;
  /** This replica's identity: a DNS label, unique per process (say, the pod name). Required. */
  identity: string;
  /** Lease timing for tests; client-go's defaults otherwise (15 s, 10 s, 2 s). */
  timing?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
}

/**
 * Starts one replica of the sharded ConfigMap labeler: every ConfigMap gets `example.com/shard: <identity>`.
 *
 * @example
 * const replica = startShardedLabeler(kc, { namespace: 'shop', identity: process.env.POD_NAME! });
 * replica.ring.state$.subscribe((s) => console.log(`${s.active.length} slots of ${s.members.length} members`));
 * process.once('SIGTERM', () => void replica.stop()); // its slots move to the others at once
 */
export function startShardedLabeler(kubeConfig: KubeConfig, options: ShardedLabelerOptions): ShardedControllerHandle<Wire<V1ConfigMap>> {
  const { namespace, identity } = options;
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return runShardedController<Wire<V1ConfigMap>>({
    source: kubeConfigListerWatcher(kubeConfig, { resource: configMaps, namespace }),
    leases: kubeConfigListerWatcher<Lease>(kubeConfig, { resource: leases, namespace }),
    client: kubeLeaseClient(kubeConfig),
    namespace,
    ring: 'cm-labeler',
    identity,
    concurrency: 4,
    ...options.timing,
    reconcile: async (key, cm) => {
      if (!cm || cm.metadata?.labels?.['example.com/shard'] === identity) return; // deleted, or done
      const { name } = splitMetaNamespaceKey(key);
      await api.patchNamespacedConfigMap(
        { name, namespace, body: { metadata: { labels: { 'example.com/shard': identity } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
  });
}

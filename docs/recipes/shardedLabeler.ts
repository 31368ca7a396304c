/**
 * Recipe: a sharded controller. Replicas share the ConfigMaps of a namespace: each holds its own
 * Lease in the ring `cm-labeler`, gets a share of the slots of KEP-5866's hash space, lists and
 * watches only their objects (`shardSelector`, filtered locally too when the server ignores it) and
 * labels them. When a replica leaves or dies, its slots move to the others; a key is never
 * reconciled by two replicas at once.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { configMaps, createKubeInformerFactory, kubeConfigListerWatcher, kubeApiClient, leases } from '@rxinformer/client-node';
import { controllerFor, type Logger, type RunningController } from '@rxinformer/controller';
import { type SharedInformer, type Wire } from '@rxinformer/core';
import { type Lease } from '@rxinformer/core/leader-election';

/** Options of `startShardedLabeler`. */
export interface ShardedLabelerOptions {
  /** The namespace whose ConfigMaps are labelled (the ring's Leases live there too). Required. */
  namespace: string;
  /** This replica's identity: a DNS label, unique per process (say, the pod name). Required. */
  identity: string;
  /** Lease timing for tests; client-go's defaults otherwise (15 s, 10 s, 2 s). */
  timing?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Where failures are logged. Default `console`. */
  logger?: Logger;
}

/** A running replica of the sharded labeler. */
export interface ShardedLabeler {
  /** Its running term: `run.ring.state$` tells its members and slots. */
  readonly run: RunningController;
  /** Its cache: only its slots' ConfigMaps. */
  readonly informer: SharedInformer<Wire<V1ConfigMap>>;
  /** Leaves the ring once its reconciles settled. */
  stop(): Promise<void>;
}

/**
 * Starts one replica of the sharded ConfigMap labeler: every ConfigMap gets `example.com/shard: <identity>`.
 *
 * @example
 * const replica = startShardedLabeler(kc, { namespace: 'shop', identity: process.env.POD_NAME! });
 * replica.run.ring!.state$.subscribe((s) => console.log(`${s.active.length} slots of ${s.members.length} members`));
 * process.once('SIGTERM', () => void replica.stop()); // its slots move to the others at once
 */
export function startShardedLabeler(kubeConfig: KubeConfig, options: ShardedLabelerOptions): ShardedLabeler {
  const { namespace, identity } = options;
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const factory = createKubeInformerFactory(kubeConfig, { namespace }); // the controller's other sources, if it had any
  const ctl = controllerFor<Wire<V1ConfigMap>>(factory, configMaps, {
    name: 'cm-labeler',
    concurrency: 4,
    ...(options.logger && { logger: options.logger }),
    shard: {
      source: kubeConfigListerWatcher(kubeConfig, { resource: configMaps, namespace }), // this replica's slots only
      leases: kubeConfigListerWatcher<Lease>(kubeConfig, { resource: leases, namespace }),
      client: kubeApiClient(kubeConfig),
      namespace,
      ring: 'cm-labeler',
      identity,
      ...options.timing,
    },
  }).reconcile(async ({ object: cm, name }) => {
    if (!cm || cm.metadata?.labels?.['example.com/shard'] === identity) return; // deleted, or done
    await api.patchNamespacedConfigMap(
      { name, namespace, body: { metadata: { labels: { 'example.com/shard': identity } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });
  const run = ctl.start(); // joins the ring
  return {
    run,
    informer: ctl.sourceInformers()[0].informer as SharedInformer<Wire<V1ConfigMap>>,
    stop: async () => {
      await run.stop(); // its reconciles settled, then its Lease released: its slots move at once
      await factory.close();
    },
  };
}

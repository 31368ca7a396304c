/**
 * Recipe: a controller that writes. ConfigMaps labelled `example.com/replicate=true` in one
 * namespace are copied into target namespaces and kept equal; deleting the source deletes its
 * copies first (a finalizer: owner references cannot cross namespaces, so garbage collection cannot
 * do it). Writes go through @rxinformer/controller: immer drafts, `createOrUpdate`, typed errors,
 * and Events on the source.
 */
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { configMaps, createKubeInformerFactory, kubeApiClient } from '@rxinformer/client-node';
import { controllerFor, createEventRecorder, finalizer, isNotFound, resourceApi, type EventRecorder } from '@rxinformer/controller';
import type { Controller, RunningController } from '@rxinformer/controller';
import { type SharedInformer, type Wire } from '@rxinformer/core';

/** A ConfigMap as the cache holds it (client-node's `V1ConfigMap`, its timestamps strings). */
type ConfigMap = Wire<V1ConfigMap>;

/** The label that marks a source ConfigMap. */
export const REPLICATE_LABEL = 'example.com/replicate';
/** The label each copy carries: `namespace.name` of its source. */
export const REPLICA_OF_LABEL = 'example.com/replica-of';
/** The finalizer held on a source while it has copies. */
export const REPLICAS_FINALIZER = 'example.com/replicas';

/** Options of `startReplicator`. */
export interface ReplicatorOptions {
  /** The namespace of the sources. Required. */
  namespace: string;
  /** Where the copies go. Required. */
  targets: string[];
  /** Reported as the Events' `reportingInstance`. Default `replicator-0`. */
  instance?: string;
}

/** A running replicator. */
export interface Replicator {
  /** The source cache. */
  readonly sources: SharedInformer<ConfigMap>;
  /** The controller. */
  readonly controller: Controller;
  /** Its running term. */
  readonly run: RunningController;
  /** The event recorder (its `dropped` count). */
  readonly events: EventRecorder;
  /** Stops the workers, writes the pending event counts, stops the informers. */
  stop(): Promise<void>;
}

/**
 * Starts the replicator.
 *
 * @example
 * const replicator = startReplicator(kc, { namespace: 'config', targets: ['team-a', 'team-b'] });
 */
export function startReplicator(kubeConfig: KubeConfig, options: ReplicatorOptions): Replicator {
  const { namespace, targets, instance = 'replicator-0' } = options;
  const factory = createKubeInformerFactory(kubeConfig, { namespace });
  const sources = factory.informerFor(configMaps);
  const client = kubeApiClient(kubeConfig);
  const cms = resourceApi(client, configMaps);
  const events = createEventRecorder({ client, reportingController: 'example.com/replicator', reportingInstance: instance });

  const copyTo = async (source: ConfigMap, target: string) => {
    const name = source.metadata!.name!;
    const copy: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: target, name } };
    // Read, then a JSON Patch of what differs (nothing when equal); created when absent.
    const { result } = await cms.createOrUpdate(copy, (d) => {
      d.metadata!.labels = { ...d.metadata!.labels, [REPLICA_OF_LABEL]: `${namespace}.${name}` };
      d.data = source.data;
    });
    return result;
  };
  const removeFrom = (source: ConfigMap, target: string) =>
    cms.delete({ namespace: target, name: source.metadata!.name! }).catch((e: unknown) => {
      if (!isNotFound(e)) throw e; // gone already: done
    });

  const controller = controllerFor(factory, configMaps, { name: 'replicator', queue: { baseDelayMs: 50, maxDelayMs: 30_000 } }).reconcile(
    async ({ object: source }) => {
      if (source === undefined || source.metadata?.labels?.[REPLICATE_LABEL] !== 'true') return;
      // A 409 (the cache was behind the server) throws: the key comes back with backoff.
      await finalizer(cms, REPLICAS_FINALIZER, source, {
        apply: async (cm) => {
          const results = await Promise.all(targets.map((t) => copyTo(cm, t)));
          const changed = targets.filter((_, i) => results[i] !== 'unchanged');
          if (changed.length > 0)
            events.event(cm, { type: 'Normal', reason: 'Replicated', action: 'Replicate', note: `copied to ${changed.join(', ')}` });
        },
        cleanup: async (cm) => {
          await Promise.all(targets.map((t) => removeFrom(cm, t)));
          events.event(cm, { type: 'Normal', reason: 'Unreplicated', action: 'Delete', note: `copies deleted from ${targets.join(', ')}` });
        },
      });
    },
  );
  const run = controller.start(); // the cache first, then each change; no reconcile before the sync

  return {
    sources,
    controller,
    run,
    events,
    async stop() {
      await run.stop();
      await events.stop();
      await factory.close();
    },
  };
}

/**
 * The informer metrics of a multi-cluster view: one set of series per cluster, labelled `cluster`,
 * registered as a cluster joins and removed as it leaves.
 */
import type { Observable } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { informerMetrics, type InformerMetricsOptions, type InformerMetricsRegistration } from './informerMetrics.ts';
import type { ObservedInformer } from './informerTracker.ts';
import { once } from './collected.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** What `multiClusterInformerMetrics` reads of a view (core's `MultiClusterInformer` fits). */
export interface ObservedMultiClusterInformer {
  /** The clusters feeding the view now. */
  clusters(): readonly string[];
  /** A cluster's informer. */
  informerOf(cluster: string): ObservedInformer | undefined;
  /** Emits on each cluster's status change, and when a cluster joins or leaves. */
  readonly clusterStatus$: Observable<unknown>;
}

/** Options of `multiClusterInformerMetrics`: `informerMetrics`' without the cluster (each cluster's) and handlers. */
export type MultiClusterMetricsOptions = Omit<InformerMetricsOptions, 'cluster' | 'handlers'>;

/**
 * Registers the informer metrics of each cluster of `view` under `name`, with the cluster as the
 * `cluster` label (`rxinformer_informer_objects{informer="v1/pods",cluster="eu-1"}`): a cluster that
 * joins gets its series, one that leaves loses them. `unregister()` removes them all.
 *
 * @example
 * const pods = fleet.informerFor(podsResource);
 * multiClusterInformerMetrics(pods, { name: 'v1/pods' });
 *
 * Caveat: the series of a cluster begin when it joins: its `initial_sync_seconds` counts from then.
 * The view's own handlers are reported with `informerMetrics(view, { name, handlers })` under
 * another name, if wanted.
 */
export function multiClusterInformerMetrics(view: ObservedMultiClusterInformer, options: MultiClusterMetricsOptions): MetricsRegistration {
  if (typeof view?.clusters !== 'function' || typeof view.informerOf !== 'function' || typeof view.clusterStatus$?.subscribe !== 'function')
    throw new InvalidOptionsError('multiClusterInformerMetrics needs a multi-cluster view (clusters, informerOf, clusterStatus$)');
  if (options === null || typeof options !== 'object')
    throw new InvalidOptionsError('multiClusterInformerMetrics needs options with a name');
  const registered = new Map<string, { informer: ObservedInformer; registration: InformerMetricsRegistration }>();
  const follow = (): void => {
    const present = new Set(view.clusters());
    for (const [cluster, r] of [...registered])
      if (!present.has(cluster) || view.informerOf(cluster) !== r.informer) {
        r.registration.unregister();
        registered.delete(cluster);
      }
    for (const cluster of present) {
      const informer = view.informerOf(cluster);
      if (informer === undefined || registered.has(cluster)) continue;
      registered.set(cluster, { informer, registration: informerMetrics(informer, { ...options, cluster }) });
    }
  };
  follow(); // throws now for a bad name or a conflict
  const subscription = view.clusterStatus$.subscribe(follow);
  return {
    unregister: once(() => {
      subscription.unsubscribe();
      for (const r of registered.values()) r.registration.unregister();
      registered.clear();
    }),
  };
}

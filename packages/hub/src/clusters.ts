/**
 * The clusters a hub serves: one informer factory each (started by the hub), so one informer per
 * resource and scope per cluster, shared by every user; and each cluster's namespaces, from an
 * informer of the hub's own, for filtering cluster-wide subscriptions.
 */
import { type InformerFactory, type InformerScope, type KubeObject, type ResourceDescriptor, type SharedInformer } from '@rxinformer/core';
import { filter, map, Observable, share } from 'rxjs';
import { statusError } from './access.ts';

/** The core group's namespaces. */
export const NAMESPACES: ResourceDescriptor = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };

/** Longest cluster name; names are DNS labels. */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The clusters of a hub. */
export class Clusters {
  readonly #factories: ReadonlyMap<string, InformerFactory>;
  readonly #added = new Map<string, Observable<void>>();
  /** The informers asked for, by cluster, resource and scope: each one watch on an API server. */
  readonly held = new Set<string>();
  readonly defaultCluster: string;

  constructor(factories: Readonly<Record<string, InformerFactory>>, defaultCluster: string) {
    this.#factories = new Map(Object.entries(factories));
    this.defaultCluster = defaultCluster;
  }

  /** The names. */
  names(): string[] {
    return [...this.#factories.keys()];
  }

  /** Starts every factory. */
  start(): void {
    for (const f of this.#factories.values()) f.start();
  }

  /** Shuts every factory down. */
  shutdown(): void {
    for (const f of this.#factories.values()) f.shutdown();
  }

  /** The cluster a request names (its `extra.cluster`), or the default; a 404 for one the hub does not serve. */
  clusterOf(extra: Readonly<Record<string, unknown>> | undefined): string {
    const asked = extra?.cluster;
    if (asked === undefined) return this.defaultCluster;
    if (typeof asked === 'string' && CLUSTER_NAME.test(asked) && this.#factories.has(asked)) return asked;
    const message =
      typeof asked === 'string' && CLUSTER_NAME.test(asked)
        ? `cluster "${asked}" is not served by this hub`
        : 'cluster must be a cluster name';
    return notFound(message);
  }

  /** The shared informer of `resource` in `scope` of `cluster` (made and started on first use). */
  informer(cluster: string, resource: ResourceDescriptor, scope: InformerScope): SharedInformer<KubeObject> {
    const informer = this.#factories.get(cluster)!.informerFor(resource, scope);
    const { group, version, resource: plural, table } = resource;
    this.held.add(JSON.stringify([cluster, group, version, plural, table, scope.namespace, scope.labelSelector, scope.fieldSelector]));
    return informer;
  }

  /** The names of `cluster`'s namespaces, once its namespaces informer has synced. */
  async namespaces(cluster: string): Promise<string[]> {
    const informer = this.informer(cluster, NAMESPACES, {});
    if (!informer.hasSynced()) await new Promise<void>((resolve) => informer.synced$.pipe(filter(Boolean)).subscribe(() => resolve()));
    return informer
      .getStore()
      .list()
      .map((ns) => ns.metadata?.name ?? '');
  }

  /** Emits when a namespace is added to `cluster` (a cluster-wide grant may widen). */
  namespaceAdded$(cluster: string): Observable<void> {
    let added = this.#added.get(cluster);
    if (!added) {
      added = this.informer(cluster, NAMESPACES, {}).events$.pipe(
        filter((d) => d.type === 'Added'),
        map(() => undefined),
        share(),
      );
      this.#added.set(cluster, added);
    }
    return added;
  }
}

function notFound(message: string): never {
  throw statusError(404, 'NotFound', message);
}

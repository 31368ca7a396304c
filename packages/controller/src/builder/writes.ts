/**
 * `req.api(descriptor)`: the reconcile's writes, through the builder's client. Writes to a resource
 * the controller follows (its primary, `owns` or `watches`, in any scope) are recorded for
 * read-your-writes, for each informer whose scope holds the written object.
 */
import {
  InvalidOptionsError,
  matchesLabels,
  parseLabelSelector,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
} from '@rxinformer/core';
import { clusterKey, parseClusterKey } from '@rxinformer/core/multicluster';
import type { ApiClient } from '../client/apiClient.ts';
import { recordedApi, type WriteOutcome } from '../client/recordedApi.ts';
import { resourceApi, type ResourceApi } from '../client/resourceApi.ts';
import type { RequestApi } from '../reconcile/request.ts';
import type { WriteTracker } from './readYourWrites.ts';

/** An informer the controller follows, and the scope it lists and watches. */
export interface FollowedInformer {
  readonly informer: SharedInformer<KubeObject>;
  /** Its namespace; undefined: every namespace. */
  readonly namespace: string | undefined;
  /** Its label selector, parsed; undefined: every object. */
  readonly labels: ReturnType<typeof parseLabelSelector> | undefined;
}

/**
 * The client of a controller's writes: one `ApiClient`, or, over many clusters, the client of each
 * cluster by name (`req.cluster`).
 */
export type ControllerClient = ApiClient | ((cluster: string) => ApiClient);

/** What a reconcile's `api` is made of. */
export interface WriteParts {
  /** The builder's `client` option; undefined: `req.api` throws. */
  readonly client: ControllerClient | undefined;
  /** The informers of each resource the controller follows, by `resourceKey`. */
  readonly informers: ReadonlyMap<string, readonly FollowedInformer[]>;
}

/** Identifies a resource among a controller's: `group/version/resource`. */
export function resourceKey(resource: Pick<ResourceDescriptor, 'group' | 'version' | 'resource'>): string {
  return `${resource.group}/${resource.version}/${resource.resource}`;
}

/**
 * The cache key of what a write left, by `informer`'s own `keyFunc` (the key its deltas carry);
 * undefined when that keyFunc cannot key it (a deleted object is known by its name only).
 */
function keyOf(outcome: WriteOutcome<KubeObject>, informer: SharedInformer<KubeObject>, cluster: string | undefined): string | undefined {
  const object = 'object' in outcome ? outcome.object : { metadata: { namespace: outcome.gone.namespace, name: outcome.gone.name } };
  try {
    const key = informer.getStore().keyFunc(object);
    return cluster === undefined ? key : clusterKey(cluster, key); // a multi-cluster view files it in its cluster
  } catch {
    return undefined; // nothing to wait for that the cache could show
  }
}

/**
 * True when `followed`'s scope could hold what the write left: its namespace, and for an object
 * written its labels (a delete of an object out of scope was never cached). A field selector is
 * the server's to judge: its writes are waited for, at worst until the timeout.
 */
function inScope(followed: FollowedInformer, outcome: WriteOutcome<KubeObject>): boolean {
  const namespace = 'object' in outcome ? outcome.object.metadata?.namespace : outcome.gone.namespace;
  if (followed.namespace !== undefined && namespace !== followed.namespace) return false;
  return !('object' in outcome) || followed.labels === undefined || matchesLabels(followed.labels, outcome.object.metadata?.labels);
}

/**
 * The `api` of one reconcile of `primaryKey`: `ResourceApi`s over `parts.client`, whose writes to a
 * followed resource `tracker` records (none when it is undefined: read-your-writes is off).
 */
export function requestApi(parts: WriteParts, tracker: WriteTracker | undefined, primaryKey: string): RequestApi {
  return <S extends KubeObject>(resource: ResourceDescriptor<S>): ResourceApi<S> => {
    const cluster = parseClusterKey(primaryKey)?.cluster;
    const api = resourceApi(clientOf(parts.client, cluster), resource);
    const followed = tracker && parts.informers.get(resourceKey(resource));
    if (tracker === undefined || followed === undefined) return api;
    return recordedApi(api, (outcome) => {
      for (const f of followed) {
        const key = inScope(f, outcome) ? keyOf(outcome, f.informer, cluster) : undefined;
        if (key === undefined) continue; // nothing this cache could show
        if ('gone' in outcome) {
          tracker.record(primaryKey, f.informer, { resource: resource.resource, key, deleted: true, uid: outcome.uid });
          continue;
        }
        const resourceVersion = outcome.object.metadata?.resourceVersion;
        if (resourceVersion !== undefined) tracker.record(primaryKey, f.informer, { resource: resource.resource, key, resourceVersion });
      }
    });
  };
}

/** The client of a reconcile in `cluster` (undefined: one cluster's controller); `InvalidOptionsError` when there is none. */
function clientOf(client: ControllerClient | undefined, cluster: string | undefined): ApiClient {
  if (client === undefined) throw new InvalidOptionsError("req.api needs the controller's client option");
  if (typeof client !== 'function') return client;
  if (cluster === undefined) throw new InvalidOptionsError('req.api: a client per cluster needs keys with a cluster (cluster://NAME/…)');
  const made = client(cluster);
  if (typeof made?.request !== 'function')
    throw new InvalidOptionsError(`req.api: the client option gave no ApiClient for cluster ${cluster}`);
  return made;
}

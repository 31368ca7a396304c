/**
 * `req.api(descriptor)`: the reconcile's writes, through the builder's client. Writes to a resource
 * the controller follows (its primary, `owns` or `watches`) are recorded for read-your-writes.
 */
import { InvalidOptionsError, type KubeObject, type ResourceDescriptor, type SharedInformer } from '@rxinformer/core';
import type { ApiClient } from '../apiClient.ts';
import { recordedApi, type WriteOutcome } from '../recordedApi.ts';
import { resourceApi, type ResourceApi } from '../resourceApi.ts';
import type { WriteTracker } from './readYourWrites.ts';

/** What a reconcile's `api` is made of. */
export interface WriteParts {
  /** The builder's `client` option; undefined: `req.api` throws. */
  readonly client: ApiClient | undefined;
  /** The informer of each resource the controller follows, by `resourceKey`. */
  readonly informers: ReadonlyMap<string, SharedInformer<KubeObject>>;
}

/** The request's `api` of a reconcile: makes a `ResourceApi` for a descriptor. */
export type RequestApi = <S extends KubeObject>(resource: ResourceDescriptor<S>) => ResourceApi<S>;

/** Identifies a resource among a controller's: `group/version/resource`. */
export function resourceKey(resource: Pick<ResourceDescriptor, 'group' | 'version' | 'resource'>): string {
  return `${resource.group}/${resource.version}/${resource.resource}`;
}

/**
 * The cache key of what a write left, by `informer`'s own `keyFunc` (the key its deltas carry);
 * undefined when that keyFunc cannot key it (a deleted object is known by its name only).
 */
function keyOf(outcome: WriteOutcome<KubeObject>, informer: SharedInformer<KubeObject>): string | undefined {
  const object = 'object' in outcome ? outcome.object : { metadata: { namespace: outcome.gone.namespace, name: outcome.gone.name } };
  try {
    return informer.getStore().keyFunc(object);
  } catch {
    return undefined; // nothing to wait for that the cache could show
  }
}

/**
 * The `api` of one reconcile of `primaryKey`: `ResourceApi`s over `parts.client`, whose writes to a
 * followed resource `tracker` records (none when it is undefined: read-your-writes is off).
 */
export function requestApi(parts: WriteParts, tracker: WriteTracker | undefined, primaryKey: string): RequestApi {
  return <S extends KubeObject>(resource: ResourceDescriptor<S>): ResourceApi<S> => {
    if (parts.client === undefined) throw new InvalidOptionsError("req.api needs the controller's client option");
    const api = resourceApi(parts.client, resource);
    const informer = tracker && parts.informers.get(resourceKey(resource));
    if (tracker === undefined || informer === undefined) return api;
    return recordedApi(api, (outcome) => {
      const key = keyOf(outcome, informer);
      if (key === undefined) return; // nothing the cache could show
      if ('gone' in outcome)
        return tracker.record(primaryKey, informer, { resource: resource.resource, key, deleted: true, uid: outcome.uid });
      const resourceVersion = outcome.object.metadata?.resourceVersion;
      if (resourceVersion !== undefined) tracker.record(primaryKey, informer, { resource: resource.resource, key, resourceVersion });
    });
  };
}

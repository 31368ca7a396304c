/**
 * What a reconcile is given: the one request type of the controller package — the key, the object
 * as the cache holds it, a signal that aborts it, a logger for it and the write API.
 */
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';
import { parseClusterKey } from '@rxinformer/core/multicluster';
import type { ResourceApi } from '../client/resourceApi.ts';
import type { Logger } from '../log/logger.ts';
import type { ReconcileResult } from './result.ts';

/** The request's `api` of a reconcile: makes a `ResourceApi` for a descriptor. */
export type RequestApi = <S extends KubeObject>(resource: ResourceDescriptor<S>) => ResourceApi<S>;

/** The object to reconcile: its key, its state in the primary informer's cache now, and the reconcile's context. */
export interface ReconcileRequest<T extends KubeObject> {
  /**
   * The primary informer's cache key, as its deltas carried it: `namespace/name`, or `name` for a
   * cluster-scoped object (an informer made with a custom `keyFunc`: that function's key).
   */
  readonly key: string;
  /**
   * The cluster of the object, in a controller over a multi-cluster factory (its keys are
   * `cluster://NAME/namespace/name`: multicluster-runtime's request); `api` writes to it. Absent
   * in a controller of one cluster.
   */
  readonly cluster?: string;
  /**
   * The namespace; absent for a cluster-scoped object. The cached object's; once it is gone, the
   * key's part before `/` (with a custom `keyFunc`, keep what you need in the key).
   */
  readonly namespace?: string;
  /** The name: the cached object's; once it is gone, the key's part after `/`. */
  readonly name: string;
  /** The object as the cache holds it now; `undefined`: it is gone (deleted, or never existed). */
  readonly object: T | undefined;
  /**
   * Aborts when the reconcile should stop: its controller stops (leadership lost, shutdown) or it
   * outlived `reconcileTimeoutMs`. Its `reason` says which (`ReconcileTimeoutError`,
   * `ControllerStoppedError`). Pass it to each request (`{ signal }`) and check it between steps;
   * the key is not released before the reconcile settles, whatever it does with the signal.
   */
  readonly signal: AbortSignal;
  /** A logger whose lines carry the controller's name, the key and this reconcile's id. */
  readonly log: Logger;
  /**
   * The reads and writes of a resource through the controller's `client` option (throws
   * `InvalidOptionsError` without one). With read-your-writes on, the writes to a resource the
   * controller follows hold this key's next reconcile until its informer's cache shows them.
   */
  readonly api: RequestApi;
}

/**
 * A controller's reconcile: a failure (throw, rejection) retries the key with backoff, unless it
 * is a `TerminalError`.
 */
export type Reconcile<T extends KubeObject> = (request: ReconcileRequest<T>) => Promise<ReconcileResult | void>;

/**
 * The cluster, namespace and name of `key`: the cluster of a `cluster://NAME/…` key, and the cached
 * object's namespace and name, or, once it is gone, the key's read as `namespace/name` (a custom
 * `keyFunc`'s key is passed as is, and its object found by it).
 */
export function nameOf(key: string, object: KubeObject | undefined): { cluster?: string; namespace?: string; name: string } {
  const inCluster = parseClusterKey(key);
  if (inCluster !== undefined) return { cluster: inCluster.cluster, ...nameOf(inCluster.key, object) };
  const meta = object?.metadata;
  if (meta?.name !== undefined) return meta.namespace ? { namespace: meta.namespace, name: meta.name } : { name: meta.name };
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

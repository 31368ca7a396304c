/**
 * What a builder controller's reconcile is given and may answer, typed so that a mistyped answer
 * does not compile, and checked at run time for callers without types.
 */
import { InvalidOptionsError, type KubeObject } from '@rxinformer/core';
import { InvalidReconcileResultError } from '@rxinformer/core/workqueue';
import type { RequestApi } from './writes.ts';

/** The object to reconcile: its key, and its state in the primary informer's cache now. */
export interface ReconcileRequest<T extends KubeObject> {
  /**
   * The primary informer's cache key, as its deltas carried it: `namespace/name`, or `name` for a
   * cluster-scoped object (an informer made with a custom `keyFunc`: that function's key).
   */
  readonly key: string;
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
   * The reads and writes of a resource through the controller's `client` option (throws
   * `InvalidOptionsError` without one). With read-your-writes on, the writes to a resource the
   * controller follows hold this key's next reconcile until its informer's cache shows them.
   */
  readonly api: RequestApi;
}

/**
 * What a reconcile may answer besides nothing: look at the key again. `requeueAfterMs` (a finite
 * number >= 0): after that long, its backoff forgotten. `requeue: true` without a delay: after the
 * rate limiter's backoff, which keeps growing while it is answered (controller-runtime's
 * `Requeue`). Any other property is refused at compile time and at run time.
 */
export interface ReconcileResult {
  /** Look again after the rate-limited backoff. */
  readonly requeue?: boolean;
  /** Look again after this many ms; wins over `requeue`. */
  readonly requeueAfterMs?: number;
}

/** A builder controller's reconcile: a failure (throw, rejection) retries the key with backoff. */
export type Reconcile<T extends KubeObject> = (request: ReconcileRequest<T>) => Promise<ReconcileResult | void>;

const RESULT_KEYS = new Set(['requeue', 'requeueAfterMs']);

/**
 * `result` if a reconcile may answer it (`undefined`, or an object of `requeue` and
 * `requeueAfterMs` only); else throws `InvalidReconcileResultError`, which the controller reports
 * and handles as a failure. The values themselves are checked by the controller loop.
 */
export function checkReconcileResult(key: string, result: unknown): ReconcileResult | undefined {
  if (result === undefined) return undefined;
  if (result === null || typeof result !== 'object' || Array.isArray(result))
    throw new InvalidReconcileResultError(key, result, { cause: new InvalidOptionsError('a reconcile answers undefined or an object') });
  const unknown = Object.keys(result).filter((k) => !RESULT_KEYS.has(k));
  if (unknown.length > 0)
    throw new InvalidReconcileResultError(key, result, { cause: new InvalidOptionsError(`unknown properties: ${unknown.join(', ')}`) });
  return result as ReconcileResult;
}

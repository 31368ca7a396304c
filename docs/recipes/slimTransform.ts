/**
 * Recipe: a memory-saving transform. Most controllers never read `metadata.managedFields` (the
 * server-side-apply bookkeeping, often a third of a pod's JSON) or the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation (the whole manifest once more, as a
 * JSON string). Dropping them before the object is frozen and stored shrinks every cached object.
 */
import type { KubeObject } from '@rxinformer/core';

/** The annotation `kubectl apply` (client-side) writes: the applied manifest, as JSON. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Options of `slimTransform`. */
export interface SlimTransformOptions {
  /** Drop `metadata.managedFields`. Default true. */
  dropManagedFields?: boolean;
  /** Annotations always dropped. Default: `[LAST_APPLIED_ANNOTATION]`. */
  dropAnnotations?: readonly string[];
  /** Also drop any annotation whose value is longer than this (in UTF-16 code units). Default: no limit. */
  maxAnnotationLength?: number;
}

/**
 * A `transform` for an informer or a factory that drops what a controller rarely reads.
 *
 * It mutates the object it is given: the delta store hands the transform the freshly decoded
 * object, before it is frozen, so nothing else holds it yet. Caveat: what it drops is gone from
 * the cache, for every consumer of that informer; a handler that needs an annotation must not
 * share a factory with a transform that drops it. An object without metadata is returned as is.
 *
 * @example
 * const factory = createKubeInformerFactory(kc, { transform: slimTransform({ maxAnnotationLength: 4096 }) });
 */
export function slimTransform(options: SlimTransformOptions = {}): <T extends KubeObject>(obj: T) => T {
  const dropManagedFields = options.dropManagedFields ?? true;
  const dropped = new Set(options.dropAnnotations ?? [LAST_APPLIED_ANNOTATION]);
  const maxLength = options.maxAnnotationLength ?? Infinity;
  return (obj) => {
    const meta = obj.metadata;
    if (meta === undefined || meta === null) return obj;
    if (dropManagedFields) delete meta.managedFields;
    const annotations = meta.annotations;
    if (annotations) {
      for (const [name, value] of Object.entries(annotations)) {
        if (dropped.has(name) || value.length > maxLength) delete annotations[name];
      }
    }
    return obj;
  };
}

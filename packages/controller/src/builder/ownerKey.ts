/**
 * The key of an object's controller owner, when that owner is of the primary resource: what
 * `owns` enqueues. Private to the builder; the package's owner-reference helpers may replace it.
 */
import type { KubeObject, ResourceDescriptor } from '@rxinformer/core';

/** The parts of an owner reference the builder reads. */
interface OwnerRef {
  apiVersion?: unknown;
  kind?: unknown;
  name?: unknown;
  controller?: unknown;
}

/** The API group of an `apiVersion` (`apps/v1` → `apps`, `v1` → the core group `""`). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The cache key of `obj`'s controller owner (the owner reference with `controller: true`) if it is
 * a `primary` (same group and kind), else undefined. A namespaced owner is in `obj`'s namespace.
 */
export function controllerOwnerKey(obj: KubeObject | undefined, primary: ResourceDescriptor & { kind: string }): string | undefined {
  const refs = obj?.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = (refs as (OwnerRef | null)[]).find((r) => r?.controller === true) ?? undefined;
  if (ref === undefined || typeof ref.apiVersion !== 'string' || typeof ref.name !== 'string' || ref.name === '') return undefined;
  if (ref.kind !== primary.kind || groupOf(ref.apiVersion) !== primary.group) return undefined;
  if (!primary.namespaced) return ref.name;
  const namespace = obj?.metadata?.namespace;
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${ref.name}` : undefined;
}

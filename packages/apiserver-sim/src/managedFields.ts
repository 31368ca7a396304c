/**
 * `metadata.managedFields` as a real server writes them: one entry per field manager and
 * operation, with a FieldsV1 description of the fields that manager set.
 */
import type { KubeObject } from '@rxinformer/core';
import { isJsonObject, jsonEqual, type Json } from './json.ts';
import { childScope, itemKeyFields, listTypeAt, rootScope } from './listMergeStrategies.ts';

/** One managedFields entry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  /** When the manager last changed the object; absent for an entry that never did (see `withManagedFields`). */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** The metadata fields a manager can own. */
export const METADATA_FIELDS = ['generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences'];

/**
 * The FieldsV1 description of one value at `scope` (see `listMergeStrategies.ts`; undefined for a value of a
 * kind the list tables do not describe): `f:` keys for object fields, `k:` for keyed list items
 * (with their `.` marker), `v:` for the items of a set or scalar list, `{}` for a leaf or an atomic
 * list.
 *
 * @example
 * fieldsOfValue({ a: '1', env: [{ name: 'X' }] }); // { 'f:a': {}, 'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:name': {} } } }
 * fieldsOfValue([{ key: 'k', operator: 'Exists' }], 'Pod.spec.tolerations'); // {}
 */
export function fieldsOfValue(value: unknown, scope?: string): Record<string, unknown> {
  return describe(value as Json, scope);
}

/**
 * The FieldsV1 key of an item of the list at `scope`: `k:{"containerPort":80,"protocol":"TCP"}`
 * for a keyed item (its list-map keys, see `itemKeyFields`), `v:"x"` for a scalar, undefined for an
 * object without a key.
 *
 * @example
 * fieldsItemKey({ uid: 'u1', name: 'rs' }, 'Pod.metadata.ownerReferences'); // 'k:{"uid":"u1"}'
 */
export function fieldsItemKey(item: unknown, scope?: string): string | undefined {
  if (!isJsonObject(item)) return `v:${JSON.stringify(item)}`;
  const key = itemKeyFields(item, scope);
  return key === undefined ? undefined : `k:${JSON.stringify(key)}`;
}

function describe(value: Json, scope: string | undefined): Record<string, unknown> {
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    if (listTypeAt(scope)?.type === 'atomic') return out;
    for (const item of value) {
      const key = item === null ? undefined : fieldsItemKey(item, scope);
      if (key !== undefined) out[key] = isJsonObject(item) ? { '.': {}, ...describe(item, scope) } : {};
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[`f:${k}`] = describe(v, childScope(scope, k));
    return out;
  }
  return {};
}

/**
 * The FieldsV1 set of an object's user-set fields (`status` excluded unless `subresource` is `status`).
 *
 * @example
 * fieldsOf(configMap); // { 'f:data': { 'f:a': {} } }
 */
export function fieldsOf(obj: KubeObject, subresource?: string): Record<string, unknown> {
  const o = obj as unknown as Record<string, Json>;
  const root = rootScope(obj);
  if (subresource === 'status') return o.status === undefined ? {} : { 'f:status': describe(o.status, childScope(root, 'status')) };
  const out: Record<string, unknown> = {};
  const meta = (o.metadata ?? {}) as Record<string, Json>;
  const metaScope = childScope(root, 'metadata');
  const m: Record<string, unknown> = {};
  for (const f of METADATA_FIELDS) if (meta[f] !== undefined) m[`f:${f}`] = describe(meta[f], childScope(metaScope, f));
  if (Object.keys(m).length > 0) out['f:metadata'] = m;
  for (const [k, v] of Object.entries(o)) {
    if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
    out[`f:${k}`] = describe(v, childScope(root, k));
  }
  return out;
}

/**
 * The managedFields of `obj` after `manager` wrote it whole (a create, or an apply of `obj` as its
 * configuration): the manager's entry for this operation is replaced by all of `obj`'s fields, the
 * others are kept. Updates of existing objects own only what they change: see `withUpdatedFields`.
 *
 * `time` is the write's time when it changed the object, undefined when it left the object as it
 * was: as on a real API server, an apply stamps its entry only when the object changed, so an apply
 * that changes nothing but ownership keeps the entry's previous time (and a new entry gets none).
 *
 * @example
 * meta.managedFields = withManagedFields(current.metadata.managedFields, applied, 'kubectl', 'Apply', changed ? timestamp() : undefined);
 */
export function withManagedFields(
  existing: readonly ManagedFieldsEntry[] | undefined,
  obj: KubeObject,
  manager: string,
  operation: 'Update' | 'Apply',
  time: string | undefined,
  subresource?: string,
): ManagedFieldsEntry[] {
  const same = (e: ManagedFieldsEntry) => e.manager === manager && e.operation === operation && e.subresource === subresource;
  const stamp = time ?? existing?.find(same)?.time;
  const entry: ManagedFieldsEntry = {
    manager,
    operation,
    apiVersion: obj.apiVersion ?? 'v1',
    ...(stamp !== undefined ? { time: stamp } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsOf(obj, subresource),
    ...(subresource ? { subresource } : {}),
  };
  const others = (existing ?? []).filter((e) => !same(e));
  // as the API server: a manager that owns no field has no entry
  return Object.keys(entry.fieldsV1).length > 0 ? [...others, entry] : others;
}

/**
 * Whether two managedFields lists record the same ownership: the same entries (manager, operation,
 * subresource, apiVersion) with the same field sets, whatever their times and order.
 *
 * @example
 * if (objectUnchanged && sameOwnership(next.metadata.managedFields, current.metadata.managedFields)) return current;
 */
export function sameOwnership(a: readonly ManagedFieldsEntry[] | undefined, b: readonly ManagedFieldsEntry[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  return x.every((e) =>
    y.some(
      (f) =>
        f.manager === e.manager &&
        f.operation === e.operation &&
        f.subresource === e.subresource &&
        f.apiVersion === e.apiVersion &&
        jsonEqual(f.fieldsV1, e.fieldsV1),
    ),
  );
}

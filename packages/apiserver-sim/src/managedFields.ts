/**
 * `metadata.managedFields` as a real server writes them: one entry per field manager and
 * operation, with a FieldsV1 description of the fields that manager set.
 */
import type { KubeObject } from '@rxinformer/core';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** One managedFields entry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const METADATA_FIELDS = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

function describe(value: Json): Record<string, unknown> {
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const item of value) {
      if (item && typeof item === 'object' && !Array.isArray(item)) {
        const keyField = ['name', 'containerPort', 'mountPath', 'uid', 'type'].find((k) => k in item);
        if (keyField) out[`k:${JSON.stringify({ [keyField]: item[keyField] })}`] = { '.': {}, ...describe(item) };
      } else if (item !== null) out[`v:${JSON.stringify(item)}`] = {};
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[`f:${k}`] = describe(v);
    return out;
  }
  return {};
}

/** The FieldsV1 set of an object's user-set fields (`status` excluded unless `subresource` is `status`). */
export function fieldsOf(obj: KubeObject, subresource?: string): Record<string, unknown> {
  const o = obj as unknown as Record<string, Json>;
  if (subresource === 'status') return o.status === undefined ? {} : { 'f:status': describe(o.status) };
  const out: Record<string, unknown> = {};
  const meta = (o.metadata ?? {}) as Record<string, Json>;
  const m: Record<string, unknown> = {};
  for (const f of METADATA_FIELDS) if (meta[f] !== undefined) m[`f:${f}`] = describe(meta[f]);
  if (Object.keys(m).length > 0) out['f:metadata'] = m;
  for (const [k, v] of Object.entries(o)) {
    if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
    out[`f:${k}`] = describe(v);
  }
  return out;
}

/**
 * The managedFields of `obj` after `manager` wrote it: the manager's entry for this operation is
 * replaced, the others are kept.
 */
export function withManagedFields(
  existing: readonly ManagedFieldsEntry[] | undefined,
  obj: KubeObject,
  manager: string,
  operation: 'Update' | 'Apply',
  time: string,
  subresource?: string,
): ManagedFieldsEntry[] {
  const entry: ManagedFieldsEntry = {
    manager,
    operation,
    apiVersion: obj.apiVersion ?? 'v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsOf(obj, subresource),
    ...(subresource ? { subresource } : {}),
  };
  const others = (existing ?? []).filter((e) => !(e.manager === manager && e.operation === operation && e.subresource === subresource));
  return [...others, entry];
}

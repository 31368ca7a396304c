/**
 * Server-side apply field ownership: which fields of an applied configuration would change a
 * value another field manager owns (a conflict: 409 unless `force=true`), and handing those fields
 * over to the applier when forced.
 *
 * Kept simple but real: ownership is read from the stored `managedFields` (FieldsV1 sets), a
 * conflict is a leaf field the applied configuration sets to a different value than the current
 * one while another manager owns it; setting the same value shares the field, as on a real server.
 */
import type { KubeObject } from '@rxinformer/core';
import { childScope, itemKeyFields, listTypeAt, rootScope } from './listMergeStrategies.ts';
import { isJsonObject, jsonEqual } from './json.ts';
import { METADATA_FIELDS, type ManagedFieldsEntry } from './managedFields.ts';
import { ApiStatusError, failure } from './status.ts';

/** One field another manager owns that an apply would change. */
export interface ApplyConflict {
  /** The manager owning the field. */
  manager: string;
  operation: ManagedFieldsEntry['operation'];
  apiVersion: string;
  /** The subresource of the owner's entry (`status` for a status update), undefined for the main resource. */
  subresource?: string;
  /** The field as the API server prints it: `.spec.containers[name="web"].image`. */
  field: string;
  /** The FieldsV1 keys leading to the field in the owner's set (`f:spec`, `k:{"name":"web"}`, `f:image`). */
  keys: string[];
}

type Node = Record<string, unknown>;
const isObject = isJsonObject;

/** Walks the applied value beside the current one and one owner's FieldsV1 node, at `scope` (see `listMergeStrategies.ts`). */
function walk(
  applied: unknown,
  current: unknown,
  owned: Node,
  scope: string | undefined,
  field: string,
  keys: string[],
  found: (field: string, keys: string[]) => void,
): void {
  if (isObject(applied)) {
    for (const [k, v] of Object.entries(applied)) {
      const child = owned[`f:${k}`];
      if (isObject(child))
        walk(v, isObject(current) ? current[k] : undefined, child, childScope(scope, k), `${field}.${k}`, [...keys, `f:${k}`], found);
    }
    return;
  }
  if (Array.isArray(applied) && listTypeAt(scope)?.type !== 'atomic') {
    for (const item of applied) {
      if (!isObject(item)) continue; // sets of scalars merge: never a conflict
      const key = itemKeyFields(item, scope);
      const fk = key === undefined ? undefined : `k:${JSON.stringify(key)}`;
      const child = fk === undefined ? undefined : owned[fk];
      if (!isObject(child)) continue;
      const entries = Object.entries(key!);
      const match: unknown = Array.isArray(current)
        ? (current as unknown[]).find((c) => isObject(c) && entries.every(([n, v]) => jsonEqual(c[n], v)))
        : undefined;
      const selector = entries.map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(',');
      walk(item, match, child, scope, `${field}[${selector}]`, [...keys, fk!], found);
    }
    return;
  }
  // a leaf, or an atomic list: owned whole
  if (!jsonEqual(applied, current)) found(field, keys);
}

/**
 * The conflicts of applying `applied` as `manager` to `current`: fields owned by other managers
 * that the apply would set to another value. An apply to the main resource compares the metadata
 * fields managers own and every top-level field but `status`; an apply to the `status`
 * subresource compares `status` alone, against every manager owning status fields (typically an
 * Update through the status subresource, such as a kubelet's).
 *
 * @example
 * const conflicts = findApplyConflicts(current, { data: { a: '2' } }, 'ci');
 * if (conflicts.length > 0 && !force) throw applyConflictError(conflicts);
 * findApplyConflicts(pod, { status: { phase: 'Failed' } }, 'ctl', 'status'); // [{ manager: 'kubelet', field: '.status.phase', … }]
 */
export function findApplyConflicts(current: KubeObject, applied: KubeObject, manager: string, subresource?: string): ApplyConflict[] {
  const out: ApplyConflict[] = [];
  const a = applied as unknown as Record<string, unknown>;
  const c = current as unknown as Record<string, unknown>;
  const root = rootScope(current);
  const metaScope = childScope(root, 'metadata');
  for (const entry of (current.metadata?.managedFields ?? []) as ManagedFieldsEntry[]) {
    if (entry.manager === manager || !isObject(entry.fieldsV1)) continue;
    const found = (field: string, keys: string[]) =>
      out.push({
        manager: entry.manager,
        operation: entry.operation,
        apiVersion: entry.apiVersion,
        ...(entry.subresource ? { subresource: entry.subresource } : {}),
        field,
        keys,
      });
    if (subresource === 'status') {
      const owned = entry.fieldsV1['f:status'];
      if (a.status !== undefined && isObject(owned))
        walk(a.status, c.status, owned, childScope(root, 'status'), '.status', ['f:status'], found);
      continue;
    }
    const ownedMeta = entry.fieldsV1['f:metadata'];
    const appliedMeta = (applied.metadata ?? {}) as Record<string, unknown>;
    if (isObject(ownedMeta)) {
      for (const f of METADATA_FIELDS) {
        const owned = ownedMeta[`f:${f}`];
        if (appliedMeta[f] !== undefined && isObject(owned)) {
          walk(
            appliedMeta[f],
            (current.metadata as Record<string, unknown>)[f],
            owned,
            childScope(metaScope, f),
            `.metadata.${f}`,
            ['f:metadata', `f:${f}`],
            found,
          );
        }
      }
    }
    for (const [k, v] of Object.entries(a)) {
      if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
      const owned = entry.fieldsV1[`f:${k}`];
      if (isObject(owned)) walk(v, c[k], owned, childScope(root, k), `.${k}`, [`f:${k}`], found);
    }
  }
  return out;
}

// as the API server names a manager: `"kubelet" with subresource "status" using v1` (the version for updates only)
const who = (c: ApplyConflict): string => {
  const name = c.subresource ? `"${c.manager}" with subresource "${c.subresource}"` : `"${c.manager}"`;
  return c.operation === 'Apply' ? `conflict with ${name}` : `conflict with ${name} using ${c.apiVersion}`;
};

/** The 409 Conflict Status a real server answers, one cause (`FieldManagerConflict`) per field. */
export function applyConflictError(conflicts: readonly ApplyConflict[]): ApiStatusError {
  const n = conflicts.length;
  // several: grouped by manager, the managers sorted, as the API server words it
  const byManager = new Map<string, string[]>();
  for (const c of [...conflicts].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0))) {
    const owner = who(c).replace(/^conflict with /, '');
    byManager.set(owner, [...(byManager.get(owner) ?? []), `- ${c.field}`]);
  }
  const grouped = [...byManager].flatMap(([owner, fields]) => [`conflicts with ${owner}:`, ...fields]);
  const message =
    n === 1
      ? `Apply failed with 1 conflict: ${who(conflicts[0])}: ${conflicts[0].field}`
      : `Apply failed with ${n} conflicts: ${grouped.join('\n')}`;
  return new ApiStatusError(
    failure(409, 'Conflict', message, {
      causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: who(c), field: c.field })),
    }),
  );
}

function without(node: Node, keys: readonly string[]): Node {
  const [head, ...rest] = keys;
  if (!(head in node)) return node;
  const out = { ...node };
  if (rest.length === 0 || !isObject(node[head])) delete out[head];
  else {
    const child = without(node[head] as Node, rest);
    // a list item or map left with nothing but its own marker is no longer owned
    if (Object.keys(child).every((k) => k === '.')) delete out[head];
    else out[head] = child;
  }
  return out;
}

/**
 * The managedFields after a forced apply: every conflicting field leaves its previous owner
 * (entries left empty are dropped). Entries are copied, never mutated.
 */
export function releaseFields(entries: readonly ManagedFieldsEntry[], conflicts: readonly ApplyConflict[]): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    let fields = e.fieldsV1;
    for (const c of conflicts)
      if (c.manager === e.manager && c.operation === e.operation && c.subresource === e.subresource) fields = without(fields, c.keys);
    if (fields === e.fieldsV1) out.push(e);
    else if (Object.keys(fields).length > 0) out.push({ ...e, fieldsV1: fields });
  }
  return out;
}

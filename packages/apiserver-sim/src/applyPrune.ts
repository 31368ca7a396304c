/**
 * Server-side apply removes what an applier stopped applying: a field the manager owned through
 * its previous Apply, that its new applied configuration no longer sets, and that no other manager
 * owns, is removed from the object (a map key deleted, a keyed list item dropped). A field another
 * manager still owns stays; only the applier's ownership of it goes (its Apply entry is replaced by
 * the new configuration's fields).
 */
import type { KubeObject } from '@rxinformer/core';
import { childScope, rootScope } from './listMergeStrategies.ts';
import { isJsonObject } from './json.ts';
import { fieldsItemKey, fieldsOf, type ManagedFieldsEntry } from './managedFields.ts';

type Node = Record<string, unknown>;
const isObject = isJsonObject as (v: unknown) => v is Node;

/**
 * What to remove under one path: `'all'` removes the path with everything under it; otherwise the
 * children to descend into, and whether the path goes too when nothing is left under it (nobody but
 * the applier owned anything there).
 */
export type Removal = 'all' | { dropIfEmpty: boolean; children: Removals };
/** Removals keyed by FieldsV1 keys (`f:data`, `k:{"name":"web"}`, `v:"x"`). */
export type Removals = Record<string, Removal>;

/** A FieldsV1 node is a member of its set (owned itself) when it is a leaf or carries the `.` marker. */
const isMember = (n: Node): boolean => '.' in n || Object.keys(n).length === 0;

/**
 * The paths of `previous` (the applier's last Apply set) that neither `next` (its new applied set)
 * nor any of `others` (the other managers' sets) owns, themselves or anything under them.
 *
 * @example
 * removedFields({ 'f:data': { 'f:a': {}, 'f:b': {} } }, { 'f:data': { 'f:a': {} } }, []);
 * // { 'f:data': { dropIfEmpty: false, children: { 'f:b': 'all' } } }
 */
export function removedFields(previous: Node, next: Node | undefined, others: readonly Node[]): Removals {
  const out: Removals = {};
  for (const [k, child] of Object.entries(previous)) {
    if (k === '.' || !isObject(child)) continue;
    const mine = next?.[k];
    const theirs = others.map((o) => o[k]).filter(isObject);
    if (!isObject(mine) && theirs.length === 0) {
      out[k] = isMember(child) ? 'all' : { dropIfEmpty: true, children: removedFields(child, undefined, []) };
      continue;
    }
    const children = removedFields(child, isObject(mine) ? mine : undefined, theirs);
    if (Object.keys(children).length > 0) out[k] = { dropIfEmpty: false, children };
  }
  return out;
}

const isEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/**
 * `value` without the paths of `removals`, copied where it changes (the input is not mutated). List
 * items are matched by their FieldsV1 keys at `scope` (see `listMergeStrategies.ts`; undefined for a value of
 * a kind the list tables do not describe).
 *
 * @example
 * withoutFields({ data: { a: '1', b: '2' } }, { 'f:data': { dropIfEmpty: false, children: { 'f:b': 'all' } } });
 * // { data: { a: '1' } }
 */
export function withoutFields(value: unknown, removals: Removals, scope?: string): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const key = fieldsItemKey(item, scope);
      const r = key === undefined ? undefined : removals[key];
      if (r === 'all') continue;
      out.push(r === undefined ? item : withoutFields(item, r.children, scope));
    }
    return out;
  }
  if (!isObject(value)) return value;
  const out = { ...value };
  for (const [k, r] of Object.entries(removals)) {
    const name = k.slice(2);
    if (!k.startsWith('f:') || !(name in out)) continue;
    if (r === 'all') {
      delete out[name];
      continue;
    }
    const v = withoutFields(out[name], r.children, childScope(scope, name));
    if (r.dropIfEmpty && isEmpty(v)) delete out[name];
    else out[name] = v;
  }
  return out;
}

/**
 * The merged result of an apply by `manager`, without the fields it dropped from its applied
 * configuration since its last Apply (to the same `subresource`) that no other entry of `entries`
 * owns. Returns `merged` itself when nothing is dropped (no previous Apply entry, or the same fields
 * applied).
 *
 * @example
 * const merged = applyStrategicMergePatch(current, applied);
 * const stored = pruneDroppedFields(merged, current.metadata.managedFields, applied, 'kubectl');
 */
export function pruneDroppedFields(
  merged: KubeObject,
  entries: readonly ManagedFieldsEntry[],
  applied: KubeObject,
  manager: string,
  subresource?: string,
): KubeObject {
  const mine = entries.find((e) => e.manager === manager && e.operation === 'Apply' && e.subresource === subresource);
  if (!mine || !isObject(mine.fieldsV1)) return merged;
  const others = entries.filter((e) => e !== mine && isObject(e.fieldsV1)).map((e) => e.fieldsV1);
  const removals = removedFields(mine.fieldsV1, fieldsOf(applied, subresource), others);
  return Object.keys(removals).length === 0 ? merged : (withoutFields(merged, removals, rootScope(merged)) as KubeObject);
}

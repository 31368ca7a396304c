/**
 * Field ownership of a plain write (PUT or non-apply PATCH, operation `Update`), as a real server
 * records it: the writer's Update entry gains the fields the write added or changed, loses the
 * fields it removed, and those fields leave every other manager's set (an Update takes ownership
 * without conflict). Fields a write leaves as they were keep their owners.
 *
 * Only what differs is walked (unchanged subtrees are skipped by `jsonEqual`, which returns at once
 * for shared references), and entries the write does not touch are kept as they are (the same
 * objects), so a status update or an annotation bump costs about the size of its change.
 */
import type { KubeObject } from '@rxinformer/core';
import { childScope, listTypeAt, rootScope } from './listMergeStrategies.ts';
import { isJsonObject, jsonEqual } from './json.ts';
import { fieldsItemKey, fieldsOfValue, METADATA_FIELDS, type ManagedFieldsEntry } from './managedFields.ts';

type Node = Record<string, unknown>;
const isObject = isJsonObject as (v: unknown) => v is Node;
const isEmpty = (n: Node): boolean => Object.keys(n).length === 0;

/** What a write changed, as FieldsV1 trees: fields added or changed, and fields removed (`{}`: the whole subtree). */
export interface FieldChanges {
  changed: Node;
  removed: Node;
}

// `scope` is the values' place for the list tables (see `listMergeStrategies.ts`)
function diffField(a: unknown, b: unknown, key: string, d: FieldChanges, scope: string | undefined): void {
  if (a === b) return;
  if (a === undefined) d.changed[key] = fieldsOfValue(b, scope);
  else if (b === undefined) d.removed[key] = {};
  else if (!jsonEqual(a, b)) diffValues(a, b, key, d, scope);
}

function nest(key: string, sub: FieldChanges, d: FieldChanges): void {
  if (!isEmpty(sub.changed)) d.changed[key] = sub.changed;
  if (!isEmpty(sub.removed)) d.removed[key] = sub.removed;
}

function diffValues(a: unknown, b: unknown, key: string, d: FieldChanges, scope: string | undefined): void {
  if (isObject(a) && isObject(b)) {
    const sub: FieldChanges = { changed: {}, removed: {} };
    for (const k in b) diffField(a[k], b[k], `f:${k}`, sub, childScope(scope, k));
    for (const k in a) if (a[k] !== undefined && b[k] === undefined) sub.removed[`f:${k}`] = {};
    nest(key, sub, d);
    return;
  }
  const itemKey = (item: unknown) => fieldsItemKey(item, scope);
  const keyed = (list: unknown[]) => list.every((i) => itemKey(i) !== undefined);
  if (Array.isArray(a) && Array.isArray(b) && listTypeAt(scope)?.type !== 'atomic' && keyed(a) && keyed(b)) {
    const sub: FieldChanges = { changed: {}, removed: {} };
    const before = new Map((a as unknown[]).map((i) => [itemKey(i)!, i]));
    const after = new Set<string>();
    for (const item of b) {
      const k = itemKey(item)!;
      after.add(k);
      const prev = before.get(k);
      if (prev === undefined) sub.changed[k] = fieldsOfValue([item], scope)[k] ?? {};
      else if (isObject(prev) && !jsonEqual(prev, item)) diffValues(prev, item, k, sub, scope);
    }
    for (const k of before.keys()) if (!after.has(k)) sub.removed[k] = {};
    nest(key, sub, d);
    return;
  }
  // replaced by a value of another shape (or an atomic list): the new value is owned whole
  if (typeof a === 'object') d.removed[key] = {};
  d.changed[key] = fieldsOfValue(b, scope);
}

/**
 * The fields a write changed between `before` and `after`, in the scope `fieldsOf` describes: the
 * metadata fields managers own and every top-level field but `status`, or only `status` for the
 * status subresource.
 *
 * @example
 * changedFields(cm({ a: '1' }), cm({ a: '2', b: '3' })); // changed: { 'f:data': { 'f:a': {}, 'f:b': {} } }, removed: {}
 */
export function changedFields(before: KubeObject, after: KubeObject, subresource?: string): FieldChanges {
  const d: FieldChanges = { changed: {}, removed: {} };
  const a = before as unknown as Node;
  const b = after as unknown as Node;
  const root = rootScope(after);
  if (subresource === 'status') {
    diffField(a.status, b.status, 'f:status', d, childScope(root, 'status'));
    return d;
  }
  const meta: FieldChanges = { changed: {}, removed: {} };
  const am = (a.metadata ?? {}) as Node;
  const bm = (b.metadata ?? {}) as Node;
  const metaScope = childScope(root, 'metadata');
  for (const f of METADATA_FIELDS) diffField(am[f], bm[f], `f:${f}`, meta, childScope(metaScope, f));
  nest('f:metadata', meta, d);
  const skip = (k: string) => k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind';
  for (const k in b) if (!skip(k)) diffField(a[k], b[k], `f:${k}`, d, childScope(root, k));
  for (const k in a) if (!skip(k) && a[k] !== undefined && b[k] === undefined) d.removed[`f:${k}`] = {};
  return d;
}

/** The union of two FieldsV1 sets, sharing unchanged nodes. */
export function unionFields(a: Node, b: Node): Node {
  if (a === b || isEmpty(b)) return a;
  if (isEmpty(a)) return b;
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const x = out[k];
    out[k] = isObject(x) && isObject(v) ? unionFields(x, v) : v;
  }
  return out;
}

/** `set` without the paths of `removed` (a `{}` node removes the whole subtree); `set` itself when nothing goes. */
export function subtractFields(set: Node, removed: Node): Node {
  let out: Node | undefined;
  for (const [k, r] of Object.entries(removed)) {
    const cur = set[k];
    if (!isObject(cur)) continue;
    const rest = isObject(r) && !isEmpty(r) ? subtractFields(cur, r) : undefined;
    if (rest === cur) continue;
    out ??= { ...set };
    if (rest === undefined || isEmpty(rest)) delete out[k];
    else out[k] = rest;
  }
  return out ?? set;
}

/**
 * The managedFields after `manager` wrote `after` over `before` with an Update: its entry (for this
 * subresource) becomes its previous fields minus the removed ones plus the changed ones, the other
 * entries lose the changed and removed fields, and entries left owning nothing are dropped.
 *
 * The entry gets `time` only when the write added or changed a field (whether or not its field set
 * grows: a status update rewriting the fields it already owns is stamped again); a write that only
 * removed fields keeps the entry's previous time, as the real API server's managed-fields updater
 * does.
 *
 * @example
 * m.managedFields = withUpdatedFields(current.metadata.managedFields, current, next, 'kubectl-edit', timestamp());
 */
export function withUpdatedFields(
  existing: readonly ManagedFieldsEntry[] | undefined,
  before: KubeObject,
  after: KubeObject,
  manager: string,
  time: string,
  subresource?: string,
): ManagedFieldsEntry[] {
  const { changed, removed } = changedFields(before, after, subresource);
  const out: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of existing ?? []) {
    if (e.manager === manager && e.operation === 'Update' && e.subresource === subresource) {
      mine = e;
      continue;
    }
    const fields = subtractFields(subtractFields(e.fieldsV1, removed), changed);
    if (fields === e.fieldsV1) out.push(e);
    else if (!isEmpty(fields)) out.push({ ...e, fieldsV1: fields });
  }
  const fields = unionFields(subtractFields(mine?.fieldsV1 ?? {}, removed), changed);
  if (isEmpty(fields)) return out;
  const stamp = isEmpty(changed) ? mine?.time : time;
  out.push({
    manager,
    operation: 'Update',
    apiVersion: after.apiVersion ?? 'v1',
    ...(stamp !== undefined ? { time: stamp } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...(subresource ? { subresource } : {}),
  });
  return out;
}

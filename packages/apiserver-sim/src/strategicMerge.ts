/**
 * Strategic merge patch as a pure function: lists merged by key (the tables of
 * `listMergeStrategies.ts`), with the `$patch`, `$setElementOrder/`, `$retainKeys` and
 * `$deleteFromPrimitiveList/` directives; and the same merge keyed by list-map keys, which server-side
 * apply uses to merge an applied configuration. Inputs are never mutated; directives never reach the
 * result.
 */
import { cloneJson as clone, isJsonObject, type Json } from './json.ts';
import { PatchError } from './jsonPatch.ts';
import { mergeKeysAt, rootScope } from './listMergeStrategies.ts';

type Obj = { [k: string]: Json };
const isObj = isJsonObject as (v: unknown) => v is Obj;

const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

/**
 * Applies a Kubernetes strategic merge patch, as `kubectl apply` sends it. Lists merge by their
 * `patchMergeKey` (`PATCH_MERGE_KEYS`, looked up by the document's kind and the path to the list;
 * a document of another kind is looked up by path alone), other lists are replaced.
 */
export function applyStrategicMergePatch<T>(doc: T, patch: unknown): T {
  if (!isObj(patch)) throw new PatchError('BadRequest', 'a strategic merge patch must be a JSON object');
  return strategic(clone(doc) as Json, patch, rootScope(doc) ?? '', 'patch') as T;
}

/**
 * Merges a server-side applied configuration into `doc` as a strategic merge patch whose lists
 * match items by their list-map keys (`LIST_TYPES`: container ports by `containerPort` and
 * `protocol`, so a TCP and a UDP port of one number stay two items), sets merge and atomic lists
 * are replaced.
 *
 * @example
 * const merged = mergeAppliedConfiguration(current, applied);
 */
export function mergeAppliedConfiguration<T>(doc: T, applied: unknown): T {
  if (!isObj(applied)) throw new PatchError('BadRequest', 'an applied configuration must be a JSON object');
  return strategic(clone(doc) as Json, applied, rootScope(doc) ?? '', 'apply') as T;
}

// `scope` is the target's place for the list tables (see `listMergeStrategies.ts`), `merge` which keys its lists merge by
function strategic(target: Json, patch: Obj, scope: string, merge: 'apply' | 'patch'): Json {
  const directive = patch.$patch;
  if (directive === 'replace') return stripDirectives(patch);
  if (directive === 'delete') return null;
  if (directive !== undefined && directive !== 'merge')
    throw new PatchError('Invalid', `unknown $patch directive ${JSON.stringify(directive)}`);
  let out: Obj = isObj(target) ? target : {};
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw new PatchError('BadRequest', '$retainKeys must be a list');
    out = Object.fromEntries(Object.entries(out).filter(([k]) => retain.includes(k)));
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(SET_ORDER)) continue;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      if (!Array.isArray(v)) throw new PatchError('BadRequest', `${k} must be a list`);
      if (Array.isArray(out[field]))
        out[field] = (out[field] as Json[]).filter((x) => !v.some((d) => JSON.stringify(d) === JSON.stringify(x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const at = `${scope}.${k}`;
    const keys = Array.isArray(v) ? mergeKeysAt(at, merge) : undefined;
    if (Array.isArray(v) && keys !== undefined)
      out[k] = mergeList(Array.isArray(out[k]) ? (out[k] as Json[]) : [], v, keys, patch[`${SET_ORDER}${k}`], at, merge);
    else if (isObj(v)) {
      const merged = strategic(out[k] ?? null, v, at, merge);
      if (merged === null) delete out[k];
      else out[k] = merged;
    } else out[k] = clone(v);
  }
  return out;
}

function mergeList(
  current: Json[],
  patch: Json[],
  keys: readonly string[],
  order: Json | undefined,
  scope: string,
  merge: 'apply' | 'patch',
): Json[] {
  if (patch.some((p) => isObj(p) && p.$patch === 'replace'))
    return patch.filter((p) => !(isObj(p) && p.$patch === 'replace')).map(stripDirectives);
  // the same item: equal scalars of a set, or objects with equal key fields
  const same = (x: Json, y: Json): boolean =>
    keys.length === 0
      ? JSON.stringify(x) === JSON.stringify(y)
      : isObj(x) && isObj(y) && keys.every((k) => JSON.stringify(x[k]) === JSON.stringify(y[k]));
  let out: Json[] = [...current];
  if (keys.length === 0) {
    for (const p of patch) if (!out.some((x) => same(x, p))) out.push(clone(p));
  } else {
    for (const p of patch) {
      if (!isObj(p) || !keys.some((k) => k in p)) throw new PatchError('Invalid', `list item needs its merge key "${keys.join('", "')}"`);
      const i = out.findIndex((x) => same(x, p));
      if (p.$patch === 'delete') {
        if (i >= 0) out.splice(i, 1);
        continue;
      }
      if (i >= 0) out[i] = strategic(out[i], p, scope, merge);
      else out.push(stripDirectives(p));
    }
  }
  if (Array.isArray(order)) {
    const rank = (x: Json) => order.findIndex((o) => same(o, x));
    out = out
      .map((x, i) => ({ x, i, r: rank(x) }))
      .sort((a, b) => (a.r < 0 || b.r < 0 ? a.i - b.i : a.r - b.r))
      .map((e) => e.x);
  }
  return out;
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, x]) => [k, stripDirectives(x)]),
  );
}

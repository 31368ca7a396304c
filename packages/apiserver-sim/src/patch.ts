/**
 * The three patch flavours of the Kubernetes API as pure functions: RFC 6902 JSON patch, RFC 7386
 * JSON merge patch, and strategic merge patch (lists merged by key, with the `$patch`,
 * `$setElementOrder/`, `$retainKeys` and `$deleteFromPrimitiveList/` directives). Inputs are never
 * mutated; directives never reach the result.
 */
import { mergeKeysAt, rootScope } from './listTypes.ts';

/** A patch that is malformed (`BadRequest`, 400) or cannot apply to the document (`Invalid`, 422). */
export class PatchError extends Error {
  /** The Status reason the server answers with. */
  readonly reason: 'BadRequest' | 'Invalid';
  /** 400 for a malformed patch, 422 for a result that is invalid. */
  readonly code: 400 | 422;

  constructor(reason: 'BadRequest' | 'Invalid', message: string) {
    super(message);
    this.name = 'PatchError';
    this.reason = reason;
    this.code = reason === 'BadRequest' ? 400 : 422;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
// JSON round trip: several times faster than structuredClone for plain JSON documents.
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** One RFC 6902 operation. */
export interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError('BadRequest', `invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, tokens: string[], path: string): { parent: Json; last: string } {
  let cur: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(cur) ? cur[Number(t)] : isObj(cur) ? cur[t] : undefined;
    if (next === undefined) throw new PatchError('Invalid', `path "${path}" does not exist`);
    cur = next;
  }
  return { parent: cur, last: tokens[tokens.length - 1] };
}

function arrayIndex(arr: Json[], token: string, path: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError('Invalid', `invalid array index "${token}" in "${path}"`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new PatchError('Invalid', `array index ${i} out of range in "${path}"`);
  return i;
}

function get(doc: Json, path: string): Json {
  let cur: Json | undefined = doc;
  for (const t of pointer(path)) cur = Array.isArray(cur) ? cur[arrayIndex(cur, t, path, false)] : isObj(cur) ? cur[t] : undefined;
  if (cur === undefined) throw new PatchError('Invalid', `path "${path}" does not exist`);
  return cur;
}

function remove(doc: Json, path: string): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) throw new PatchError('Invalid', 'cannot remove the whole document');
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, path, false), 1)[0];
  if (!isObj(parent) || !(last in parent)) throw new PatchError('Invalid', `path "${path}" does not exist`);
  const old = parent[last];
  delete parent[last];
  return old;
}

function add(doc: Json, path: string, value: Json, replace = false): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, path, !replace);
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else if (isObj(parent)) {
    if (replace && !(last in parent)) throw new PatchError('Invalid', `path "${path}" does not exist`);
    parent[last] = value;
  } else throw new PatchError('Invalid', `path "${path}" does not exist`);
  return doc;
}

/** Applies an RFC 6902 JSON patch. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  if (!Array.isArray(ops as unknown)) throw new PatchError('BadRequest', 'a JSON patch must be an array of operations');
  let out = clone(doc) as Json;
  for (const o of ops) {
    if (!isObj(o as unknown) || typeof o.op !== 'string' || typeof o.path !== 'string')
      throw new PatchError('BadRequest', 'each JSON patch operation needs "op" and "path"');
    const value = clone(o.value) as Json;
    switch (o.op) {
      case 'add':
        if (!('value' in o)) throw new PatchError('BadRequest', 'add needs a value');
        out = add(out, o.path, value);
        break;
      case 'replace':
        if (!('value' in o)) throw new PatchError('BadRequest', 'replace needs a value');
        out = pointer(o.path).length === 0 ? value : add(out, o.path, value, true);
        break;
      case 'remove':
        remove(out, o.path);
        break;
      case 'move': {
        if (typeof o.from !== 'string') throw new PatchError('BadRequest', 'move needs "from"');
        const v = remove(out, o.from);
        out = add(out, o.path, v);
        break;
      }
      case 'copy': {
        if (typeof o.from !== 'string') throw new PatchError('BadRequest', 'copy needs "from"');
        out = add(out, o.path, clone(get(out, o.from)));
        break;
      }
      case 'test':
        if (JSON.stringify(get(out, o.path)) !== JSON.stringify(o.value)) throw new PatchError('Invalid', `test failed at "${o.path}"`);
        break;
      default:
        throw new PatchError('BadRequest', `unknown JSON patch operation "${o.op}"`);
    }
  }
  return out as T;
}

/** Applies an RFC 7386 JSON merge patch: objects merge, `null` deletes, anything else replaces. */
export function applyMergePatch<T>(doc: T, patch: unknown): T {
  return mergePatch(clone(doc) as Json, patch as Json) as T;
}

function mergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return clone(patch);
  const out: Obj = isObj(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? null, v);
  }
  return out;
}

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

// `scope` is the target's place for the list tables (see `listTypes.ts`), `merge` which keys its lists merge by
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

/**
 * The two RFC patch types of the Kubernetes API as pure functions: RFC 6902 JSON patch and RFC 7386
 * JSON merge patch (strategic merge patch is in `strategicMerge.ts`), and the `PatchError` all
 * patch functions throw. Inputs are never mutated.
 */
import { cloneJson as clone, isJsonObject, type Json } from './json.ts';

/** A patch that is malformed (`BadRequest`, 400) or cannot apply to the document (`Invalid`, 422). */
export class PatchError extends Error {
  /** Always `PatchError`: set as a string, so it survives minification. */
  override readonly name: string = 'PatchError';
  /** The Status reason the server answers with. */
  readonly reason: 'BadRequest' | 'Invalid';
  /** 400 for a malformed patch, 422 for a result that is invalid. */
  readonly code: 400 | 422;

  constructor(reason: 'BadRequest' | 'Invalid', message: string) {
    super(message);
    this.reason = reason;
    this.code = reason === 'BadRequest' ? 400 : 422;
  }
}

type Obj = { [k: string]: Json };
const isObj = isJsonObject as (v: unknown) => v is Obj;

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

/**
 * An immer draft turned into an RFC 6902 JSON Patch: `produceWithPatches` tells what changed, this
 * file writes it as the API server reads it, with `metadata.resourceVersion` set last to the version
 * the draft started from, so the server applies it to that version only (optimistic concurrency, as
 * a PUT: 409 Conflict otherwise), whatever the recipe did to the metadata.
 */
import { enablePatches, Immer, isDraftable, type Patch } from 'immer';
import { InvalidObjectError, type KubeObject } from '@rxinformer/core';

/** One RFC 6902 operation (the ones this package sends). */
export interface JsonPatchOperation {
  /** `add`, `remove`, `replace` or `test`. */
  op: 'add' | 'remove' | 'replace' | 'test';
  /** A JSON Pointer (RFC 6901): `/metadata/labels/app.kubernetes.io~1name`. */
  path: string;
  /** The value of `add`, `replace` and `test`. */
  value?: unknown;
}

/** What `draftPatch` found: the changed object and the operations, empty when nothing changed. */
export interface DraftPatch<T> {
  /** The object after the recipe. */
  next: T;
  /** The JSON Patch, without the resourceVersion precondition; empty when the recipe changed nothing. */
  operations: JsonPatchOperation[];
}

/** A change to an object, made on an immer draft: mutate `draft`, or return a replacement. */
export type Recipe<T> = (draft: T) => void | T | undefined;

// Our own immer instance: objects are left unfrozen (they go to JSON), the global one untouched.
const immer = new Immer({ autoFreeze: false });

/**
 * Runs `recipe` on a draft of `base` and returns the result with its RFC 6902 operations. Changes
 * inside an array become one `replace` of the whole array (outermost array on the path): immer's
 * index-based operations and `length` changes need not be translated, and the array sent is exactly
 * the draft's. A value replaced by an equal one (`d.data = { ...d.data }`) is no change, a map
 * replaced by another is sent key by key.
 *
 * @example
 * draftPatch(cm, (d) => { d.metadata!.labels = { ...d.metadata!.labels, 'a/b': 'x' }; }).operations;
 */
export function draftPatch<T extends object>(base: T, recipe: Recipe<T>): DraftPatch<T> {
  if (!isDraftable(base)) throw new InvalidObjectError('only plain objects can be drafted (not a class instance)', base);
  enablePatches();
  const [next, patches] = immer.produceWithPatches(base, recipe as (draft: T) => T | void) as unknown as [T, Patch[]];
  return { next, operations: toOperations(patches, next, base) };
}

/** The operations of immer's patches from `base` to the final object `next` (see `draftPatch`). */
export function toOperations(patches: readonly Patch[], next: unknown, base: unknown): JsonPatchOperation[] {
  const out: JsonPatchOperation[] = [];
  const replacedArrays = new Set<string>();
  for (const p of patches) {
    const at = outermostArray(next, p.path);
    if (at !== undefined) {
      const path = p.path.slice(0, at);
      const pointer = toPointer(path);
      if (!replacedArrays.has(pointer) && !sameJson(valueAt(base, path), valueAt(next, path)))
        out.push({ op: 'replace', path: pointer, value: valueAt(next, path) });
      replacedArrays.add(pointer);
      continue;
    }
    if (replacedArrays.has(toPointer(p.path))) continue;
    // JSON has no undefined: a field set to it is removed (or, new, never sent).
    if (p.op === 'remove' || (p.op === 'replace' && p.value === undefined)) out.push({ op: 'remove', path: toPointer(p.path) });
    else if (p.op === 'replace' && isMap(valueAt(base, p.path)) && isMap(p.value))
      out.push(...mapDiff(valueAt(base, p.path) as Json, p.value, p.path));
    else if (p.op === 'add' ? p.value !== undefined : !sameJson(valueAt(base, p.path), p.value))
      out.push({ op: p.op, path: toPointer(p.path), value: p.value });
  }
  return out;
}

type Json = Record<string, unknown>;

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The operations from map `a` to map `b` at `path`, key by key (a map replaced by a spread of itself,
 * `d.data = { ...d.data, x: '1' }`, sends the one key that changed); arrays and scalars whole.
 */
function mapDiff(a: Json, b: Json, path: readonly (string | number)[]): JsonPatchOperation[] {
  const out: JsonPatchOperation[] = [];
  for (const k of Object.keys(a)) if (a[k] !== undefined && b[k] === undefined) out.push({ op: 'remove', path: toPointer([...path, k]) });
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined || sameJson(a[k], v)) continue;
    if (isMap(a[k]) && isMap(v)) out.push(...mapDiff(a[k], v, [...path, k]));
    else out.push({ op: a[k] === undefined ? 'add' : 'replace', path: toPointer([...path, k]), value: v });
  }
  return out;
}

/** Where the resourceVersion precondition goes. */
const RESOURCE_VERSION = '/metadata/resourceVersion';

/**
 * `operations` ending with an `add` of `metadata.resourceVersion` set to `base`'s: the server then
 * applies the patch only while the object is at that version, 409 Conflict otherwise (its
 * optimistic-concurrency check, as for a PUT). The recipe's own operations on the resourceVersion
 * are left out and the precondition comes last, so no operation can undo it: a recipe that returns
 * a new object, replaces `metadata`, or deletes or changes the resourceVersion still writes on
 * condition of the version read (a patch without one would be applied unconditionally). `add`, not
 * `replace`, as it also sets a member an earlier operation removed. A `test` operation would not
 * do: kube-apiserver answers a failed `test` with a 422 Invalid that names neither the operation
 * nor the path, which a retry on conflict cannot tell from a bad patch. Empty when `operations`
 * change nothing but the resourceVersion. Throws an `InvalidObjectError` when `base` has no
 * resourceVersion (the patch could then overwrite a change it never saw).
 *
 * @example
 * guardedOperations(cm, [{ op: 'add', path: '/data/b', value: '2' }]);
 * // [{ op: 'add', path: '/data/b', value: '2' }, { op: 'add', path: '/metadata/resourceVersion', value: '7' }]
 */
export function guardedOperations(base: KubeObject, operations: readonly JsonPatchOperation[]): JsonPatchOperation[] {
  const changes = operations.filter((o) => o.path !== RESOURCE_VERSION);
  if (changes.length === 0) return changes;
  const rv = base.metadata?.resourceVersion;
  if (typeof rv !== 'string' || rv === '')
    throw new InvalidObjectError('an update needs the metadata.resourceVersion the object was read at', base);
  return [...changes, { op: 'add', path: RESOURCE_VERSION, value: rv }];
}

/**
 * A JSON Pointer from path segments: `~` as `~0`, `/` as `~1` (RFC 6901).
 *
 * @example
 * toPointer(['metadata', 'labels', 'app.kubernetes.io/name']); // '/metadata/labels/app.kubernetes.io~1name'
 */
export function toPointer(path: readonly (string | number)[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * How many leading segments of `path` lead to the first array inside `root` through which the path
 * goes on (an element or `length` of it); undefined when it goes through none.
 */
function outermostArray(root: unknown, path: readonly (string | number)[]): number | undefined {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    if (Array.isArray(node)) return i;
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[path[i] as string];
  }
  return undefined;
}

/** The value at `path` in `root`, undefined where the path leads nowhere. */
function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root;
  for (const s of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[s as string] : undefined;
  return node;
}

/** Equal as JSON (key order aside for the common case of the same construction). */
function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

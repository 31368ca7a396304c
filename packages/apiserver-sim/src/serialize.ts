/**
 * JSON serialization of stored objects for watch lines, reusing the serialized form of the parts
 * an object shares with its earlier versions.
 *
 * Updates share unchanged parts (spec, status, the other managers' managedFields entries) with
 * the version they replace, and stored objects are never mutated, so the JSON of such a part is
 * computed once and reused by every later event that carries it. A watch event then costs the
 * serialization of what changed (mostly metadata), not of the whole ~4 KB object.
 */

const fragments = new WeakMap<object, string>();

/** The JSON of an immutable value, cached by identity when it is an object. */
function cached(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  let s = fragments.get(value);
  if (s === undefined) {
    s = JSON.stringify(value);
    fragments.set(value, s);
  }
  return s;
}

function join(o: Record<string, unknown>, part: (k: string, v: unknown) => string | undefined): string {
  let out = '{';
  let first = true;
  for (const k of Object.keys(o)) {
    const s = part(k, o[k]);
    if (s === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${s}`;
    first = false;
  }
  return `${out}}`;
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/**
 * The metadata: one native `JSON.stringify` of everything but `managedFields`, then the entries.
 * Entries before the last were carried over from earlier versions, so their JSON is cached and
 * reused; the last is usually the one this write just made and is serialized without caching
 * (caching every fresh entry cost more in GC than it ever saved). Falls back to
 * `JSON.stringify` when `managedFields` is not the last member (key order must be kept).
 */
function metadata(m: Record<string, unknown>): string {
  const mf = m.managedFields;
  let last: string | undefined;
  for (const k in m) if (m[k] !== undefined) last = k;
  if (!Array.isArray(mf) || last !== 'managedFields') return JSON.stringify(m);
  const { managedFields: _, ...rest } = m;
  const head = JSON.stringify(rest);
  let list = '';
  for (let i = 0; i < mf.length; i++) {
    const e: unknown = mf[i];
    list += `${i > 0 ? ',' : ''}${(i < mf.length - 1 ? cached(e) : JSON.stringify(e)) ?? 'null'}`;
  }
  return `${head.length > 2 ? `${head.slice(0, -1)},` : '{'}"managedFields":[${list}]}`;
}

/**
 * `JSON.stringify(obj)` for a stored (never mutated) Kubernetes object, reusing the cached JSON of
 * the parts it shares with objects serialized before. Same output as `JSON.stringify`.
 *
 * Caveat: only for immutable data: a part mutated after it was serialized would be sent in its old form.
 */
export function stringifyStored(obj: unknown): string {
  if (!isPlain(obj)) return JSON.stringify(obj) ?? 'null';
  return join(obj, (k, v) =>
    k === 'metadata' && isPlain(v) ? metadata(v) : k === 'apiVersion' || k === 'kind' ? JSON.stringify(v) : cached(v),
  );
}

/** The watch line (without newline) of one event. */
export function watchLine(type: string, object: unknown): string {
  return `{"type":${JSON.stringify(type)},"object":${stringifyStored(object)}}`;
}

const whole = new WeakMap<object, string>();
const untyped = new WeakMap<object, string>();

/** `stringifyStored` less `kind` and `apiVersion`: an item of a built-in kind's list, as the API server writes it. */
function stringifyUntyped(obj: unknown): string {
  if (!isPlain(obj)) return JSON.stringify(obj) ?? 'null';
  return join(obj, (k, v) => (k === 'metadata' && isPlain(v) ? metadata(v) : k === 'apiVersion' || k === 'kind' ? undefined : cached(v)));
}

/**
 * The JSON of a list answer, `{"kind","apiVersion","metadata","items"}` in that order, as
 * `JSON.stringify` would write it. Each item's JSON is cached by identity for as long as the stored
 * version lives, so a version listed again (every page of every relist, every informer) is not
 * serialized again: like the API server's watch cache, the server's cost of a list is the copy.
 *
 * Caveat: the items must be stored (never mutated) objects. `itemTypes` false leaves out each
 * item's `kind` and `apiVersion`, as the API server does in a built-in kind's list (a custom
 * resource's list keeps them).
 *
 * @example
 * res.end(listJson('PodList', 'v1', { resourceVersion: '12' }, storage.list('pods')));
 */
export function listJson(kind: string, apiVersion: string, metadata: unknown, items: readonly unknown[], itemTypes = true): string {
  let out = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
  const cache = itemTypes ? whole : untyped;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    let json = item !== null && typeof item === 'object' ? cache.get(item) : undefined;
    if (json === undefined) {
      json = itemTypes ? stringifyStored(item) : stringifyUntyped(item);
      if (item !== null && typeof item === 'object') cache.set(item, json);
    }
    out += i > 0 ? `,${json}` : json;
  }
  return `${out}]}`;
}

/**
 * Projections: an object reduced to the field paths a list view shows (`fieldPath.ts`), plus what
 * an informer itself needs of every object (`INFORMER_FIELDS`). The paths are compiled once into a
 * tree of the keys to keep; projecting an object walks that tree, not the object, so its cost
 * follows the fields kept, not the size of the object.
 */
import { InvalidObjectError, InvalidOptionsError, describeValue } from '../errors.ts';
import type { KubeObject, Projected, Projection } from '../types.ts';
import { parseFieldPath, FieldPathError, type FieldPath } from './fieldPath.ts';

/**
 * The fields every projection keeps, whatever its paths: what the informer needs of each object.
 * `apiVersion` and `kind` (the reflector's type check); `metadata.name` and `namespace` (the key);
 * `uid` (a recreation is a delete and an add); `resourceVersion` (resuming, and write
 * preconditions); `creationTimestamp` (age); `deletionTimestamp` (terminating); `labels` (label
 * selectors applied locally, `withLabels`); `ownerReferences` (owner indexes, controllers' `owns`).
 * Not kept unless asked for: annotations, finalizers, generation, managedFields.
 */
export const INFORMER_FIELDS: readonly string[] = Object.freeze([
  'apiVersion',
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'metadata.labels',
  'metadata.ownerReferences',
]);

/** A node of the compiled tree: keep the whole value, or these keys of an object, or each element of an array. */
interface Keep {
  whole: boolean;
  keys?: Map<string, Keep>;
  each?: Keep;
}

/**
 * A projection keeping `paths` of each object, and `INFORMER_FIELDS`: a function returning a new
 * object (sharing the kept values with the one given, which it never changes), with `paths` and
 * `key` naming it. Use it as an informer's `transform`, or name a projected resource with
 * `projected(pods, projection)` so that a factory keeps its informer apart from the full one.
 *
 * What a path keeps: the value it reaches, whole; the objects on the way hold only what is kept
 * under them, and are left out when nothing is; an array reached by `[*]` keeps every element, in
 * order, so counts and positions survive (an element with nothing kept is `{}`, or `null` when it
 * is not an object). A path that meets a value of another shape than it names (a string where it
 * names a key, an object at `[*]`) keeps nothing there. Paths may overlap: `spec` and
 * `spec.nodeName` keep `spec`.
 *
 * @example
 * const podRow = project<V1Pod>(['status.phase', 'spec.nodeName', 'status.containerStatuses[*].restartCount']);
 * podRow(pod); // { apiVersion, kind, metadata: { name, namespace, uid, … }, spec: { nodeName }, status: { phase, containerStatuses: [{ restartCount: 2 }] } }
 * const informer = factory.informerFor(projected(pods, podRow));
 *
 * Caveat: the server still sends whole objects (Kubernetes has no field selection on the wire):
 * a projection saves the memory the cache holds, not bandwidth or parsing (`tableRows` does).
 * Throws `FieldPathError` for a path that is not one (its `index` says which).
 */
export function project<T extends KubeObject = KubeObject>(paths: readonly string[]): Projection<T> {
  if (!Array.isArray(paths)) throw new InvalidOptionsError(`project() takes an array of field paths, got ${describeValue(paths)}`);
  const parsed = paths.map((p, index) => parsePath(p, index));
  const own = [...new Set(parsed.map((p) => p.text))].sort();
  const root = compile([...INFORMER_FIELDS.map((p) => parseFieldPath(p)), ...parsed]);
  const fn = (obj: T): Projected<T> => {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new InvalidObjectError('object is not a JSON object', obj);
    return (pick(obj, root) ?? {}) as Projected<T>;
  };
  return Object.freeze(Object.assign(fn, { paths: Object.freeze(own), key: own.join('\n') })) as Projection<T>;
}

/** Path `index` of a projection, parsed; a `FieldPathError` names the index. */
function parsePath(path: unknown, index: number): FieldPath {
  try {
    return parseFieldPath(path);
  } catch (e) {
    if (!(e instanceof FieldPathError)) throw e;
    throw new FieldPathError(e.path, e.position, e.detail, index);
  }
}

/** The tree of what `paths` keep. */
function compile(paths: readonly FieldPath[]): Keep {
  const root: Keep = { whole: false };
  for (const { steps } of paths) {
    let node = root;
    for (const step of steps) {
      if (node.whole) break; // kept whole by a shorter path already
      if ('each' in step) node = node.each ??= { whole: false };
      else {
        node.keys ??= new Map();
        let child = node.keys.get(step.key);
        if (!child) node.keys.set(step.key, (child = { whole: false }));
        node = child;
      }
    }
    node.whole = true;
    node.keys = undefined; // a whole value needs nothing below
    node.each = undefined;
  }
  return root;
}

/** What `node` keeps of `value`; undefined when nothing. */
function pick(value: unknown, node: Keep): unknown {
  if (node.whole) return value;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return node.each ? pickEach(value, node.each) : undefined;
  if (!node.keys) return undefined;
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const [key, child] of node.keys) {
    if (!Object.hasOwn(source, key)) continue;
    const kept = pick(source[key], child);
    if (kept === undefined) continue;
    out ??= {};
    // `__proto__` is an own key of parsed JSON; assigned, it would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    else out[key] = kept;
  }
  return out;
}

/** Every element of `array` as `node` keeps it: `{}` (an object) or `null` (anything else) when nothing is. */
function pickEach(array: readonly unknown[], node: Keep): unknown[] {
  const out = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i++) {
    const v = array[i];
    out[i] = pick(v, node) ?? (typeof v === 'object' && v !== null && !Array.isArray(v) ? {} : null);
  }
  return out;
}

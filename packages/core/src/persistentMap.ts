/**
 * A persistent (immutable, structurally shared) hash map with string keys: a 32-way hash array
 * mapped trie. Every update copies only the nodes on the path to the changed entry, so its cost is
 * O(log₃₂ n) — flat in practice — where one immer `produce` over a `Map` would copy all n entries.
 *
 * Nodes are private to the map and never written after creation (freezing them would cost time on
 * every update for no safety gain: nothing outside this module can reach them). The map object
 * itself is frozen.
 *
 * @example
 * const a = PersistentMap.empty<number>().set('x', 1);
 * const b = a.set('y', 2); // a still has one entry
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
const MAX_DEPTH = Math.ceil(32 / BITS);

/** The string hash used by the trie (FNV-1a, 32 bits). Replaceable in tests to force collisions. */
export type HashFunc = (key: string) => number;

/** FNV-1a over UTF-16 code units. */
export const fnv1a: HashFunc = (key) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};

interface Leaf<V> {
  readonly kind: 0;
  readonly hash: number;
  readonly key: string;
  readonly value: V;
}
interface Collision<V> {
  readonly kind: 1;
  readonly hash: number;
  readonly entries: readonly (readonly [string, V])[];
}
interface Branch<V> {
  readonly kind: 2;
  readonly bitmap: number;
  readonly children: readonly Node<V>[];
}
type Node<V> = Leaf<V> | Collision<V> | Branch<V>;

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

const frag = (hash: number, depth: number): number => (hash >>> (depth * BITS)) & MASK;

function leaf<V>(hash: number, key: string, value: V): Leaf<V> {
  return { kind: 0, hash, key, value };
}

function branch<V>(bitmap: number, children: Node<V>[]): Branch<V> {
  return { kind: 2, bitmap, children };
}

function hashOf<V>(node: Leaf<V> | Collision<V>): number {
  return node.hash;
}

/** Joins two distinct-key leaf-like nodes into the smallest subtree that holds both. */
function merge<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, depth: number): Node<V> {
  const ha = hashOf(a);
  if (ha === b.hash || depth >= MAX_DEPTH) {
    const entries: (readonly [string, V])[] = a.kind === 0 ? [[a.key, a.value]] : [...a.entries];
    entries.push([b.key, b.value]);
    return { kind: 1, hash: ha, entries };
  }
  const fa = frag(ha, depth);
  const fb = frag(b.hash, depth);
  if (fa === fb) return branch(1 << fa, [merge(a, b, depth + 1)]);
  return fa < fb ? branch((1 << fa) | (1 << fb), [a, b]) : branch((1 << fa) | (1 << fb), [b, a]);
}

/** Result of a change: the new node (undefined = removed) and whether the size changed. */
interface Change<V> {
  node: Node<V> | undefined;
  delta: -1 | 0 | 1;
}

function setIn<V>(node: Node<V> | undefined, hash: number, key: string, value: V, depth: number): Change<V> {
  if (node === undefined) return { node: leaf(hash, key, value), delta: 1 };
  if (node.kind === 0) {
    if (node.key === key) return node.value === value ? { node, delta: 0 } : { node: leaf(hash, key, value), delta: 0 };
    return { node: merge(node, leaf(hash, key, value), depth), delta: 1 };
  }
  if (node.kind === 1) {
    if (node.hash !== hash && depth < MAX_DEPTH) return { node: merge(node, leaf(hash, key, value), depth), delta: 1 };
    const i = node.entries.findIndex(([k]) => k === key);
    const entries = [...node.entries];
    if (i >= 0) entries[i] = [key, value];
    else entries.push([key, value]);
    return { node: { kind: 1, hash: node.hash, entries }, delta: i >= 0 ? 0 : 1 };
  }
  const bit = 1 << frag(hash, depth);
  const idx = popcount(node.bitmap & (bit - 1));
  const children = [...node.children];
  if ((node.bitmap & bit) === 0) {
    children.splice(idx, 0, leaf(hash, key, value));
    return { node: branch(node.bitmap | bit, children), delta: 1 };
  }
  const change = setIn(children[idx], hash, key, value, depth + 1);
  if (change.node === children[idx]) return { node, delta: 0 };
  children[idx] = change.node as Node<V>;
  return { node: branch(node.bitmap, children), delta: change.delta };
}

function deleteIn<V>(node: Node<V> | undefined, hash: number, key: string, depth: number): Change<V> {
  if (node === undefined) return { node, delta: 0 };
  if (node.kind === 0) return node.key === key ? { node: undefined, delta: -1 } : { node, delta: 0 };
  if (node.kind === 1) {
    const i = node.entries.findIndex(([k]) => k === key);
    if (i < 0) return { node, delta: 0 };
    const entries = node.entries.filter((_, j) => j !== i);
    if (entries.length === 1) return { node: leaf(node.hash, entries[0][0], entries[0][1]), delta: -1 };
    return { node: { kind: 1, hash: node.hash, entries }, delta: -1 };
  }
  const bit = 1 << frag(hash, depth);
  if ((node.bitmap & bit) === 0) return { node, delta: 0 };
  const idx = popcount(node.bitmap & (bit - 1));
  const change = deleteIn(node.children[idx], hash, key, depth + 1);
  if (change.delta === 0) return { node, delta: 0 };
  const children = [...node.children];
  if (change.node === undefined) {
    children.splice(idx, 1);
    const bitmap = node.bitmap & ~bit;
    if (children.length === 0) return { node: undefined, delta: -1 };
    // A branch left with a single leaf collapses into it, keeping the trie canonical.
    if (children.length === 1 && children[0].kind !== 2) return { node: children[0], delta: -1 };
    return { node: branch(bitmap, children), delta: -1 };
  }
  children[idx] = change.node;
  if (children.length === 1 && change.node.kind !== 2) return { node: change.node, delta: -1 };
  return { node: branch(node.bitmap, children), delta: -1 };
}

/** An entry being placed by `build`, with its hash. */
interface Placed<V> {
  hash: number;
  key: string;
  value: V;
}

/**
 * The subtree holding `entries` (distinct keys, at least one) below `depth`, built bottom-up in one
 * pass: the same shape successive `setIn`s give (a leaf as shallow as its hash allows, one-child
 * branches down to where two hashes part, a collision node for equal hashes), with no node copied.
 */
function build<V>(entries: readonly Placed<V>[], depth: number): Node<V> {
  if (entries.length === 1) return leaf(entries[0].hash, entries[0].key, entries[0].value);
  const first = entries[0].hash;
  if (depth >= MAX_DEPTH || entries.every((e) => e.hash === first)) {
    return { kind: 1, hash: first, entries: entries.map((e) => [e.key, e.value] as const) };
  }
  const buckets: Placed<V>[][] = [];
  let bitmap = 0;
  for (const e of entries) {
    const f = frag(e.hash, depth);
    bitmap |= 1 << f;
    (buckets[f] ??= []).push(e);
  }
  // Exactly as long as it needs to be (an array grown by `push` keeps spare room for more).
  const children = new Array<Node<V>>(popcount(bitmap));
  let i = 0;
  for (let f = 0; f < WIDTH; f++) if (buckets[f] !== undefined) children[i++] = build(buckets[f], depth + 1);
  return branch(bitmap, children);
}

function* walk<V>(node: Node<V> | undefined): Generator<readonly [string, V]> {
  if (node === undefined) return;
  if (node.kind === 0) yield [node.key, node.value];
  else if (node.kind === 1) yield* node.entries;
  else for (const child of node.children) yield* walk(child);
}

/**
 * An immutable string-keyed map. `set` and `delete` return a new map sharing structure with the
 * old one, or the same map when nothing changed.
 */
export class PersistentMap<V> implements Iterable<readonly [string, V]> {
  /** Number of entries. */
  readonly size: number;
  readonly #root: Node<V> | undefined;
  readonly #hash: HashFunc;

  private constructor(root: Node<V> | undefined, size: number, hash: HashFunc) {
    this.#root = root;
    this.size = size;
    this.#hash = hash;
    Object.freeze(this);
  }

  /** An empty map; `hash` is for tests that need collisions. */
  static empty<V>(hash: HashFunc = fnv1a): PersistentMap<V> {
    return new PersistentMap<V>(undefined, 0, hash);
  }

  /**
   * Builds a map from entries (later entries win) in one pass, several times faster than as many
   * `set`s: no path is copied on the way. The result is the map those `set`s would give.
   */
  static from<V>(entries: Iterable<readonly [string, V]>, hash: HashFunc = fnv1a): PersistentMap<V> {
    let byKey: ReadonlyMap<string, V>;
    if (entries instanceof Map)
      byKey = entries; // keys already distinct: no second copy
    else {
      const distinct = new Map<string, V>();
      for (const [k, v] of entries) distinct.set(k, v);
      byKey = distinct;
    }
    if (byKey.size === 0) return PersistentMap.empty<V>(hash);
    const placed: Placed<V>[] = [];
    for (const [key, value] of byKey) placed.push({ hash: hash(key), key, value });
    return new PersistentMap<V>(build(placed, 0), byKey.size, hash);
  }

  /** The value under `key`. */
  get(key: string): V | undefined {
    const found = this.#find(key);
    if (found === undefined) return undefined;
    return found.kind === 0 ? found.value : found.entries.find(([k]) => k === key)![1];
  }

  /** True when `key` has an entry. */
  has(key: string): boolean {
    return this.#find(key) !== undefined;
  }

  /** The leaf holding `key`, or the collision node listing it (no allocation: `get` is the hot path). */
  #find(key: string): Leaf<V> | Collision<V> | undefined {
    const hash = this.#hash(key);
    let node = this.#root;
    for (let depth = 0; node !== undefined; depth++) {
      if (node.kind === 0) return node.key === key ? node : undefined;
      if (node.kind === 1) {
        for (const [k] of node.entries) if (k === key) return node;
        return undefined;
      }
      const bit = 1 << frag(hash, depth);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.children[popcount(node.bitmap & (bit - 1))];
    }
    return undefined;
  }

  /** A map with `key` set to `value`. */
  set(key: string, value: V): PersistentMap<V> {
    const change = setIn(this.#root, this.#hash(key), key, value, 0);
    if (change.node === this.#root) return this;
    return new PersistentMap(change.node, this.size + change.delta, this.#hash);
  }

  /** A map without `key`. */
  delete(key: string): PersistentMap<V> {
    const change = deleteIn(this.#root, this.#hash(key), key, 0);
    if (change.delta === 0) return this;
    return new PersistentMap(change.node, this.size - 1, this.#hash);
  }

  /** Entries in trie order (stable for a given set of keys). */
  [Symbol.iterator](): Iterator<readonly [string, V]> {
    return walk(this.#root);
  }

  /** Every key. */
  *keys(): Generator<string> {
    for (const [k] of this) yield k;
  }

  /** Every value. */
  *values(): Generator<V> {
    for (const [, v] of this) yield v;
  }
}

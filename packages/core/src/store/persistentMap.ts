/**
 * A persistent (immutable, structurally shared) hash map with string keys: a 32-way hash array
 * mapped trie. Every update copies only the nodes on the path to the changed entry, so its cost is
 * O(log₃₂ n) — flat in practice — where one immer `produce` over a `Map` would copy all n entries.
 *
 * Keys come from the cluster (object names), so anyone who can create objects chooses them: the
 * map must stay fast for keys crafted to collide. Two defences (docs/architecture.md):
 * - the default hash is FNV-1a from a random per-process seed, so keys cannot be crafted to
 *   collide without knowing it;
 * - keys whose 32-bit hashes are equal anyway (by chance, by a caller's own hash, or crafted by
 *   someone who knows the seed) are kept in a balanced search tree ordered by the keys themselves
 *   (`sortedTree.ts`), so the worst case is O(log n) comparisons and nodes copied per write, never
 *   a list copied and scanned per write.
 *
 * Nodes are private to the map and never written after creation (freezing them would cost time on
 * every update for no safety gain: nothing outside this module can reach them). The map object
 * itself is frozen.
 *
 * @example
 * const a = PersistentMap.empty<number>().set('x', 1);
 * const b = a.set('y', 2); // a still has one entry
 */
import { processHash, type HashFunc } from './keyHash.ts';
import { treeDelete, treeEntries, treeFromSorted, treeGet, treeSet, treeSize, type TreeNode } from './sortedTree.ts';

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
const MAX_DEPTH = Math.ceil(32 / BITS);

interface Leaf<V> {
  readonly kind: 0;
  readonly hash: number;
  readonly key: string;
  readonly value: V;
}
/** Two or more keys with one hash, in a search tree ordered by key (at least two nodes). */
interface Collision<V> {
  readonly kind: 1;
  readonly hash: number;
  readonly tree: TreeNode<V>;
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

function collision<V>(hash: number, tree: TreeNode<V>): Collision<V> {
  return { kind: 1, hash, tree };
}

/** Joins two distinct-key leaf-like nodes into the smallest subtree that holds both. */
function merge<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, depth: number): Node<V> {
  const ha = hashOf(a);
  if (ha === b.hash || depth >= MAX_DEPTH) {
    const tree = a.kind === 0 ? treeSet(undefined, a.key, a.value) : a.tree;
    return collision(ha, treeSet(tree, b.key, b.value));
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
    const had = treeGet(node.tree, key) !== undefined;
    const tree = treeSet(node.tree, key, value);
    return tree === node.tree ? { node, delta: 0 } : { node: collision(node.hash, tree), delta: had ? 0 : 1 };
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
    const tree = treeDelete(node.tree, key);
    if (tree === node.tree) return { node, delta: 0 };
    // At least one node is left; a single one becomes a leaf again.
    if (tree!.left === undefined && tree!.right === undefined) return { node: leaf(node.hash, tree!.key, tree!.value), delta: -1 };
    return { node: collision(node.hash, tree!), delta: -1 };
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
 * pass: the same trie successive `setIn`s give (a leaf as shallow as its hash allows, one-child
 * branches down to where two hashes part, a collision node for equal hashes), with no node copied.
 * A collision node's tree is built balanced from the sorted keys: it may be shaped otherwise than
 * successive inserts would make it, but holds the same entries in the same (key) order.
 */
function build<V>(entries: readonly Placed<V>[], depth: number): Node<V> {
  if (entries.length === 1) return leaf(entries[0].hash, entries[0].key, entries[0].value);
  const first = entries[0].hash;
  if (depth >= MAX_DEPTH || entries.every((e) => e.hash === first)) {
    const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : 1)); // keys are distinct
    return collision(first, treeFromSorted(sorted)!);
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
  const entries: (readonly [string, V])[] = [];
  forEachIn(node, (key, value) => entries.push([key, value]));
  yield* entries;
}

/**
 * Calls `visit` for every entry in trie order, with a stack of its own: a generator per level
 * (`yield*` down four levels for 100k keys) cost 1-2 µs an entry, most of a resync pass.
 */
function forEachIn<V>(root: Node<V> | undefined, visit: (key: string, value: V) => void): void {
  if (root === undefined) return;
  const stack: Node<V>[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.kind === 0) visit(node.key, node.value);
    else if (node.kind === 1) for (const [key, value] of treeEntries(node.tree)) visit(key, value);
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

let rootOf: <V>(map: PersistentMap<V>) => Node<V> | undefined;

/**
 * Every node of `map` with the slots it holds (a branch: its children; a leaf, collision or tree
 * node: one), and the most keys sharing one hash: what tests need to count what a write copies
 * (the slots of the nodes the new map does not share with the old one).
 * @internal
 */
export function inspectMap<V>(map: PersistentMap<V>): { slots: Map<object, number>; largestCollision: number } {
  const slots = new Map<object, number>();
  let largestCollision = 0;
  const pending: (Node<V> | TreeNode<V>)[] = [];
  const root = rootOf(map);
  if (root !== undefined) pending.push(root);
  for (let n = pending.pop(); n !== undefined; n = pending.pop()) {
    if (!('kind' in n)) {
      slots.set(n, 1);
      if (n.left) pending.push(n.left);
      if (n.right) pending.push(n.right);
    } else if (n.kind === 2) {
      slots.set(n, n.children.length);
      pending.push(...n.children);
    } else {
      slots.set(n, 1);
      if (n.kind === 1) {
        largestCollision = Math.max(largestCollision, treeSize(n.tree));
        pending.push(n.tree);
      }
    }
  }
  return { slots, largestCollision };
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

  static {
    rootOf = (map) => map.#root;
  }

  private constructor(root: Node<V> | undefined, size: number, hash: HashFunc) {
    this.#root = root;
    this.size = size;
    this.#hash = hash;
    Object.freeze(this);
  }

  /**
   * An empty map hashing keys with `hash`. Default: FNV-1a with this process's random seed, so the
   * iteration order differs between processes; pass `fnv1a` or `seededFnv1a(n)` for the same order
   * everywhere, or a poor hash in tests that need collisions.
   */
  static empty<V>(hash: HashFunc = processHash): PersistentMap<V> {
    return new PersistentMap<V>(undefined, 0, hash);
  }

  /**
   * Builds a map from entries (later entries win) in one pass, several times faster than as many
   * `set`s: no path is copied on the way. The result is the map those `set`s would give.
   */
  static from<V>(entries: Iterable<readonly [string, V]>, hash: HashFunc = processHash): PersistentMap<V> {
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
    return this.#find(key)?.value;
  }

  /** True when `key` has an entry. */
  has(key: string): boolean {
    return this.#find(key) !== undefined;
  }

  /** The leaf or collision tree node holding `key` (no allocation: `get` is the hot path). */
  #find(key: string): Leaf<V> | TreeNode<V> | undefined {
    const hash = this.#hash(key);
    let node = this.#root;
    for (let depth = 0; node !== undefined; depth++) {
      if (node.kind === 0) return node.key === key ? node : undefined;
      if (node.kind === 1) return treeGet(node.tree, key);
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

  /** Calls `visit` for every entry, in the order of iteration; the fastest way through the map. */
  forEach(visit: (value: V, key: string) => void): void {
    forEachIn(this.#root, (key, value) => visit(value, key));
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

/**
 * A persistent AVL tree of string keys: where `PersistentMap` keeps keys whose 32-bit hashes are
 * equal. Hash collisions can be constructed (see docs/architecture.md), so they must not cost a
 * list copied per write: this tree keeps any number of them at O(log c) comparisons and O(log c)
 * nodes copied per `set` or `delete` (an AVL tree's height is under 1.45 log₂(c + 2)).
 *
 * Nodes are never written after creation; `set` and `delete` return the same tree when nothing
 * changed. Recursion goes as deep as the tree is high (under 50 levels for 2³² keys).
 *
 * @example
 * let t = treeSet(undefined, 'b', 2);
 * t = treeSet(t, 'a', 1);
 * [...treeEntries(t)]; // [['a', 1], ['b', 2]]
 */

/** A node of the tree (and the tree itself: its root). */
export interface TreeNode<V> {
  readonly key: string;
  readonly value: V;
  readonly left: TreeNode<V> | undefined;
  readonly right: TreeNode<V> | undefined;
  /** Levels in this subtree (a node without children: 1). */
  readonly height: number;
}

const heightOf = <V>(t: TreeNode<V> | undefined): number => (t === undefined ? 0 : t.height);

function node<V>(key: string, value: V, left: TreeNode<V> | undefined, right: TreeNode<V> | undefined): TreeNode<V> {
  const hl = heightOf(left);
  const hr = heightOf(right);
  return { key, value, left, right, height: (hl > hr ? hl : hr) + 1 };
}

/** `node(key, value, left, right)` rebalanced by one or two rotations when its sides differ by two levels. */
function balanced<V>(key: string, value: V, left: TreeNode<V> | undefined, right: TreeNode<V> | undefined): TreeNode<V> {
  const hl = heightOf(left);
  const hr = heightOf(right);
  if (hl > hr + 1) {
    const l = left!;
    if (heightOf(l.left) >= heightOf(l.right)) return node(l.key, l.value, l.left, node(key, value, l.right, right));
    const lr = l.right!;
    return node(lr.key, lr.value, node(l.key, l.value, l.left, lr.left), node(key, value, lr.right, right));
  }
  if (hr > hl + 1) {
    const r = right!;
    if (heightOf(r.right) >= heightOf(r.left)) return node(r.key, r.value, node(key, value, left, r.left), r.right);
    const rl = r.left!;
    return node(rl.key, rl.value, node(key, value, left, rl.left), node(r.key, r.value, rl.right, r.right));
  }
  return node(key, value, left, right);
}

/** The node holding `key`. */
export function treeGet<V>(tree: TreeNode<V> | undefined, key: string): TreeNode<V> | undefined {
  let t = tree;
  while (t !== undefined) {
    if (key === t.key) return t;
    t = key < t.key ? t.left : t.right;
  }
  return undefined;
}

/** A tree with `key` set to `value` (`tree` itself when it already holds that value there). */
export function treeSet<V>(tree: TreeNode<V> | undefined, key: string, value: V): TreeNode<V> {
  if (tree === undefined) return node(key, value, undefined, undefined);
  if (key === tree.key) return tree.value === value ? tree : node(key, value, tree.left, tree.right);
  if (key < tree.key) {
    const left = treeSet(tree.left, key, value);
    return left === tree.left ? tree : balanced(tree.key, tree.value, left, tree.right);
  }
  const right = treeSet(tree.right, key, value);
  return right === tree.right ? tree : balanced(tree.key, tree.value, tree.left, right);
}

/** A tree without `key` (`tree` itself when it has no such key). */
export function treeDelete<V>(tree: TreeNode<V> | undefined, key: string): TreeNode<V> | undefined {
  if (tree === undefined) return undefined;
  if (key === tree.key) {
    if (tree.left === undefined) return tree.right;
    if (tree.right === undefined) return tree.left;
    let first = tree.right; // the next key up takes the removed node's place
    while (first.left !== undefined) first = first.left;
    return balanced(first.key, first.value, tree.left, treeDelete(tree.right, first.key));
  }
  if (key < tree.key) {
    const left = treeDelete(tree.left, key);
    return left === tree.left ? tree : balanced(tree.key, tree.value, left, tree.right);
  }
  const right = treeDelete(tree.right, key);
  return right === tree.right ? tree : balanced(tree.key, tree.value, tree.left, right);
}

/** A balanced tree of `entries[from, to)`, which are sorted by key with no key twice. */
export function treeFromSorted<V>(entries: readonly { key: string; value: V }[], from = 0, to = entries.length): TreeNode<V> | undefined {
  if (from >= to) return undefined;
  const mid = (from + to) >>> 1;
  return node(entries[mid].key, entries[mid].value, treeFromSorted(entries, from, mid), treeFromSorted(entries, mid + 1, to));
}

/** Entries in key order. */
export function* treeEntries<V>(tree: TreeNode<V> | undefined): Generator<readonly [string, V]> {
  if (tree === undefined) return;
  yield* treeEntries(tree.left);
  yield [tree.key, tree.value];
  yield* treeEntries(tree.right);
}

/** The number of entries (a walk of the whole tree, without recursion). */
export function treeSize(tree: TreeNode<unknown> | undefined): number {
  let n = 0;
  const pending = tree === undefined ? [] : [tree];
  for (let t = pending.pop(); t !== undefined; t = pending.pop()) {
    n++;
    if (t.left) pending.push(t.left);
    if (t.right) pending.push(t.right);
  }
  return n;
}

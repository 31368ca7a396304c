import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { treeDelete, treeEntries, treeFromSorted, treeGet, treeSet, treeSize, type TreeNode } from './sortedTree.ts';

/** Checks the AVL invariants of `t` (order, heights, balance) and returns its height. */
function checkedHeight(t: TreeNode<number> | undefined, above?: string, below?: string): number {
  if (t === undefined) return 0;
  if (above !== undefined) expect(t.key > above).toBe(true);
  if (below !== undefined) expect(t.key < below).toBe(true);
  const hl = checkedHeight(t.left, above, t.key);
  const hr = checkedHeight(t.right, t.key, below);
  expect(Math.abs(hl - hr)).toBeLessThanOrEqual(1);
  expect(t.height).toBe(Math.max(hl, hr) + 1);
  return t.height;
}

const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

describe('sortedTree', () => {
  it('should stay a balanced search tree holding what a Map holds, leaving old trees intact', () => {
    const key = fc.string({ maxLength: 3 });
    const op = fc.oneof(fc.tuple(fc.constant('set' as const), key, fc.integer()), fc.tuple(fc.constant('delete' as const), key));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        let tree: TreeNode<number> | undefined;
        const model = new Map<string, number>();
        const history: [TreeNode<number> | undefined, [string, number][]][] = [];
        for (const [kind, k, v] of ops) {
          const before = tree;
          if (kind === 'set') {
            tree = treeSet(tree, k, v!);
            if (model.get(k) === v) expect(tree).toBe(before); // nothing changed: the same tree
            model.set(k, v!);
          } else {
            tree = treeDelete(tree, k);
            if (!model.has(k)) expect(tree).toBe(before);
            model.delete(k);
          }
          const height = checkedHeight(tree);
          expect(height).toBeLessThanOrEqual(1.45 * Math.log2(model.size + 2));
          history.push([tree, sorted(model)]);
        }
        for (const [t, entries] of history) {
          expect([...treeEntries(t)]).toEqual(entries);
          expect(treeSize(t)).toBe(entries.length);
          for (const [k, v] of entries) expect(treeGet(t, k)?.value).toBe(v);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('should build a balanced tree from sorted entries', () => {
    for (const n of [0, 1, 2, 3, 7, 8, 1000]) {
      const entries = Array.from({ length: n }, (_, i) => ({ key: String(i).padStart(4, '0'), value: i }));
      const tree = treeFromSorted(entries);
      expect(checkedHeight(tree)).toBe(n === 0 ? 0 : Math.floor(Math.log2(n)) + 1);
      expect([...treeEntries(tree)]).toEqual(entries.map((e) => [e.key, e.value]));
    }
  });
});

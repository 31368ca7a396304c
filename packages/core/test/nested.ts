/**
 * Documents nested deeper than any call stack allows (the API server accepts them, and JSON.parse
 * builds them), and checks over them that do not recurse.
 */

/** `{ a: [{ a: [… leaf] }] }`: `depth` containers (objects and arrays in turn), built without recursion. */
export function nested(depth: number, leaf: unknown): { a: unknown } {
  let doc: unknown = leaf;
  for (let i = depth; i >= 1; i--) doc = i % 2 === 1 ? { a: doc } : [doc];
  return doc as { a: unknown };
}

/** `nested(depth, leaf)` as JSON text, built without recursion (JSON.stringify would overflow). */
export function nestedJson(depth: number, leafJson: string): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 1; i <= depth; i++) {
    open.push(i % 2 === 1 ? '{"a":' : '[');
    close.push(i % 2 === 1 ? '}' : ']');
  }
  return open.join('') + leafJson + close.reverse().join('');
}

/** The leaf at the bottom of a `nested` document. */
export function nestedLeaf(doc: unknown): unknown {
  let v = doc;
  while (typeof v === 'object' && v !== null) v = Array.isArray(v) ? v[0] : (v as { a: unknown }).a;
  return v;
}

/** Whether every object reachable from `v` is frozen, walked without recursion (cycles allowed). */
export function everyObjectFrozen(v: unknown): boolean {
  const seen = new Set<unknown>();
  const pending = [v];
  while (pending.length > 0) {
    const o = pending.pop();
    if (typeof o !== 'object' || o === null || seen.has(o)) continue;
    if (!Object.isFrozen(o)) return false;
    seen.add(o);
    pending.push(...Object.values(o));
  }
  return true;
}

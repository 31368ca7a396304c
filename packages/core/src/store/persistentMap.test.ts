import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { collidingKeys } from '@rxinformer/testing';
import { fnv1a as fnvOf, processHash, processHashSeed, seededFnv1a } from './keyHash.ts';
import { inspectMap, PersistentMap } from './persistentMap.ts';

type Op = { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string };

const ops = (keys: fc.Arbitrary<string>) =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: keys, value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: keys }),
    ),
    { maxLength: 300 },
  );

function check(hash: ((k: string) => number) | undefined, list: Op[]) {
  const model = new Map<string, number>();
  let map = PersistentMap.empty<number>(hash);
  const history: [PersistentMap<number>, Map<string, number>][] = [];
  for (const op of list) {
    if (op.kind === 'set') {
      model.set(op.key, op.value);
      map = map.set(op.key, op.value);
    } else {
      model.delete(op.key);
      map = map.delete(op.key);
    }
    history.push([map, new Map(model)]);
  }
  // Every intermediate snapshot still holds exactly what it held when it was made.
  for (const [snapshot, expected] of history) {
    expect(snapshot.size).toBe(expected.size);
    expect(new Map(snapshot)).toEqual(expected);
    for (const [k, v] of expected) expect(snapshot.get(k)).toBe(v);
  }
}

describe('PersistentMap', () => {
  it('should behave like a Map and keep every old snapshot intact', () => {
    fc.assert(
      fc.property(ops(fc.string({ maxLength: 4 })), (list) => check(undefined, list)),
      { numRuns: 300 },
    );
  });

  it('should handle full hash collisions and partial ones', () => {
    fc.assert(
      fc.property(ops(fc.string({ maxLength: 3 })), (list) => check(() => 42, list)),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(ops(fc.string({ maxLength: 3 })), (list) => check((k) => k.length * 33, list)),
      { numRuns: 150 },
    );
  });

  it('should build from entries the map that successive sets give, which then changes like any other', () => {
    const hashes: ((k: string) => number)[] = [fnvOf, () => 42, (k) => k.length * 33];
    const keys = fc.string({ maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, fc.integer()), { maxLength: 200 }), ops(keys), (entries, list) => {
        for (const hash of hashes) {
          let built = PersistentMap.from(entries, hash);
          let grown = entries.reduce((m, [k, v]) => m.set(k, v), PersistentMap.empty<number>(hash));
          expect(built.size).toBe(grown.size);
          expect([...built]).toEqual([...grown]); // same entries in the same trie order: the same shape
          expect([...PersistentMap.from(new Map(entries), hash)]).toEqual([...grown]); // a Map is taken as it is
          for (const op of list) {
            built = op.kind === 'set' ? built.set(op.key, op.value) : built.delete(op.key);
            grown = op.kind === 'set' ? grown.set(op.key, op.value) : grown.delete(op.key);
            expect([...built]).toEqual([...grown]);
          }
        }
      }),
      { numRuns: 150 },
    );
    expect(
      PersistentMap.from([
        ['a', 1],
        ['b', 2],
        ['a', 3],
      ]).get('a'),
    ).toBe(3); // later entries win
    expect(PersistentMap.from([]).size).toBe(0);
  });

  it('should return the same map when nothing changes', () => {
    const a = PersistentMap.empty<number>().set('x', 1);
    expect(a.set('x', 1)).toBe(a);
    expect(a.delete('nope')).toBe(a);
    expect(a.has('x')).toBe(true);
    expect(a.has('y')).toBe(false);
  });

  it('should hold 100k entries and find each of them', () => {
    let map = PersistentMap.empty<number>();
    for (let i = 0; i < 100_000; i++) map = map.set(`ns/pod-${i}`, i);
    expect(map.size).toBe(100_000);
    for (let i = 0; i < 100_000; i += 997) expect(map.get(`ns/pod-${i}`)).toBe(i);
    expect([...map.keys()]).toHaveLength(100_000);
    expect(Object.isFrozen(map)).toBe(true);
  });
});

/** Slots of the nodes of `after` that `before` does not share: what the write from one to the other copied. */
const copiedSlots = <V>(before: PersistentMap<V>, after: PersistentMap<V>): number => {
  const kept = inspectMap(before).slots;
  let copied = 0;
  for (const [node, slots] of inspectMap(after).slots) if (!kept.has(node)) copied += slots;
  return copied;
};

/**
 * The most a write may copy with `c` keys under one hash: a path of trie branches (7 levels of at
 * most 32 slots) and, in the collision's AVL tree, the path to the key (height < 1.45 log₂(c + 2))
 * plus the nodes of a rotation. A list of the colliding keys would copy `c`.
 */
const logarithmicBound = (c: number) => 7 * 32 + 1 + Math.ceil(1.45 * Math.log2(c + 2)) + 2;

/** The most slots a `set` or `delete` of `keys` (one after the other; every 4th measured) copies; also checks the map. */
function worstWrite(empty: PersistentMap<number>, keys: readonly string[]): number {
  let worst = 0;
  let map = empty;
  let writes = 0;
  const write = (next: PersistentMap<number>) => {
    if (writes++ % 4 === 0) worst = Math.max(worst, copiedSlots(map, next));
    map = next;
  };
  keys.forEach((k, i) => write(map.set(k, i)));
  expect(map.size).toBe(keys.length);
  keys.forEach((k, i) => expect(map.get(k)).toBe(i));
  keys.forEach((k, i) => write(map.set(k, -i - 1)));
  for (const k of keys) write(map.delete(k));
  expect(map.size).toBe(0);
  return worst;
}

describe('PersistentMap with keys crafted to collide', () => {
  // 1,024 pod keys with one unseeded FNV-1a hash, found in a fraction of a second as a flood would be.
  const crafted = collidingKeys('flood/p', 10);

  it('should build keys that collide under the unseeded hash (the flood it must survive)', () => {
    expect(new Set(crafted).size).toBe(1024);
    expect(new Set(crafted.map(fnvOf)).size).toBe(1);
  });

  it('should keep them apart by default: the default hash is seeded per process', () => {
    expect(processHash('default/web')).toBe(seededFnv1a(processHashSeed)('default/web'));
    expect(new Set(crafted.map(processHash)).size).toBeGreaterThan(1020); // a few chance collisions at most
    expect(inspectMap(PersistentMap.from(crafted.map((k) => [k, 1]))).largestCollision).toBeLessThan(3);
  });

  it("should copy O(log n) per write, not the colliding keys, when they do share a hash (the unseeded one or this process's)", () => {
    const forSeed = collidingKeys('flood/p', 10, processHashSeed);
    expect(new Set(forSeed.map(processHash)).size).toBe(1);
    for (const [hash, keys] of [
      [fnvOf, crafted],
      [processHash, forSeed],
    ] as const) {
      expect(worstWrite(PersistentMap.empty<number>(hash), keys)).toBeLessThanOrEqual(logarithmicBound(keys.length));
      // Built in one go, among ordinary keys, then written to.
      const ordinary = Array.from({ length: 3000 }, (_, i) => `flood/web-${i}`);
      const built = PersistentMap.from(
        [...ordinary, ...keys].map((k, i) => [k, i]),
        hash,
      );
      expect(inspectMap(built).largestCollision).toBe(1024);
      for (const k of keys.slice(0, 16)) {
        expect(copiedSlots(built, built.set(k, -1))).toBeLessThanOrEqual(logarithmicBound(1024));
        expect(copiedSlots(built, built.delete(k))).toBeLessThanOrEqual(logarithmicBound(1024));
      }
    }
  });
});

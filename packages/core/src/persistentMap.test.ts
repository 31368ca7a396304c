import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PersistentMap, fnv1a as fnvOf } from './persistentMap.ts';

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

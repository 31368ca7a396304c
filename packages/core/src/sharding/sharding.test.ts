import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { firstValueFrom, from, of, toArray } from 'rxjs';
import { shardedListerWatcher } from './shardedListerWatcher.ts';
import { InvalidOptionsError } from '../errors.ts';
import { assignSlots, slotsOf } from './shardAssignment.ts';
import { HASH_SPACE_END, fnv1a64, slotOf, slotOfKey, slotRange, validateSlotCount } from './shardHash.ts';
import { ShardSelectorError, hexBound, parseShardSelector, shardMatcher, shardSelectorFor } from './shardSelector.ts';

/** FNV-1a 64 the slow, obvious way. */
function reference(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & (HASH_SPACE_END - 1n);
  return h;
}

describe('fnv1a64', () => {
  it('should give the published FNV-1a 64 vectors', () => {
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64('foobar')).toBe(0x85944171f73967e8n);
  });

  it('should equal the BigInt computation for any string, UTF-8 included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => fnv1a64(s) === reference(s)));
  });

  it('should put an object in the slot whose range holds its hash', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom(1, 2, 4, 256, 65_536), (uid, slots) => {
        const slot = slotOf({ metadata: { uid } }, slots);
        const [lo, hi] = slotRange(slot, slots);
        const h = fnv1a64(uid);
        return lo <= h && h < hi && slotOfKey(uid, slots) === slot;
      }),
    );
  });

  it('should refuse a slot count that is not a power of two up to 65536', () => {
    for (const bad of [0, 3, 100, 131_072, 1.5, NaN]) expect(() => validateSlotCount(bad)).toThrow(InvalidOptionsError);
  });
});

describe('shardSelectorFor and parseShardSelector', () => {
  it("should write KEP-5866's ranges, merging adjacent slots", () => {
    expect(shardSelectorFor([0, 1], 4)).toBe("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
    expect(shardSelectorFor([3, 0], 4)).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    );
    expect(shardSelectorFor([], 4)).toBeUndefined();
    expect(shardSelectorFor([0], 1, 'object.metadata.namespace')).toBe(
      "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')",
    );
  });

  it('should parse what it writes, and match exactly the objects of those slots', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { maxLength: 40 }),
        fc.array(fc.uuid(), { maxLength: 30 }),
        (slots, uids) => {
          const selector = shardSelectorFor(slots, 256);
          if (selector === undefined) return slots.length === 0;
          const matches = shardMatcher(parseShardSelector(selector));
          return uids.every((uid) => matches({ metadata: { uid } }) === slots.includes(slotOf({ metadata: { uid } }, 256)));
        },
      ),
    );
  });

  it('should accept double quotes and spaces, and match on namespaces', () => {
    const ranges = parseShardSelector(
      `shardRange( object.metadata.namespace ,"0x0000000000000000",'0x10000000000000000' )||shardRange(object.metadata.namespace,'0x0000000000000000','0x0000000000000001')`,
    );
    expect(ranges).toEqual([
      { field: 'object.metadata.namespace', lo: 0n, hi: HASH_SPACE_END },
      { field: 'object.metadata.namespace', lo: 0n, hi: 1n },
    ]);
    expect(shardMatcher(ranges)({ metadata: { namespace: 'x' } })).toBe(true);
  });

  const Z = '0x0000000000000000';
  const H = '0x8000000000000000';
  it.each([
    ['', /empty selector/],
    [`shardRange(metadata.uid, "${Z}", "${H}")`, /unsupported field/],
    [`shardRange(object.metadata.uid, '0', '${H}')`, /not 0x followed/],
    [`shardRange(object.metadata.uid, '${Z}', '0x10000000000000001')`, /past 2\^64/],
    [`shardRange(object.metadata.uid, '${H}', '${H}')`, /empty range/],
    [`shardRange(object.metadata.uid, '${Z}', '${H}') && shardRange(object.metadata.uid, '${Z}', '${H}')`, /"\|\|" or the end/],
    [`shardRange(object.metadata.uid, '${Z}', '${H}'`, /expected "\)"/],
    [`shardRange(object.metadata.uid, ${Z}, '${H}')`, /quoted bound/],
    // What kube-apiserver v1.36.3 answers with a 500 "invalid shard selector":
    [`shardRange(object.metadata.uid, '0x0', '${H}')`, /must have 16 hex digits \(0x0000000000000000;/],
    [`shardRange(object.metadata.uid, '${Z}', '0x8')`, /must have 16 hex digits/],
    [`shardRange(object.metadata.uid, '0x00000000000000000', '${H}')`, /17 only for 2\^64/],
    [`shardRange(object.metadata.uid, '${Z}', '0xC000000000000000')`, /uppercase hex digits: write 0xc000000000000000/],
    [
      `shardRange(object.metadata.uid, '${Z}', '${H}') || shardRange(object.metadata.namespace, '${H}', '0x10000000000000000')`,
      /same field/,
    ],
  ])('should refuse %j with a clear ShardSelectorError', (selector, message) => {
    expect(() => parseShardSelector(selector)).toThrow(ShardSelectorError);
    expect(() => parseShardSelector(selector)).toThrow(message);
  });

  it('should write 2^64 as the KEP does', () => {
    expect(hexBound(HASH_SPACE_END)).toBe('0x10000000000000000');
  });
});

describe('assignSlots', () => {
  const members = (n: number) => Array.from({ length: n }, (_, i) => `replica-${i}`);

  it('should give every slot one owner, shares differing by one slot at most', () => {
    for (const n of [1, 2, 3, 5, 7]) {
      const owners = assignSlots(256, members(n));
      const counts = members(n).map((m) => owners.filter((o) => o === m).length);
      expect(counts.reduce((a, b) => a + b)).toBe(256);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(Math.ceil(256 / n) * n - 256 + 1);
    }
    expect(assignSlots(4, [])).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('should move about 1/N of the slots when a member joins or leaves, mostly to or from it', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }), (names) => {
        const before = assignSlots(256, names.slice(1));
        const after = assignSlots(256, names);
        const moved = after.filter((owner, slot) => owner !== before[slot]);
        const share = Math.ceil(256 / names.length);
        // The newcomer gets what the others' fair shares leave, all of it moved to it.
        return moved.length <= share * 1.5 + 4 && moved.filter((o) => o === names[0]).length >= 256 - (names.length - 1) * share;
      }),
    );
    expect(slotsOf('replica-1', 8, members(2))).toEqual(assignSlots(8, members(2)).flatMap((m, s) => (m === 'replica-1' ? [s] : [])));
  });
});

describe('shardedListerWatcher', () => {
  it('should ask the server for its slots and drop whatever else it sends (a server without the feature gate)', async () => {
    const uids = Array.from({ length: 40 }, () => crypto.randomUUID()); // UIDs are random UUIDs
    const items = uids.map((uid) => ({ metadata: { name: uid, uid } }));
    const asked: (string | undefined)[] = [];
    const lw = shardedListerWatcher(
      {
        list: (o) => {
          asked.push(o.shardSelector);
          return of({ items, metadata: { resourceVersion: '1' } });
        },
        watch: (o) => {
          asked.push(o.shardSelector);
          return from(items.map((object) => ({ type: 'ADDED' as const, object })));
        },
      },
      () => shardSelectorFor([0, 1], 4),
    );
    const listed = (await firstValueFrom(lw.list({}))).items.map((o) => o.metadata.uid);
    const watched = (await firstValueFrom(lw.watch({}).pipe(toArray()))).map((e) =>
      e.type === 'ERROR' || e.type === 'OPENED' ? '' : e.object.metadata?.uid,
    );
    const mine = uids.filter((uid) => slotOfKey(uid, 4) < 2);
    expect(listed).toEqual(mine);
    expect(watched).toEqual(mine);
    expect(mine.length).toBeGreaterThan(5);
    expect(asked).toEqual([shardSelectorFor([0, 1], 4), shardSelectorFor([0, 1], 4)]);
  });
});

/**
 * Slots to members by rendezvous (highest random weight) hashing: each slot goes to the member
 * with the highest score for it. Adding a member moves only the slots it now wins (about 1/N);
 * removing one moves only the slots it had.
 */
import { fnv1a } from './keyHash.ts';

/** Murmur3's 32-bit finalizer: spreads every input bit over the output. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The score of `member` for `slot` (member hashes precomputed with `fnv1a`). */
function score(memberHash: number, slot: number): number {
  return mix32(memberHash ^ mix32(Math.imul(slot + 1, 0x9e3779b1)));
}

/**
 * The owner of every slot among `members` (order does not matter; duplicates count once).
 * Returns an array: index = slot, value = member (`undefined` when there are no members).
 *
 * @example
 * const owners = assignSlots(256, ['replica-a', 'replica-b', 'replica-c']);
 * const mine = owners.flatMap((m, slot) => (m === 'replica-a' ? [slot] : []));
 */
export function assignSlots(slotCount: number, members: Iterable<string>): (string | undefined)[] {
  const list = [...new Set(members)].sort();
  const hashes = list.map((m) => fnv1a(m));
  const owners: (string | undefined)[] = new Array<string | undefined>(slotCount).fill(undefined);
  for (let slot = 0; slot < slotCount; slot++) {
    let best = -1;
    let bestScore = -1;
    for (let i = 0; i < list.length; i++) {
      const s = score(hashes[i], slot);
      if (s > bestScore) {
        best = i;
        bestScore = s;
      }
    }
    owners[slot] = best < 0 ? undefined : list[best];
  }
  return owners;
}

/** The slots `member` owns under `assignSlots(slotCount, members)`. */
export function slotsOf(member: string, slotCount: number, members: Iterable<string>): number[] {
  return assignSlots(slotCount, members).flatMap((m, slot) => (m === member ? [slot] : []));
}

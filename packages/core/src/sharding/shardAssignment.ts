/**
 * Slots to members by rendezvous (highest random weight) hashing with bounded load: each slot goes
 * to the member with the highest score for it that still has room under a fair share. A member
 * joining or leaving moves about 1/N of the slots, and shares differ by at most one slot.
 */
import { fnv1a } from '../store/keyHash.ts';

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
 * The owner of every slot among `members` (order does not matter; duplicates count once), by
 * rendezvous hashing with bounded load: (slot, member) pairs are taken from the highest score down,
 * and a member takes no more than its fair share (`ceil(slots / members)`), so shares differ by at
 * most one slot while a member joining or leaving still moves only about `slots / members` of them.
 * Returns an array: index = slot, value = member (`undefined` when there are no members).
 *
 * @example
 * const owners = assignSlots(256, ['replica-a', 'replica-b', 'replica-c']);
 * const mine = owners.flatMap((m, slot) => (m === 'replica-a' ? [slot] : []));
 */
export function assignSlots(slotCount: number, members: Iterable<string>): (string | undefined)[] {
  const list = [...new Set(members)].sort();
  const owners: (string | undefined)[] = new Array<string | undefined>(slotCount).fill(undefined);
  if (list.length === 0) return owners;
  const hashes = list.map((m) => fnv1a(m));
  const pairs: { slot: number; member: number; score: number }[] = [];
  for (let slot = 0; slot < slotCount; slot++)
    for (let m = 0; m < list.length; m++) pairs.push({ slot, member: m, score: score(hashes[m], slot) });
  pairs.sort((a, b) => b.score - a.score || a.slot - b.slot || a.member - b.member);
  const cap = Math.ceil(slotCount / list.length);
  const taken = new Array<number>(list.length).fill(0);
  for (const p of pairs) {
    if (owners[p.slot] !== undefined || taken[p.member] >= cap) continue;
    owners[p.slot] = list[p.member];
    taken[p.member]++;
  }
  return owners;
}
/** The slots `member` owns under `assignSlots(slotCount, members)`. */
export function slotsOf(member: string, slotCount: number, members: Iterable<string>): number[] {
  return assignSlots(slotCount, members).flatMap((m, slot) => (m === member ? [slot] : []));
}

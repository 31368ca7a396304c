/**
 * The hash space of KEP-5866 (server-side sharded list and watch): 64-bit FNV-1a of a field's
 * UTF-8 bytes (`metadata.uid` or `metadata.namespace`), ranges `[lo, hi)` of `[0, 2^64)`, cut
 * here into a fixed number of equal slots.
 */
import { InvalidOptionsError } from '../errors.ts';
import type { KubeObject } from '../types.ts';

/** The fields KEP-5866 can shard on, as its selector names them. */
export type ShardKeyField = 'object.metadata.uid' | 'object.metadata.namespace';

/** 2^64: the exclusive end of the hash space. */
export const HASH_SPACE_END = 1n << 64n;

const encoder = new TextEncoder();

/**
 * 64-bit FNV-1a of the UTF-8 bytes of `text`, computed on four 16-bit limbs (no BigInt on the hot
 * path), returned as a BigInt.
 *
 * @example
 * fnv1a64('') === 0xcbf29ce484222325n; // the offset basis
 */
export function fnv1a64(text: string): bigint {
  const [a0, a1, a2, a3] = fnv1a64Limbs(text);
  return (BigInt(a3) << 48n) | (BigInt(a2) << 32n) | (BigInt(a1) << 16n) | BigInt(a0);
}

/** The hash as four 16-bit limbs, least significant first. */
function fnv1a64Limbs(text: string): [number, number, number, number] {
  // Offset basis 0xcbf29ce484222325; prime 0x100000001b3 = 2^40 + 0x1b3.
  let a0 = 0x2325;
  let a1 = 0x8422;
  let a2 = 0x9ce4;
  let a3 = 0xcbf2;
  const bytes = encoder.encode(text);
  for (let i = 0; i < bytes.length; i++) {
    a0 ^= bytes[i];
    // (a × 0x1b3) + (a << 40), mod 2^64, limb by limb with carries.
    const t0 = a0 * 0x1b3;
    const t1 = a1 * 0x1b3;
    const t2 = a2 * 0x1b3 + (a0 << 8);
    const t3 = a3 * 0x1b3 + (a1 << 8);
    a0 = t0 & 0xffff;
    const c1 = t1 + (t0 >>> 16);
    a1 = c1 & 0xffff;
    const c2 = t2 + Math.floor(c1 / 0x10000);
    a2 = c2 & 0xffff;
    a3 = (t3 + Math.floor(c2 / 0x10000)) & 0xffff;
  }
  return [a0, a1, a2, a3];
}

/** The value of `field` in `obj` that KEP-5866 hashes (`''` when absent). */
export function shardKeyOf(obj: KubeObject | undefined, field: ShardKeyField): string {
  const m = obj?.metadata;
  return (field === 'object.metadata.uid' ? m?.uid : m?.namespace) ?? '';
}

/** Checks a slot count: a power of two from 1 to 65,536, so each slot is an exact `[lo, hi)` of the space. */
export function validateSlotCount(slots: number, who = 'sharding'): number {
  if (!Number.isInteger(slots) || slots < 1 || slots > 65_536 || (slots & (slots - 1)) !== 0)
    throw new InvalidOptionsError(`${who}: slots must be a power of two from 1 to 65536, got ${String(slots)}`);
  return slots;
}

/**
 * The slot of `obj`: which of `slots` equal ranges its hash falls in (the top bits of the hash).
 *
 * @example
 * slotOf(pod, 256, 'object.metadata.uid'); // 0..255
 */
export function slotOf(obj: KubeObject | undefined, slots: number, field: ShardKeyField = 'object.metadata.uid'): number {
  return slotOfKey(shardKeyOf(obj, field), slots);
}

/** The slot of a shard key (a UID or a namespace) among `slots` (a power of two). */
export function slotOfKey(key: string, slots: number): number {
  const top = fnv1a64Limbs(key)[3];
  const bits = Math.log2(slots);
  return bits === 0 ? 0 : bits <= 16 ? top >>> (16 - bits) : 0;
}

/** The range `[lo, hi)` of the hash space that slot `slot` of `slots` covers. */
export function slotRange(slot: number, slots: number): readonly [bigint, bigint] {
  const width = HASH_SPACE_END / BigInt(slots);
  return [BigInt(slot) * width, BigInt(slot + 1) * width];
}

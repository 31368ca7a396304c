/**
 * What a shard ring's member Leases say, read as the ring's rules need: the ring label, the slots a
 * member holds (an annotation), the ring's configuration, and whether a member is alive — judged,
 * as leader election judges expiry, by when its record was last seen changing.
 */
import { RxInformerError } from '../errors.ts';
import { LEASE_INSTANCE_ANNOTATION, LEASE_RELEASED, leaseFingerprint, type Lease } from '../leader-election/lease.ts';
import { unexpired, type LeaseTiming, type Observed } from '../leader-election/leaderElectionRules.ts';

/** The label every member Lease of a ring carries, with the ring's name as value. */
export const SHARD_RING_LABEL = 'rxinformer.io/shard-ring';
/** The annotation in which a member says which slots it holds (`0-3,7`): it may work on no others. */
export const SHARD_SLOTS_ANNOTATION = 'rxinformer.io/shard-slots';
/** The annotation naming what the ring shards (controller, slot count, field): members must agree. */
export const SHARD_CONFIG_ANNOTATION = 'rxinformer.io/shard-config';

/**
 * Slots as compact ranges.
 *
 * @example
 * encodeSlots([0, 1, 2, 3, 7]); // '0-3,7'
 */
export function encodeSlots(slots: Iterable<number>): string {
  const sorted = [...new Set(slots)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The slots of an annotation; parts that are not slots below `slotCount` are left out. */
export function decodeSlots(text: string | undefined, slotCount: number): number[] {
  const out: number[] = [];
  for (const part of (text ?? '').split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) continue;
    const from = Number(m[1]);
    const to = Math.min(Number(m[2] ?? m[1]), slotCount - 1);
    for (let s = from; s <= to; s++) out.push(s);
  }
  return out;
}

/** The slots a member Lease lists. */
export function slotsOfLease(lease: Lease, slotCount: number): number[] {
  return decodeSlots(lease.metadata?.annotations?.[SHARD_SLOTS_ANNOTATION], slotCount);
}

/**
 * True while a member Lease counts: it names a holder, was not released, and was seen changing
 * less than the lease duration ago (the longer of its own and ours).
 */
export function memberAlive(observed: Observed, now: number, timing: LeaseTiming): boolean {
  const r = observed.record;
  if (r.holder === '' || r.released) return false;
  return unexpired(observed, now, timing);
}

/**
 * Whether a member Lease just read (a consistent read) counts: one whose record differs from what
 * was last observed has changed since, so its holder is alive if it names one; one unchanged is
 * judged by when it was seen changing.
 */
export function readMemberAlive(lease: Lease, observed: Observed | undefined, now: number, timing: LeaseTiming): boolean {
  const holder = lease.spec?.holderIdentity;
  if (!observed || observed.fingerprint !== leaseFingerprint(lease)) {
    const released = lease.metadata?.annotations?.[LEASE_INSTANCE_ANNOTATION] === LEASE_RELEASED;
    return typeof holder === 'string' && holder !== '' && !released;
  }
  return memberAlive(observed, now, timing);
}

/** Another Lease in the ring describes another ring (controller, slot count or field): nobody works until it goes. */
export class ShardRingConflictError extends RxInformerError {
  /** Always `ShardRingConflictError`: set as a string, so it survives minification. */
  override readonly name: string = 'ShardRingConflictError';
  constructor(ring: string, ours: string, theirs: string, holder: string) {
    super(
      'ShardRingConflict',
      `ring "${ring}": member ${holder} shards "${theirs}" but this replica shards "${ours}"; two controllers share the ring label, or a rollout changed the slots: this replica holds no slot until they agree`,
    );
  }
}

/**
 * coordination.k8s.io/v1 Lease as leader election and shard membership read and write it: the
 * wire shape, MicroTime, and a record normalised from whatever a Lease holds (a Lease edited by hand
 * may hold nonsense: missing fields, a negative duration).
 */
import { RxInformerError } from '../errors.ts';
import type { KubeObject } from '../types.ts';

/** The `spec` of a coordination.k8s.io/v1 Lease. Times are MicroTime strings on the wire. */
export interface LeaseSpec {
  /** Who holds the lease; empty or absent: nobody. */
  holderIdentity?: string | null;
  /** How long the holder may go without renewing before others may take the lease, in seconds. */
  leaseDurationSeconds?: number | null;
  /** When the current holder acquired it (MicroTime: RFC 3339 with microseconds). */
  acquireTime?: string | Date | null;
  /** When the holder last renewed it (MicroTime). Informational: expiry is never judged from it. */
  renewTime?: string | Date | null;
  /** How many times the lease changed hands. */
  leaseTransitions?: number | null;
}

/** A coordination.k8s.io/v1 Lease. client-node's `V1Lease` is assignable to it. */
export interface Lease extends KubeObject {
  /** The holder and its times. */
  spec?: LeaseSpec;
}

/** The annotation naming the process (a random token per candidate) that holds the lease. */
export const LEASE_INSTANCE_ANNOTATION = 'rxinformer.io/holder-instance';

/** The value of `LEASE_INSTANCE_ANNOTATION` once the holder released the lease on purpose. */
export const LEASE_RELEASED = 'released';

/** A Lease as the election rules read it. */
export interface LeaseRecord {
  /** The holder, `''` for none. */
  readonly holder: string;
  /** The process that holds it (`LEASE_INSTANCE_ANNOTATION`), `''` when absent. */
  readonly instance: string;
  /** The duration in seconds, when the Lease gives a whole number > 0; undefined otherwise. */
  readonly durationSeconds?: number;
  /** `leaseTransitions`, 0 when absent or not a whole number >= 0. */
  readonly transitions: number;
  /** `acquireTime` as written, carried over on renewals. */
  readonly acquireTime?: string;
  /** True when the holder is empty and the lease was released on purpose: free at once. */
  readonly released: boolean;
  /** What was wrong with the Lease (for a warning): empty when nothing. */
  readonly problems: readonly string[];
}

/**
 * A Lease that makes no sense for leader election (reported on the state stream, never thrown: the
 * election goes on with the safe reading documented on `leaderElection`).
 */
export class InvalidLeaseError extends RxInformerError {
  /** Always `InvalidLeaseError`: set as a string, so it survives minification. */
  override readonly name: string = 'InvalidLeaseError';
  /** `namespace/name` of the Lease. */
  readonly lease: string;
  /** What is wrong with it. */
  readonly problems: readonly string[];

  constructor(lease: string, problems: readonly string[]) {
    super('InvalidLease', `Lease ${lease}: ${problems.join('; ')}`);
    this.lease = lease;
    this.problems = problems;
  }
}

/**
 * A time as a Kubernetes MicroTime: RFC 3339 in UTC with six fractional digits (a fraction of a
 * millisecond kept to the microsecond).
 *
 * @example
 * microTime(0); // '1970-01-01T00:00:00.000000Z'
 */
export function microTime(ms: number): string {
  return microTimeOf(Number.isFinite(ms) ? Math.floor(ms * 1000) : 0);
}

function microTimeOf(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
}

/** Microseconds since 1970 of a MicroTime (or a Date); undefined when it is not one. */
function microsOf(time: string | Date | null | undefined): number | undefined {
  if (time instanceof Date) return Number.isFinite(time.getTime()) ? time.getTime() * 1000 : undefined;
  const m = typeof time === 'string' ? /^(.{19})(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(time) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  return Number.isFinite(ms) ? ms * 1000 + Number((m![2] ?? '').padEnd(6, '0').slice(0, 6)) : undefined;
}

/**
 * The MicroTime to write at wall time `ms` in place of `previous`: `ms`'s, unless that falls in the
 * millisecond of `previous` and not after it — a wall clock that did not move since (a virtual or
 * frozen clock): then one microsecond after `previous`. Others see a holder renew by its record
 * changing, so a renewal must never write the record it replaces.
 */
export function nextMicroTime(previous: string | Date | null | undefined, ms: number): string {
  const before = microsOf(previous);
  const now = Number.isFinite(ms) ? Math.floor(ms * 1000) : 0;
  const stale = before !== undefined && now <= before && Math.floor(now / 1000) === Math.floor(before / 1000);
  return microTimeOf(stale ? before + 1 : now);
}

/** The record of `lease`, with the problems a hand edit may have left in it. */
export function leaseRecord(lease: Lease | undefined): LeaseRecord {
  const spec: LeaseSpec = lease?.spec && typeof lease.spec === 'object' ? lease.spec : {};
  const problems: string[] = [];
  const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
  if (spec.holderIdentity != null && typeof spec.holderIdentity !== 'string') problems.push('holderIdentity is not a string');
  const d = spec.leaseDurationSeconds;
  const durationSeconds = typeof d === 'number' && Number.isInteger(d) && d > 0 ? d : undefined;
  if (holder !== '' && durationSeconds === undefined) problems.push(`leaseDurationSeconds ${JSON.stringify(d)} is not a whole number > 0`);
  const t = spec.leaseTransitions;
  const transitions = typeof t === 'number' && Number.isInteger(t) && t >= 0 ? t : 0;
  if (t != null && transitions !== t) problems.push(`leaseTransitions ${JSON.stringify(t)} is not a whole number >= 0`);
  const instance = lease?.metadata?.annotations?.[LEASE_INSTANCE_ANNOTATION] ?? '';
  const acquire = spec.acquireTime instanceof Date ? microTime(spec.acquireTime.getTime()) : spec.acquireTime;
  return {
    holder,
    instance: typeof instance === 'string' ? instance : '',
    ...(durationSeconds !== undefined && { durationSeconds }),
    transitions,
    ...(typeof acquire === 'string' && { acquireTime: acquire }),
    released: holder === '' && instance === LEASE_RELEASED,
    problems,
  };
}

/**
 * What identifies one version of a Lease's record, to notice when it changes: the holder's fields
 * and the annotations, not the resourceVersion (a change of labels alone is not a renewal).
 */
export function leaseFingerprint(lease: Lease | undefined): string {
  if (!lease) return '';
  const s = lease.spec ?? {};
  const time = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
  return JSON.stringify([
    s.holderIdentity,
    s.leaseDurationSeconds,
    time(s.acquireTime),
    time(s.renewTime),
    s.leaseTransitions,
    lease.metadata?.annotations ?? null,
  ]);
}

/** `namespace/name` of a Lease. */
export function leaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * The rules of leader election on a Lease, as client-go's `tools/leaderelection` has them, as pure
 * functions: options and their defaults, what was observed of the Lease and when, whether it is
 * held by another, and the Lease to write to acquire, renew or release it.
 *
 * Expiry is judged by the local monotonic time at which the holder's record was last observed changing,
 * never by comparing the record's times with a local clock.
 */
import { InvalidOptionsError, RxInformerError } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';
import {
  LEASE_INSTANCE_ANNOTATION,
  LEASE_RELEASED,
  leaseFingerprint,
  leaseRecord,
  microTime,
  nextMicroTime,
  type Lease,
  type LeaseRecord,
} from './lease.ts';

/** The timing of an election, in milliseconds. */
export interface LeaseTiming {
  /**
   * How long others wait, from when they saw the record change, before taking the Lease (whole
   * seconds, > 0, at most 2³¹−1 ms: it rides one timer, so a longer one is refused with
   * `InvalidOptionsError`, as are NaN and Infinity). Default 15,000.
   */
  leaseDurationMs: number;
  /** How long the leader keeps leading without a successful renewal (< leaseDurationMs). Default 10,000. */
  renewDeadlineMs: number;
  /** Time between attempts (> 0; renewDeadlineMs > retryPeriodMs and > jitter × retryPeriodMs; retryPeriodMs × (1 + jitter) at most 2³¹−1 ms). Default 2,000. */
  retryPeriodMs: number;
  /** A candidate waits retryPeriodMs × (1 + random × jitter) between attempts. Default 1.2. */
  jitter: number;
}

/** client-go's defaults (those of kube-controller-manager). */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, jitter: 1.2 };

/** The timing with defaults filled in; `InvalidOptionsError` when the rules cannot hold. */
export function resolveLeaseTiming(options: Partial<LeaseTiming>, who = 'leaderElection'): LeaseTiming {
  const t = { ...DEFAULT_LEASE_TIMING, ...definedOnly(options) };
  // Each rides one timer (a longer one would fire at once): refused, not split.
  for (const k of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const)
    checkDuration(`${who}: ${k}`, t[k], 0, { exclusive: true, max: 'timer' });
  checkDuration(`${who}: jitter`, t.jitter, 0);
  checkDuration(`${who}: retryPeriodMs × (1 + jitter)`, t.retryPeriodMs * (1 + t.jitter), 0, { max: 'timer' });
  if (t.leaseDurationMs % 1000 !== 0)
    throw new InvalidOptionsError(`${who}: leaseDurationMs must be whole seconds (a Lease counts in seconds)`);
  if (t.leaseDurationMs <= t.renewDeadlineMs)
    throw new InvalidOptionsError(
      `${who}: leaseDurationMs (${t.leaseDurationMs}) must be greater than renewDeadlineMs (${t.renewDeadlineMs})`,
    );
  if (t.renewDeadlineMs <= t.jitter * t.retryPeriodMs)
    throw new InvalidOptionsError(
      `${who}: renewDeadlineMs (${t.renewDeadlineMs}) must be greater than jitter × retryPeriodMs (${t.jitter * t.retryPeriodMs})`,
    );
  if (t.renewDeadlineMs <= t.retryPeriodMs)
    throw new InvalidOptionsError(
      `${who}: renewDeadlineMs (${t.renewDeadlineMs}) must be greater than retryPeriodMs (${t.retryPeriodMs}): the leader renews every retryPeriodMs`,
    );
  return t;
}

/** Who we are: the identity others see, and the random token of this process. */
export interface Candidate {
  /** The holder identity written in the Lease. */
  readonly identity: string;
  /** A token of this candidate alone, so two processes given one identity are told apart. */
  readonly instance: string;
}

/** What a candidate has seen of the Lease. */
export interface Observed {
  /** The Lease as last read or written (with its resourceVersion). */
  readonly lease: Lease;
  /** Its record. */
  readonly record: LeaseRecord;
  /** `leaseFingerprint` of it. */
  readonly fingerprint: string;
  /** Scheduler time (monotonic by default, never the wall clock) at which the record was last seen changing. */
  readonly observedAt: number;
}

/** Notes what was read at `now`: the observation time moves only when the record changed. */
export function observe(previous: Observed | undefined, lease: Lease, now: number): Observed {
  const fingerprint = leaseFingerprint(lease);
  const observedAt = previous && previous.fingerprint === fingerprint ? previous.observedAt : now;
  return { lease, record: leaseRecord(lease), fingerprint, observedAt };
}

/** True when the observed record names this very candidate (identity and process) as holder. */
export function holdsIt(observed: Observed | undefined, me: Candidate): boolean {
  return !!observed && observed.record.holder === me.identity && observed.record.instance === me.instance;
}

/**
 * True while another holds the Lease: a holder is named, the Lease was not released, and less than
 * the lease duration has passed since the record was seen changing. The duration is the longer of
 * the Lease's and our own: a Lease edited to a shorter, negative or missing duration never lets us
 * take it sooner than our own duration allows.
 */
export function heldByAnother(observed: Observed, me: Candidate, now: number, timing: LeaseTiming): boolean {
  const r = observed.record;
  if (holdsIt(observed, me)) return false;
  if (r.holder === '' && r.released) return false;
  return unexpired(observed, now, timing);
}

/**
 * True while less than the lease duration has passed since the record was seen changing: the
 * longer of the Lease's duration and ours, so an edited Lease never expires sooner than ours would.
 */
export function unexpired(observed: Observed, now: number, timing: LeaseTiming): boolean {
  const durationMs = Math.max((observed.record.durationSeconds ?? 0) * 1000, timing.leaseDurationMs);
  return observed.observedAt + durationMs > now;
}

/** True when the Lease names our identity with another process's token: the identity is reused. */
export function identityReused(observed: Observed | undefined, me: Candidate): boolean {
  return (
    !!observed && observed.record.holder === me.identity && observed.record.instance !== me.instance && observed.record.instance !== ''
  );
}

/** What to stamp on a Lease we write, beyond the holder's fields. */
export interface LeaseExtras {
  /** Labels set on the Lease (say, a ring's name). */
  readonly labels?: Record<string, string>;
  /** Annotations set on the Lease (say, the slots a shard member holds). */
  readonly annotations?: Record<string, string>;
}

/**
 * The Lease to write to acquire or renew: renewing keeps acquireTime and transitions; acquiring
 * counts one more transition. `base` is the Lease read (with the resourceVersion to condition the
 * write on), or undefined to create one.
 */
export function claimLease(
  where: { namespace: string; name: string },
  base: Observed | undefined,
  me: Candidate,
  wallTime: number,
  timing: LeaseTiming,
  extras: LeaseExtras = {},
): Lease {
  const renewing = holdsIt(base, me);
  const stamp = nextMicroTime(base?.lease.spec?.renewTime, wallTime);
  const metadata = base?.lease.metadata ?? {};
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      ...metadata,
      name: where.name,
      namespace: where.namespace,
      labels: { ...metadata.labels, ...extras.labels },
      annotations: { ...metadata.annotations, ...extras.annotations, [LEASE_INSTANCE_ANNOTATION]: me.instance },
    },
    spec: {
      holderIdentity: me.identity,
      leaseDurationSeconds: timing.leaseDurationMs / 1000,
      acquireTime: renewing ? (base!.record.acquireTime ?? stamp) : stamp,
      renewTime: stamp,
      leaseTransitions: base === undefined ? 0 : base.record.transitions + (renewing ? 0 : 1),
    },
  };
}

/** The Lease to write to release it: no holder, marked released, so a successor need not wait. */
export function releaseLease(observed: Observed, wallTime: number): Lease {
  const metadata = observed.lease.metadata ?? {};
  return {
    ...observed.lease,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [LEASE_INSTANCE_ANNOTATION]: LEASE_RELEASED } },
    spec: {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: microTime(wallTime),
      renewTime: microTime(wallTime),
      leaseTransitions: observed.record.transitions,
    },
  };
}

/**
 * Two processes hold one identity: this candidate found the Lease held under its identity by
 * another process. It does not take the Lease (there is never a second leader); it waits as any
 * follower, and reports this error.
 */
export class DuplicateIdentityError extends RxInformerError {
  /** Always `DuplicateIdentityError`: set as a string, so it survives minification. */
  override readonly name: string = 'DuplicateIdentityError';
  /** The identity in use twice. */
  readonly identity: string;

  constructor(identity: string, lease: string) {
    super(
      'DuplicateIdentity',
      `Lease ${lease} is held under identity "${identity}" by another process: give each candidate its own identity`,
    );
    this.identity = identity;
  }
}

/**
 * A token of this process: a random UUID from Web Crypto where there is one (browsers, Node), else
 * from `Math.random`. Never from a test's seeded random, which two candidates could share.
 */
export function randomToken(): string {
  const uuid = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto?.randomUUID?.();
  if (uuid) return uuid.replaceAll('-', '');
  let s = '';
  for (let i = 0; i < 8; i++)
    s += Math.floor(Math.random() * 0x10000)
      .toString(16)
      .padStart(4, '0');
  return s;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

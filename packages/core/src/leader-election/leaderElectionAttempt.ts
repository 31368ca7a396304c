/**
 * One attempt to acquire or renew a Lease (client-go's `tryAcquireOrRenew`), as a cold Observable:
 * the fast path (we hold it: update the Lease we last saw), else read it, create it when it does not
 * exist, leave it while another holds it, and write it conditioned on the resourceVersion read. A
 * 409 is a lost race: the attempt fails.
 */
import { catchError, defer, map, of, switchMap, take, throwError, throwIfEmpty, timeout, type Observable, type SchedulerLike } from 'rxjs';
import { InvalidObjectError, RequestTimeoutError } from '../errors.ts';
import { leaseKey, InvalidLeaseError, type Lease } from './lease.ts';
import { leasesPath, type LeaseClient } from './leaseClient.ts';
import {
  DuplicateIdentityError,
  claimLease,
  heldByAnother,
  holdsIt,
  identityReused,
  observe,
  type Candidate,
  type LeaseExtras,
  type LeaseTiming,
  type Observed,
} from './leaderElectionRules.ts';

/** What an election keeps between attempts. */
export interface ElectionContext {
  readonly client: LeaseClient;
  readonly namespace: string;
  readonly name: string;
  readonly me: Candidate;
  readonly timing: LeaseTiming;
  /** Decides: its `now()` (monotonic) for observation times and deadlines; its timers. */
  readonly scheduler: SchedulerLike;
  /** The wall clock, for the times written into the Lease only. */
  readonly wallClock: () => number;
  /** Labels and annotations to stamp on every write, asked before each. */
  readonly extras: () => LeaseExtras;
  /** Called with each Lease this candidate wrote with success (acquired or renewed). */
  readonly written?: (lease: Lease) => void;
  /** The Lease as last seen, and when its record last changed. */
  observed?: Observed;
}

/** The outcome of one attempt. */
export interface AttemptResult {
  /** True when this candidate holds the Lease now (written with success). */
  readonly ok: boolean;
  /** Why it failed: an API or network error, a timeout. Undefined when another simply holds it. */
  readonly error?: Error;
  /** Something wrong with the Lease worth telling (a reused identity, a Lease edited to nonsense). */
  readonly warning?: Error;
}

/** Runs one attempt; the times written into the Lease are `wallTime`, the wall clock at its start. */
export function tryAcquireOrRenew(ctx: ElectionContext, wallTime: number): Observable<AttemptResult> {
  const where = { namespace: ctx.namespace, name: ctx.name };
  const wrote = (lease: Lease): AttemptResult => {
    ctx.observed = observe(ctx.observed, lease, ctx.scheduler.now());
    ctx.written?.(lease);
    return { ok: true };
  };
  const slowPath = (): Observable<AttemptResult> =>
    ctx.client.get(ctx.namespace, ctx.name).pipe(
      switchMap((lease) => {
        if (lease === undefined)
          return ctx.client.create(claimLease(where, undefined, ctx.me, wallTime, ctx.timing, ctx.extras())).pipe(map(wrote));
        if (lease === null || typeof lease !== 'object' || typeof lease.metadata?.resourceVersion !== 'string')
          throw new InvalidObjectError('the Lease client read something that is not a Lease with a resourceVersion', lease);
        const seen = observe(ctx.observed, lease, ctx.scheduler.now());
        ctx.observed = seen;
        const warning = leaseWarning(ctx, seen);
        if (heldByAnother(seen, ctx.me, ctx.scheduler.now(), ctx.timing))
          return of<AttemptResult>({ ok: false, ...(warning && { warning }) });
        return ctx.client
          .update(claimLease(where, seen, ctx.me, wallTime, ctx.timing, ctx.extras()))
          .pipe(map((written) => ({ ...wrote(written), ...(warning && { warning }) })));
      }),
    );
  const fastPath = (): Observable<AttemptResult> =>
    ctx.client.update(claimLease(where, ctx.observed, ctx.me, wallTime, ctx.timing, ctx.extras())).pipe(
      map(wrote),
      catchError(() => slowPath()), // a 409 or any failure: read what is there now
    );
  return defer(() => (holdsIt(ctx.observed, ctx.me) ? fastPath() : slowPath())).pipe(
    take(1), // a client that answers twice would fork the loop
    throwIfEmpty(() => new InvalidObjectError('the Lease client completed without an answer', undefined)),
    timeout({
      first: ctx.timing.renewDeadlineMs,
      scheduler: ctx.scheduler,
      with: () =>
        throwError(() => new RequestTimeoutError(`the Lease ${leasesPath(ctx.namespace)}/${ctx.name}`, ctx.timing.renewDeadlineMs)),
    }),
    catchError((error: unknown) => of<AttemptResult>({ ok: false, error: error instanceof Error ? error : new Error(String(error)) })),
  );
}

function leaseWarning(ctx: ElectionContext, seen: Observed): Error | undefined {
  const key = leaseKey(ctx.namespace, ctx.name);
  if (identityReused(seen, ctx.me)) return new DuplicateIdentityError(ctx.me.identity, key);
  if (seen.record.problems.length > 0) return new InvalidLeaseError(key, seen.record.problems);
  return undefined;
}

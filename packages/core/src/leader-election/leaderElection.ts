/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's rules, as an Observable of the
 * candidate's state: following (whom), leading, stopped. Time runs on an RxJS scheduler.
 */
import {
  Observable,
  ReplaySubject,
  type Subscription,
  EMPTY,
  catchError,
  distinctUntilChanged,
  ignoreElements,
  map,
  tap,
  share,
  switchMap,
  timeout,
} from 'rxjs';
import { resolveLeaseClocks, type LeaseClocks } from './clocks.ts';
import { InvalidOptionsError, KubeApiError } from '../errors.ts';
import type { Lease } from './lease.ts';
import type { ApiClient } from '../http/apiClient.ts';
import { leaseClientOf, leasesPath, type LeaseClient } from './leaseClient.ts';
import { pathSegment } from '../pathSegment.ts';
import { tryAcquireOrRenew, type AttemptResult, type ElectionContext } from './leaderElectionAttempt.ts';
import {
  holdsIt,
  observe,
  randomToken,
  releaseLease,
  resolveLeaseTiming,
  type LeaseExtras,
  type Observed,
  type LeaseTiming,
} from './leaderElectionRules.ts';

/**
 * Options of `leaderElection`. Timing fields default to client-go's (see `LeaseTiming`); the clocks
 * (`scheduler`, monotonic, for every decision; `wallClock` for the times written) to `LeaseClocks`'.
 */
export interface LeaderElectionOptions extends Partial<LeaseTiming>, LeaseClocks {
  /**
   * Reads and writes the Lease: the `ApiClient` the process writes everything else through
   * (`kubeApiClient(kc)`, `fetchApiClient(…)`; a manager passes its own), or a `LeaseClient` (a
   * test's fake). Required.
   */
  client: ApiClient | LeaseClient;
  /** The Lease's namespace. Required; one path segment (`InvalidPathSegmentError` for `..`, `a/b`). */
  namespace: string;
  /** The Lease's name. Required; one path segment, as `namespace`. */
  name: string;
  /** This candidate's identity (say, the pod name); unique per process. Required. */
  identity: string;
  /** Labels set on the Lease when this candidate writes it. Default: none. */
  labels?: Record<string, string>;
  /** Annotations set on the Lease at each write, asked before each. Default: none. */
  annotations?: () => Record<string, string>;
  /** Called with each Lease this candidate wrote with success (acquire, renewal), with what it carries. Default: none. */
  onWrite?: (lease: Lease) => void;
  /** Release the Lease (empty holder) when the election stops, so a successor need not wait. Default true. */
  releaseOnStop?: boolean;
  /** Random numbers in [0, 1), for the jitter (others count as 0). Default `Math.random`. */
  random?: () => number;
}

/** The state of a candidate. */
export type LeaderElectionState =
  | {
      /** Another holds the Lease (or nobody could be seen holding it yet). */
      phase: 'following';
      /** The holder seen, when there is one. */
      holder?: string;
      /** True on the state that ends a term: renewals failed until the renew deadline. */
      lost?: boolean;
      /** The last failure of an attempt (network, API, timeout). */
      lastError?: Error;
      /** Something wrong with the Lease: `DuplicateIdentityError`, `InvalidLeaseError`. */
      warning?: Error;
    }
  | {
      /** This candidate holds the Lease. */
      phase: 'leading';
      /** Our identity. */
      identity: string;
      /** Scheduler time (monotonic: not a date, by default) at which the term began. */
      since: number;
    }
  | {
      /** `stop()` ended the election (the Lease released when held). */
      phase: 'stopped';
    };

/** A running election: the state stream (shared, the latest state replayed), with helpers. */
export interface LeaderElection extends Observable<LeaderElectionState> {
  /** `true` while leading, `false` otherwise; distinct values. */
  readonly isLeader$: Observable<boolean>;
  /**
   * Ends the election for good: steps down, releases the Lease when held (and `releaseOnStop`),
   * emits `stopped` and completes. Resolves once the release was answered (or failed).
   */
  stop(): Promise<void>;
}

/**
 * Runs for a Lease with client-go's rules: a candidate tries every `retryPeriodMs` (with jitter)
 * and takes the Lease once its record has not been seen changing for its duration; the leader
 * renews every `retryPeriodMs` and steps down when no renewal succeeded within `renewDeadlineMs`
 * of the start of the last successful one — before others can take the Lease. A 409 on a write is
 * a lost race. The election starts with the first subscriber; when the last unsubscribes, it steps
 * down and releases the Lease.
 *
 * Time: every decision (the deadline, a Lease's expiry) reads the scheduler's `now()`, monotonic by
 * default, so a step of the wall clock (NTP, a resumed VM) neither stretches a term nor cuts another
 * holder's short; the wall clock (`wallClock`) only stamps the Lease's `acquireTime` and `renewTime`.
 *
 * Bad Leases: a missing or nonsensical duration counts as our own; a holder that never renews
 * expires once its record was not seen changing for the duration; the Lease held under our identity
 * by another process is left alone (`DuplicateIdentityError` as `warning`): never two leaders.
 *
 * @example
 * const election = leaderElection({ client: fetchApiClient({ baseUrl }), namespace: 'default', name: 'my-controller', identity: podName });
 * election.isLeader$.subscribe((leading) => console.log(leading ? 'leading' : 'following'));
 * await election.stop(); // on shutdown
 */
export function leaderElection(options: LeaderElectionOptions): LeaderElection {
  const ctx = electionContext(options);
  const random = options.random ?? Math.random;
  const releaseOnStop = options.releaseOnStop ?? true;
  let stopRequested: (() => void) | undefined;
  let stoppedForGood = false;
  let finished: Promise<void> | undefined;
  const runs$ = new Observable<LeaderElectionState>((subscriber) => {
    if (stoppedForGood) {
      subscriber.next({ phase: 'stopped' });
      subscriber.complete();
      return;
    }
    const loop = candidateLoop(ctx, random, (s) => subscriber.next(s));
    stopRequested = () => {
      loop.halt();
      release(ctx, releaseOnStop).subscribe({
        complete: () => {
          subscriber.next({ phase: 'stopped' });
          subscriber.complete();
        },
      });
    };
    return () => {
      stopRequested = undefined;
      if (!stoppedForGood && loop.halt()) release(ctx, releaseOnStop).subscribe();
    };
  });
  const states$ = runs$.pipe(share({ connector: () => new ReplaySubject<LeaderElectionState>(1), resetOnRefCountZero: true }));
  const isLeader$ = states$.pipe(
    map((s) => s.phase === 'leading'),
    distinctUntilChanged(),
  );
  const stop = (): Promise<void> => {
    if (finished) return finished;
    stoppedForGood = true;
    finished = new Promise<void>((resolve) => {
      if (!stopRequested) return resolve();
      const done = states$.subscribe({ complete: () => resolve() });
      stopRequested();
      done.add(() => resolve());
    });
    return finished;
  };
  return Object.assign(states$, { isLeader$, stop });
}

function electionContext(options: LeaderElectionOptions): ElectionContext {
  if (!options || typeof options !== 'object') throw new InvalidOptionsError('leaderElection needs options');
  const { namespace, name, identity } = options;
  const client = leaseClientOf(options.client, 'leaderElection');
  for (const [k, v] of Object.entries({ namespace, name, identity }))
    if (typeof v !== 'string' || v === '') throw new InvalidOptionsError(`leaderElection: ${k} must be a non-empty string`);
  // The Lease's path: checked now, not at the first attempt (InvalidPathSegmentError for `..`).
  leasesPath(namespace);
  pathSegment('name', name);
  const { scheduler, wallClock } = resolveLeaseClocks(options, 'leaderElection');
  for (const k of ['annotations', 'onWrite', 'random'] as const)
    if (options[k] !== undefined && typeof options[k] !== 'function')
      throw new InvalidOptionsError(`leaderElection: ${k} must be a function`);
  const timing = resolveLeaseTiming(options);
  const labels = options.labels;
  const extras = (): LeaseExtras => ({ ...(labels && { labels }), ...(options.annotations && { annotations: options.annotations() }) });
  const me = { identity, instance: randomToken() };
  return {
    client,
    namespace,
    name,
    timing,
    scheduler,
    wallClock,
    extras,
    me,
    ...(options.onWrite && { written: options.onWrite }),
  };
}

/** The attempt loop of one run. `halt()` stops it and says whether it was leading (or holding). */
function candidateLoop(ctx: ElectionContext, random: () => number, emit: (s: LeaderElectionState) => void): { halt(): boolean } {
  const { scheduler, timing } = ctx;
  let halted = false;
  let attempt: Subscription | undefined;
  let next: Subscription | undefined;
  let deadline: Subscription | undefined;
  let leading = false;
  let lastFollowing = '';
  const follow = (state: Extract<LeaderElectionState, { phase: 'following' }>) => {
    const key = JSON.stringify([state.holder, state.lost, state.lastError?.message, state.warning?.message]);
    if (key !== lastFollowing) emit(state);
    lastFollowing = key;
  };
  const schedule = (ms: number) => {
    if (!halted) next = scheduler.schedule(tryNow, Math.max(0, ms));
  };
  const jittered = () => {
    const r = random();
    return timing.retryPeriodMs * (1 + (r > 0 && r < 1 ? r : 0) * timing.jitter); // NaN or 4e9 would make a hot loop
  };
  const lose = () => {
    leading = false;
    attempt?.unsubscribe();
    next?.unsubscribe();
    follow({ phase: 'following', lost: true, ...(ctx.observed?.record.holder && { holder: ctx.observed.record.holder }) });
    schedule(jittered());
  };
  const onResult = (r: AttemptResult, startedAt: number) => {
    const until = startedAt + timing.renewDeadlineMs - scheduler.now();
    if (r.ok && until > 0) {
      deadline?.unsubscribe();
      deadline = scheduler.schedule(lose, until);
      if (!leading) {
        leading = true;
        lastFollowing = '';
        emit({ phase: 'leading', identity: ctx.me.identity, since: startedAt });
      }
      return schedule(timing.retryPeriodMs);
    }
    if (!leading) {
      const holder = ctx.observed?.record.holder;
      follow({
        phase: 'following',
        ...(holder && { holder }),
        ...(r.error && { lastError: r.error }),
        ...(r.warning && { warning: r.warning }),
      });
    }
    schedule(leading ? timing.retryPeriodMs : jittered());
  };
  function tryNow(): void {
    const startedAt = scheduler.now(); // monotonic: the renew deadline runs from here
    attempt = tryAcquireOrRenew(ctx, ctx.wallClock()).subscribe((r) => onResult(r, startedAt));
  }
  tryNow();
  return {
    halt: () => {
      halted = true;
      for (const sub of [next, deadline, attempt]) sub?.unsubscribe();
      const was = leading || holdsIt(ctx.observed, ctx.me);
      leading = false;
      return was;
    },
  };
}

/**
 * Releases the Lease when this candidate holds it (best effort, bounded by the renew deadline);
 * completes once answered. A renewal that `stop()` cut short may have reached the server all the
 * same, leaving the Lease newer than the one observed: on that 409 the Lease is read again and
 * released if it still names this candidate, rather than left for successors to wait out.
 */
function release(ctx: ElectionContext, releaseOnStop: boolean): Observable<never> {
  const observed = ctx.observed;
  if (!releaseOnStop || !observed || !holdsIt(observed, ctx.me)) return EMPTY;
  const write = (from: Observed) => ctx.client.update(releaseLease(from, ctx.wallClock()));
  return write(observed).pipe(
    catchError((e: unknown) => {
      if (!(e instanceof KubeApiError && e.code === 409)) throw e;
      return ctx.client.get(ctx.namespace, ctx.name).pipe(
        switchMap((lease) => {
          const now = lease && observe(observed, lease, ctx.scheduler.now());
          return now && holdsIt(now, ctx.me) ? write(now) : EMPTY;
        }),
      );
    }),
    timeout({ first: ctx.timing.renewDeadlineMs, scheduler: ctx.scheduler }),
    tap((lease) => (ctx.observed = observe(observed, lease, ctx.scheduler.now()))),
    ignoreElements(),
    catchError(() => EMPTY),
  );
}

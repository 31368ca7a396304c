/**
 * A ring of replicas sharing the slots of KEP-5866's hash space. Each replica holds its own Lease
 * (leader election on it, so the same renew-deadline rule applies), labelled with the ring's name;
 * the members are the Leases alive, watched by an informer. Slots go to members by rendezvous
 * hashing. Handover is safe: an owner stops a slot's work and removes it from its Lease before
 * another claims it; a claim counts only once written and confirmed by a consistent read of the
 * ring showing no other live member holding the slot (a flag protocol: of two concurrent claims,
 * at least one sees the other and withdraws). A dead member's slots move once its Lease expires.
 */
import { BehaviorSubject, EMPTY, distinctUntilChanged, from, isObservable, map, type Observable, type SchedulerLike } from 'rxjs';
import { resolveLeaseClocks, type LeaseClocks } from '../leader-election/clocks.ts';
import { InvalidOptionsError } from '../errors.ts';
import { andSelectors } from '../http/httpListerWatcher.ts';
import type { Lease } from '../leader-election/lease.ts';
import type { ApiClient } from '../http/apiClient.ts';
import type { LeaseClient } from '../leader-election/leaseClient.ts';
import { leaderElection, type LeaderElectionState } from '../leader-election/leaderElection.ts';
import { observe, resolveLeaseTiming, type LeaseTiming, type Observed } from '../leader-election/leaderElectionRules.ts';
import { assignSlots } from './shardAssignment.ts';
import { validateSlotCount, type ShardKeyField } from './shardHash.ts';
import {
  SHARD_CONFIG_ANNOTATION,
  SHARD_RING_LABEL,
  SHARD_SLOTS_ANNOTATION,
  ShardRingConflictError,
  encodeSlots,
  memberAlive,
  readMemberAlive,
  slotsOfLease,
} from './shardMembers.ts';
import { createSharedInformer } from '../informer/sharedInformer.ts';
import { decodeListPage } from '../http/watchDecoder.ts';
import { splitMetaNamespaceKey } from '../store/keys.ts';
import { objectOf, type ListerWatcher } from '../types.ts';

/**
 * Options of `startShardRing`. Timing fields default to client-go's leader election (`LeaseTiming`);
 * the clocks (`scheduler`, monotonic, for every decision; `wallClock` for the times written) to `LeaseClocks`'.
 */
export interface ShardRingOptions extends Partial<LeaseTiming>, LeaseClocks {
  /** Writes this member's Lease: the process's `ApiClient` (or a `LeaseClient`, a test's fake). Required. */
  client: ApiClient | LeaseClient;
  /** Lists and watches the Leases of `namespace` (the ring's label selector is added). Required. */
  leases: ListerWatcher<Lease>;
  /** Where the member Leases live. Required. */
  namespace: string;
  /** The ring's name (a DNS label, at most 63 characters): the label value of its Leases, and the prefix of their names. Required. */
  ring: string;
  /** This replica's identity (a DNS label: its Lease is `<ring>-<identity>`), unique per process. Required. */
  identity: string;
  /** What the ring shards, e.g. `configmaps.v1`; members that disagree are a conflict. Default: the ring's name. */
  controller?: string;
  /** Slots of the hash space (a power of two). Default 256. */
  slots?: number;
  /** The field hashed. Default `object.metadata.uid`. */
  field?: ShardKeyField;
  /** Stops the work of slots being handed over; they are released once what it returns settles. Default: none. */
  drain?: (slots: readonly number[]) => Observable<unknown> | PromiseLike<unknown> | void;
  /** Random numbers in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
}

/** What a ring member sees and does. */
export interface ShardRingState {
  /** `joining` until its Lease is held, `member` while it is, `stopped` at the end. */
  phase: 'joining' | 'member' | 'stopped';
  /** The live members' identities, sorted (ours included while a member). */
  members: readonly string[];
  /** The slots this replica may work on now (written in its Lease and confirmed), sorted. */
  active: readonly number[];
  /** The slots whose work is being stopped (`drain`) before they leave its Lease. */
  draining: readonly number[];
  /** The slots written (or to be written) in its Lease. */
  announced: readonly number[];
  /** A problem: `ShardRingConflictError`, or its Lease's (`DuplicateIdentityError`…). */
  warning?: Error;
}

/** A running ring member. */
export interface ShardRing {
  /** The member's state, the latest replayed. */
  readonly state$: Observable<ShardRingState>;
  /** The active slots, on every change. */
  readonly active$: Observable<ReadonlySet<number>>;
  /** The field hashed, as configured. */
  readonly field: ShardKeyField;
  /** The slot count. */
  readonly slots: number;
  /**
   * Leaves: drains every slot — the active ones, and waits for those already being handed over —
   * then releases the Lease (others take the slots at once). Resolves once released.
   */
  stop(): Promise<void>;
}

/**
 * Joins the ring now: holds its member Lease, follows the others, and claims and releases slots.
 *
 * @example
 * const ring = startShardRing({ client, leases: fetchListerWatcher({ baseUrl, path: '/apis/coordination.k8s.io/v1/namespaces/default/leases' }),
 *   namespace: 'default', ring: 'cm-controller', identity: podName, drain: (slots) => controller.drain(slots) });
 * ring.active$.subscribe((slots) => console.log('working on', slots.size, 'slots'));
 */
export function startShardRing(options: ShardRingOptions): ShardRing {
  const member = new RingMember(options, validateRingOptions(options));
  const active$ = member.state.pipe(
    map((s) => s.active),
    distinctUntilChanged((a, b) => a.length === b.length && a.every((x, i) => x === b[i])),
    map((a) => new Set(a) as ReadonlySet<number>),
  );
  return { state$: member.state.asObservable(), active$, field: member.field, slots: member.slotCount, stop: () => member.stop() };
}

type Resolved = ReturnType<typeof validateRingOptions>;

/** One replica's membership: its Lease, its view of the others, and its slots. */
class RingMember {
  readonly state: BehaviorSubject<ShardRingState>;
  readonly field: ShardKeyField;
  readonly slotCount: number;
  readonly #o: ShardRingOptions;
  readonly #timing: LeaseTiming;
  readonly #scheduler: SchedulerLike;
  readonly #wallClock: () => number;
  readonly #leaseName: string;
  readonly #config: string;
  readonly #ringLw: ListerWatcher<Lease>;
  /** Member Leases by name, with when each was last seen changing. */
  readonly #seen = new Map<string, Observed>();
  /** Slots written, or to be written, in our Lease. */
  readonly #announced = new Set<number>();
  /** Slots we may work on: written, confirmed, and not being handed over. */
  readonly #active = new Set<number>();
  /** Slots whose work is being stopped before they leave our Lease. */
  readonly #draining = new Set<number>();
  /** Run once no slot is draining any more (`stop()` waits for them before it lets the Lease go). */
  readonly #whenDrained: (() => void)[] = [];
  #confirmed: number[] = [];
  #phase: ShardRingState['phase'] = 'joining';
  #members: string[] = [];
  #warning: Error | undefined;
  #leaseWarning: Error | undefined;
  #verifying = false;
  #stopping: Promise<void> | undefined;
  readonly #election: ReturnType<typeof leaderElection>;
  readonly #subs: { unsubscribe(): void }[] = [];
  readonly #informer: ReturnType<typeof createSharedInformer<Lease>>;

  constructor(options: ShardRingOptions, resolved: Resolved) {
    this.#o = options;
    this.#timing = resolved.timing;
    this.#scheduler = resolved.scheduler;
    this.#wallClock = resolved.wallClock;
    this.field = resolved.field;
    this.slotCount = resolved.slotCount;
    this.#leaseName = `${options.ring}-${options.identity}`;
    this.#config = `${options.controller ?? options.ring}/${this.slotCount}/${this.field}`;
    this.state = new BehaviorSubject<ShardRingState>({ phase: 'joining', members: [], active: [], draining: [], announced: [] });
    const selector = `${SHARD_RING_LABEL}=${options.ring}`;
    this.#ringLw = {
      list: (lo) => options.leases.list({ ...lo, labelSelector: andSelectors(selector, lo.labelSelector) }),
      watch: (wo) => options.leases.watch({ ...wo, labelSelector: andSelectors(selector, wo.labelSelector) }),
      watchList: options.leases.watchList,
    };
    this.#informer = createSharedInformer(this.#ringLw, { scheduler: this.#scheduler });
    this.#election = this.#elect();
    this.#subs.push(
      this.#election.subscribe((s) => this.#onElection(s)),
      this.#informer.events$.subscribe((d) => {
        const name = objectOf(d)?.metadata?.name ?? splitMetaNamespaceKey(d.key).name;
        if (d.type === 'Deleted') this.#seen.delete(name);
        else if (name !== this.#leaseName) this.#seen.set(name, observe(this.#seen.get(name), d.object, this.#scheduler.now()));
        this.#tick();
      }),
    );
    this.#informer.start();
  }

  #elect() {
    const o = this.#o;
    return leaderElection({
      client: o.client,
      namespace: o.namespace,
      name: this.#leaseName,
      identity: o.identity,
      labels: { [SHARD_RING_LABEL]: o.ring },
      annotations: () => ({ [SHARD_SLOTS_ANNOTATION]: encodeSlots(this.#announced), [SHARD_CONFIG_ANNOTATION]: this.#config }),
      onWrite: (lease) => {
        this.#confirmed = slotsOfLease(lease, this.slotCount);
        this.#seen.set(this.#leaseName, observe(this.#seen.get(this.#leaseName), lease, this.#scheduler.now()));
        this.#scheduler.schedule(() => {
          this.#tick();
          this.#verify();
        });
      },
      ...this.#timing,
      scheduler: this.#scheduler,
      wallClock: this.#wallClock,
      ...(o.random && { random: o.random }),
    });
  }

  #onElection(s: LeaderElectionState): void {
    this.#leaseWarning = s.phase === 'following' ? s.warning : undefined;
    if (s.phase === 'stopped') return this.#finish();
    if (this.#phase === 'stopped') return;
    if (s.phase === 'leading') this.#phase = 'member';
    else if (this.#phase === 'member') {
      // Our Lease is lost (renewals failed until the deadline): all work stops now, before it can expire for others.
      this.#phase = 'joining';
      if (this.#active.size > 0) this.#drain([...this.#active], () => undefined);
    }
    this.#tick();
  }

  #emit(): void {
    if (this.state.closed) return;
    const sorted = (s: Iterable<number>) => [...s].sort((a, b) => a - b);
    const w = this.#warning ?? this.#leaseWarning;
    this.state.next({
      phase: this.#phase,
      members: this.#members,
      active: sorted(this.#active),
      draining: sorted(this.#draining),
      announced: sorted(this.#announced),
      ...(w && { warning: w }),
    });
  }

  /** Stops the work of `slots` (the `drain` option), then runs `then`. */
  #drain(slots: number[], then: () => void): void {
    for (const s of slots) {
      this.#active.delete(s);
      this.#draining.add(s);
    }
    const done = () => {
      for (const s of slots) this.#draining.delete(s);
      then();
      if (this.#draining.size === 0) for (const wake of this.#whenDrained.splice(0)) wake();
    };
    let answer: ReturnType<NonNullable<ShardRingOptions['drain']>>;
    try {
      answer = this.#o.drain?.(slots);
    } catch {
      answer = undefined;
    }
    const settle = isObservable(answer) ? answer : answer && typeof answer.then === 'function' ? from(answer) : EMPTY;
    settle.subscribe({ error: done, complete: done });
  }

  /** Live members, conflicts, the assignment: hands over slots no longer ours, claims free ones that are. */
  #tick(): void {
    if (this.#phase === 'stopped') return;
    const now = this.#scheduler.now();
    const others = [...this.#seen.entries()].filter(([name, obs]) => name !== this.#leaseName && memberAlive(obs, now, this.#timing));
    const configOf = (obs: Observed) => obs.lease.metadata?.annotations?.[SHARD_CONFIG_ANNOTATION] ?? this.#config;
    const clash = others.find(([, obs]) => configOf(obs) !== this.#config);
    this.#warning = clash && new ShardRingConflictError(this.#o.ring, this.#config, configOf(clash[1]), clash[1].record.holder);
    const me = this.#phase === 'member' ? [this.#o.identity] : [];
    this.#members = [...new Set([...others.map(([, obs]) => obs.record.holder), ...me])].sort();
    const owners = me.length > 0 && !clash ? assignSlots(this.slotCount, this.#members) : [];
    const desired = new Set(owners.flatMap((m, s) => (m === this.#o.identity ? [s] : [])));
    const leaving = [...this.#active].filter((s) => !desired.has(s));
    if (leaving.length > 0)
      this.#drain(leaving, () => {
        for (const s of leaving) if (!this.#active.has(s)) this.#announced.delete(s);
        this.#tick();
      });
    for (const s of [...this.#announced]) if (!desired.has(s) && !this.#active.has(s) && !this.#draining.has(s)) this.#announced.delete(s);
    const taken = new Set(others.flatMap(([, obs]) => slotsOfLease(obs.lease, this.slotCount)));
    for (const s of desired) if (!this.#announced.has(s) && !taken.has(s)) this.#announced.add(s);
    this.#emit();
  }

  /** After a write of our Lease: confirms the claims it carried against a consistent read of the ring. */
  #verify(): void {
    const claims = this.#confirmed.filter((s) => this.#announced.has(s) && !this.#active.has(s) && !this.#draining.has(s));
    if (this.#verifying || claims.length === 0 || this.#phase !== 'member') return;
    this.#verifying = true;
    this.#ringLw
      .list({})
      .pipe(map(decodeListPage)) // a ListerWatcher's page with a null item would throw in the handler below
      .subscribe({
        next: (page) => {
          const now = this.#scheduler.now();
          const held = new Set<number>();
          for (const lease of page.items ?? []) {
            const name = lease.metadata?.name ?? '';
            if (name !== this.#leaseName && readMemberAlive(lease, this.#seen.get(name), now, this.#timing))
              for (const s of slotsOfLease(lease, this.slotCount)) held.add(s);
          }
          if (this.#phase !== 'member') return;
          for (const s of claims) {
            if (!this.#announced.has(s) || this.#draining.has(s)) continue;
            if (held.has(s))
              this.#announced.delete(s); // another claimed it too: withdraw, try again later
            else this.#active.add(s);
          }
        },
        error: () => (this.#verifying = false),
        complete: () => {
          this.#verifying = false;
          this.#emit();
        },
      });
  }

  /** The election ended (our Lease released): nothing is left running. */
  #finish(): void {
    for (const sub of this.#subs) sub.unsubscribe();
    this.#informer.shutdown();
    this.#emit();
    this.state.complete();
    this.#stopped();
  }

  #stopped: () => void = () => undefined;

  /** Drains the active slots, waits for those already draining (a handover), then releases the Lease. */
  stop(): Promise<void> {
    this.#stopping ??= new Promise<void>((resolve) => {
      this.#stopped = resolve;
      const leave = () => {
        this.#announced.clear();
        void this.#election.stop();
      };
      this.#phase = 'stopped';
      this.#members = [];
      if (this.#active.size > 0) this.#drain([...this.#active], () => undefined);
      if (this.#draining.size === 0) leave();
      else this.#whenDrained.push(leave);
    });
    return this.#stopping;
  }
}

function validateRingOptions(options: ShardRingOptions) {
  if (!options || typeof options !== 'object') throw new InvalidOptionsError('startShardRing needs options');
  const l = options.leases;
  if (!l || typeof l.list !== 'function' || typeof l.watch !== 'function')
    throw new InvalidOptionsError('startShardRing: leases must be a ListerWatcher');
  for (const k of ['ring', 'identity'] as const)
    if (typeof options[k] !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(options[k]))
      throw new InvalidOptionsError(
        `startShardRing: ${k} must be a DNS label (lower case letters, digits, '-'), got ${JSON.stringify(options[k])}`,
      );
  if (options.ring.length > 63)
    throw new InvalidOptionsError(`startShardRing: ring is the value of a label: at most 63 characters, got ${options.ring.length}`);
  if (options.ring.length + options.identity.length + 1 > 253)
    throw new InvalidOptionsError('startShardRing: ring and identity make too long a Lease name');
  const field = options.field ?? 'object.metadata.uid';
  if (field !== 'object.metadata.uid' && field !== 'object.metadata.namespace')
    throw new InvalidOptionsError(`startShardRing: field must be object.metadata.uid or object.metadata.namespace, got ${String(field)}`);
  if (options.drain !== undefined && typeof options.drain !== 'function')
    throw new InvalidOptionsError('startShardRing: drain must be a function');
  const timing = resolveLeaseTiming(options, 'startShardRing');
  return {
    timing,
    field,
    slotCount: validateSlotCount(options.slots ?? 256, 'startShardRing'),
    ...resolveLeaseClocks(options, 'startShardRing'),
  };
}

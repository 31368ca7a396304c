/**
 * An in-memory Lease API in virtual time, for leader election tests: get, create and conditional
 * update with a latency on a scheduler, per-client failures, hand edits, and a log of who held
 * each Lease from when.
 */
import { Observable, Subject, type SchedulerLike } from 'rxjs';
import { KubeApiError, type ListerWatcher, type ListPage, type WatchEvent } from '@rxinformer/core';
import { type Lease, type LeaseClient } from '@rxinformer/core/leader-election';

/** One write the server accepted. */
export interface LeaseWrite {
  readonly at: number;
  readonly key: string;
  readonly holder: string;
  readonly by: string;
}

/** Leases in memory: clients per candidate, failures per client, hand edits, and the log of writes. */
export class FakeLeaseServer {
  readonly leases = new Map<string, Lease>();
  readonly writes: LeaseWrite[] = [];
  #rv = 0;
  readonly #changes = new Subject<{ rv: number; event: WatchEvent<Lease> }>();
  readonly #history: { rv: number; event: WatchEvent<Lease> }[] = [];
  /** Client names whose writes (`update`) fail with 500, or every request with `all`. */
  readonly failing = new Map<string, 'writes' | 'all'>();

  readonly scheduler: SchedulerLike;
  readonly latencyMs: number;

  constructor(scheduler: SchedulerLike, latencyMs = 5) {
    this.scheduler = scheduler;
    this.latencyMs = latencyMs;
  }

  /** A client for `name` (its failures can be switched on with `failing`). */
  client(name: string, latencyMs = this.latencyMs): LeaseClient {
    const answer = <T>(verb: 'get' | 'write', fn: () => T) =>
      new Observable<T>((sub) => {
        const action = this.scheduler.schedule(() => {
          const f = this.failing.get(name);
          if (f === 'all' || (f === 'writes' && verb === 'write')) return sub.error(new KubeApiError(500, { message: 'injected' }));
          try {
            sub.next(fn());
            sub.complete();
          } catch (e) {
            sub.error(e);
          }
        }, latencyMs);
        return () => action.unsubscribe();
      });
    return {
      get: (ns, n) => answer('get', () => this.leases.get(`${ns}/${n}`)),
      create: (lease) => answer('write', () => this.create(lease, name)),
      update: (lease) => answer('write', () => this.update(lease, name)),
    };
  }

  /** Creates a Lease (409 when it exists), as `by`. */
  create(lease: Lease, by = 'hand'): Lease {
    const key = `${lease.metadata!.namespace}/${lease.metadata!.name}`;
    if (this.leases.has(key)) throw new KubeApiError(409, { reason: 'AlreadyExists' });
    return this.#store(key, lease, by);
  }

  /** Replaces a Lease on its resourceVersion (409 when stale), as `by`. */
  update(lease: Lease, by = 'hand'): Lease {
    const key = `${lease.metadata!.namespace}/${lease.metadata!.name}`;
    const current = this.leases.get(key);
    if (!current) throw new KubeApiError(404);
    if (lease.metadata?.resourceVersion !== undefined && lease.metadata.resourceVersion !== current.metadata!.resourceVersion)
      throw new KubeApiError(409, { reason: 'Conflict' });
    return this.#store(key, lease, by);
  }

  /** Replaces a Lease's spec as `kubectl edit` would. */
  edit(key: string, spec: Lease['spec'], annotations?: Record<string, string>): void {
    const current = this.leases.get(key)!;
    this.#store(key, { ...current, metadata: { ...current.metadata, ...(annotations && { annotations }) }, spec }, 'hand');
  }

  /**
   * A ListerWatcher of the Leases (label selectors `k=v` only), answering after `latencyMs`; the
   * client `name` fails like the others when `failing` says `all`.
   */
  listerWatcher(name: string, latencyMs = this.latencyMs): ListerWatcher<Lease> {
    const matches = (l: Lease, selector?: string) =>
      (selector ?? '').split(',').every((req) => {
        if (req === '') return true;
        const [k, v] = req.split('=');
        return l.metadata?.labels?.[k] === v;
      });
    return {
      list: (o) =>
        new Observable<ListPage<Lease>>((sub) => {
          const action = this.scheduler.schedule(() => {
            if (this.failing.get(name) === 'all') return sub.error(new KubeApiError(500, { message: 'injected' }));
            const items = [...this.leases.values()].filter((l) => matches(l, o.labelSelector)).map((l) => structuredClone(l));
            sub.next({ items, metadata: { resourceVersion: String(this.#rv) } });
            sub.complete();
          }, latencyMs);
          return () => action.unsubscribe();
        }),
      watch: (o) =>
        new Observable<WatchEvent<Lease>>((sub) => {
          const from = Number(o.resourceVersion ?? this.#rv);
          const send = (c: { rv: number; event: WatchEvent<Lease> }) => {
            if (c.rv > from && (c.event.type === 'ERROR' || matches(c.event.object, o.labelSelector))) sub.next(structuredClone(c.event));
          };
          for (const c of this.#history) send(c);
          const live = this.#changes.subscribe(send);
          return () => live.unsubscribe();
        }),
    };
  }

  #store(key: string, lease: Lease, by: string): Lease {
    const existed = this.leases.has(key);
    const rv = ++this.#rv;
    const stored = structuredClone({ ...lease, metadata: { ...lease.metadata, resourceVersion: String(rv) } });
    this.leases.set(key, stored);
    const change = { rv, event: { type: existed ? 'MODIFIED' : 'ADDED', object: stored } as WatchEvent<Lease> };
    this.#history.push(change);
    this.#changes.next(change);
    this.writes.push({ at: this.scheduler.now(), key, holder: stored.spec?.holderIdentity ?? '', by });
    return structuredClone(stored);
  }
}

/** Intervals [from, to) in which each candidate said it was leading, from its states. */
export class TermLog {
  readonly terms: { who: string; from: number; to?: number }[] = [];

  readonly scheduler: SchedulerLike;

  constructor(scheduler: SchedulerLike) {
    this.scheduler = scheduler;
  }

  /** Notes whether `who` leads now. */
  record(who: string, leading: boolean): void {
    const open = this.terms.find((t) => t.who === who && t.to === undefined);
    if (leading && !open) this.terms.push({ who, from: this.scheduler.now() });
    if (!leading && open) open.to = this.scheduler.now();
  }

  /** Pairs of terms of different candidates that overlap in time. */
  overlaps(end = Infinity): string[] {
    const out: string[] = [];
    for (const a of this.terms)
      for (const b of this.terms)
        if (a !== b && a.who < b.who && a.from < (b.to ?? end) && b.from < (a.to ?? end))
          out.push(`${a.who}@${a.from}-${a.to} ${b.who}@${b.from}-${b.to}`);
    return out;
  }
}

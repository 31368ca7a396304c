/**
 * What the metrics and the probes know of an informer, followed on its `status$` (a few emissions
 * per list or failure, none per watch event) and read on demand (store size, resource version):
 * no cost per event.
 */
import { isObservable, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { InvalidOptionsError, KubeApiError, RxInformerError, type ReflectorPhase, type ReflectorStatus } from '@rxinformer/core';

/** What is read of an informer: every `SharedInformer` has it. */
export interface ObservedInformer {
  /** The reflector's condition. */
  readonly status$: Observable<ReflectorStatus>;
  /** The resource version of the last list, event or bookmark applied. */
  readonly lastSyncResourceVersion: string | undefined;
  /** True once the first complete list has been applied. */
  hasSynced(): boolean;
  /** The cache now (its size is read). */
  getStore(): {
    /** Objects cached. */
    readonly size: number;
  };
}

/** The condition of an informer as the probes judge it. */
export interface InformerHealth {
  /** The reflector's phase. */
  phase: ReflectorPhase;
  /** True once synced. */
  synced: boolean;
  /** Ms since a list or watch started failing with no progress since; undefined when not failing. */
  failingForMs?: number;
  /** Ms since the resource version last moved (list, event or bookmark); undefined before the first list. */
  silentForMs?: number;
  /** The last failure reported, if any. */
  lastError?: Error;
}

/** The reasons a Kubernetes Status may give (apimachinery's `StatusReason`). */
const STATUS_REASONS = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/**
 * The stable reason of an error, for the `reason` label: an rxinformer error's `reason`, else its
 * class name. The server writes an API error's reason: one that is not a Kubernetes `StatusReason`
 * gives way to its code's, so a server cannot make a series per answer.
 */
export function reasonOf(error: Error): string {
  if (error instanceof KubeApiError && !STATUS_REASONS.has(error.reason)) return new KubeApiError(error.code).reason;
  return error instanceof RxInformerError ? error.reason : error.name || 'Error';
}

/** True for the phases of a watch session: waiting for the watch to open, or open. */
const inWatch = (phase: ReflectorPhase): boolean => phase === 'connecting' || phase === 'watching';

/** Follows one informer. */
export class InformerTracker {
  /** Lists started (first list and relists). */
  lists = 0;
  /** Watch sessions started (after a list or a failure; not a re-watch after a clean close). */
  watches = 0;
  /** Relists, from the status. */
  relists = 0;
  /** Failures reported, by reason. */
  readonly errors = new Map<string, number>();
  /** Ms from the first list's start to the first sync; undefined until then (or when followed only after it started). */
  initialSyncMs: number | undefined;
  #status: ReflectorStatus | undefined;
  #listStartedAt: number | undefined;
  #rv: string | undefined;
  #rvAt: number | undefined;
  #failingSince: number | undefined;
  readonly #sub: Subscription;
  /** The informer followed. */
  readonly informer: ObservedInformer;
  /** Its clock. */
  readonly scheduler: SchedulerLike;

  /** Throws `InvalidOptionsError` unless `informer` can be followed (a shared informer). */
  static check(informer: ObservedInformer, who: string): void {
    if (informer === null || typeof informer !== 'object' || !isObservable(informer.status$) || typeof informer.hasSynced !== 'function')
      throw new InvalidOptionsError(`${who} needs a shared informer (status$, hasSynced)`);
  }

  constructor(informer: ObservedInformer, scheduler: SchedulerLike) {
    this.informer = informer;
    this.scheduler = scheduler;
    this.#sub = informer.status$.subscribe((s) => this.#onStatus(s));
  }

  /** Stops following. */
  close(): void {
    this.#sub.unsubscribe();
  }

  /** Ms since the resource version last moved (scheduler time); undefined before the first list. */
  lastSyncAgeMs(): number | undefined {
    this.#pollProgress();
    return this.#rvAt === undefined ? undefined : this.scheduler.now() - this.#rvAt;
  }

  /** The informer's condition now. */
  health(): InformerHealth {
    const silentForMs = this.lastSyncAgeMs();
    const now = this.scheduler.now();
    const s = this.#status;
    return {
      phase: s?.phase ?? 'stopped',
      synced: this.informer.hasSynced(),
      ...(this.#failingSince !== undefined && { failingForMs: now - this.#failingSince }),
      ...(silentForMs !== undefined && { silentForMs }),
      ...(s?.lastError !== undefined && { lastError: s.lastError }),
    };
  }

  #onStatus(s: ReflectorStatus): void {
    const now = this.scheduler.now();
    const before = this.#status;
    this.#status = s;
    const newList =
      s.phase === 'listing' &&
      (before === undefined ||
        before.phase !== 'listing' ||
        s.relistCount !== before.relistCount ||
        (s.listProgress?.pages === 0 && (before.listProgress?.pages ?? 0) > 0));
    // A status seen first mid-list (followed after start) does not count that list nor time it.
    if (newList && before !== undefined) {
      this.lists++;
      if (this.#listStartedAt === undefined && !s.hasSynced) this.#listStartedAt = now;
    }
    // A session: `connecting` then `watching`, and back through `connecting` on each re-watch.
    if (before !== undefined && inWatch(s.phase) && !inWatch(before.phase)) this.watches++;
    this.relists = s.relistCount;
    if (s.lastError !== undefined && s.lastError !== before?.lastError) {
      const reason = reasonOf(s.lastError);
      this.errors.set(reason, (this.errors.get(reason) ?? 0) + 1);
    }
    if (s.hasSynced && this.initialSyncMs === undefined && this.#listStartedAt !== undefined)
      this.initialSyncMs = now - this.#listStartedAt;
    if (s.lastSyncResourceVersion !== undefined && s.lastSyncResourceVersion !== this.#rv) this.#progressed(s.lastSyncResourceVersion, now);
    if (s.phase === 'backingOff') this.#failingSince ??= now;
    else if (s.phase === 'watching' && s.lastError === undefined) this.#failingSince = undefined;
  }

  /** The informer's resource version follows every event: a change since the last look is progress. */
  #pollProgress(): void {
    const rv = this.informer.lastSyncResourceVersion;
    if (rv !== undefined && rv !== this.#rv) this.#progressed(rv, this.scheduler.now());
  }

  #progressed(rv: string, now: number): void {
    this.#rv = rv;
    this.#rvAt = now;
    this.#failingSince = undefined;
  }
}

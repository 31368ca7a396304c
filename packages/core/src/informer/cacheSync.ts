/**
 * The factory's `waitForCacheSync`: resolves once every informer of the factory has synced, and
 * speaks up instead of waiting forever: a factory never started or with no informer refuses at
 * once, and a time limit or an abort names every informer not synced, with what it is doing and
 * its last error.
 */
import {
  filter,
  firstValueFrom,
  fromEvent,
  map,
  merge,
  mergeMap,
  race,
  Subject,
  take,
  throwError,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { InvalidOptionsError, RxInformerError, withCause } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';
import { timerAfter } from '../time/longTimer.ts';
import type { SharedInformer } from './sharedInformer.ts';
import type { InformerScope, KubeObject, ReflectorPhase, ResourceDescriptor } from '../types.ts';

/** Options of `waitForCacheSync`. */
export interface CacheSyncOptions {
  /**
   * Give up after this many ms (on the factory's scheduler), rejecting with `CacheSyncTimeoutError`:
   * a number >= 0 of any length (30 days wait 30 days, past a JavaScript timer's 24.8), or `Infinity`
   * for no limit. Default: no limit.
   */
  timeoutMs?: number;
  /** Give up when this signal aborts, rejecting with `CacheSyncTimeoutError` (reason `CacheSyncAborted`). */
  signal?: AbortSignal;
}

/** An informer that had not synced when `waitForCacheSync` gave up. */
export interface UnsyncedInformer {
  /** The cluster it reaches, in a multi-cluster factory. Absent otherwise. */
  readonly cluster?: string;
  /** The resource, qualified by its group when it has one: `pods`, `deployments.apps`. */
  readonly resource: string;
  /** Where it lists and watches. */
  readonly scope: InformerScope;
  /** What its reflector was doing: `listing`, `backingOff`… */
  readonly phase: ReflectorPhase;
  /** Its reflector's last error, if any: why it has not synced (a 403, a refused connection…). */
  readonly lastError?: Error;
}

/**
 * `waitForCacheSync` gave up (its `timeoutMs` passed: reason `CacheSyncTimeout`; its `signal`
 * aborted: reason `CacheSyncAborted`, `cause` the signal's reason, which the message quotes unless
 * it is the default `AbortError`) with informers not synced. The message names each, with its
 * phase and last error; `unsynced` lists them.
 */
export class CacheSyncTimeoutError extends RxInformerError {
  /** Always `CacheSyncTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'CacheSyncTimeoutError';
  /** Every informer of the factory that had not synced. */
  readonly unsynced: readonly UnsyncedInformer[];

  constructor(why: { timeoutMs: number } | { aborted: unknown }, unsynced: readonly UnsyncedInformer[]) {
    const aborted = 'aborted' in why;
    // The signal's reason, unless it is the default one (an AbortError saying only that).
    const reason = aborted && (why.aborted as { name?: unknown } | null)?.name !== 'AbortError' ? why.aborted : undefined;
    const head = aborted ? withCause('waitForCacheSync was aborted', reason) : `caches not synced within ${why.timeoutMs} ms`;
    const which = unsynced.length === 0 ? 'none left in the factory' : unsynced.map(describeUnsynced).join('; ');
    super(aborted ? 'CacheSyncAborted' : 'CacheSyncTimeout', `${head}; not synced: ${which}`, {
      cause: aborted ? why.aborted : undefined,
    });
    this.unsynced = unsynced;
  }
}

/** `waitForCacheSync` on a factory that does not run (never started, or stopped): nothing would ever sync. */
export class FactoryNotStartedError extends RxInformerError {
  /** Always `FactoryNotStartedError`: set as a string, so it survives minification. */
  override readonly name: string = 'FactoryNotStartedError';
  constructor() {
    super('FactoryNotStarted', 'the informer factory is not running: call start() (or retain()) before waitForCacheSync()');
  }
}

/**
 * The factory stopped (`stop()`, or the grace after the last `retain()` was released) while
 * `waitForCacheSync` waited: its informers would not sync until it runs again.
 */
export class FactoryStoppedError extends RxInformerError {
  override readonly name: string = 'FactoryStoppedError';
  constructor() {
    super('FactoryStopped', 'the informer factory stopped before its caches synced');
  }
}

/** `waitForCacheSync` on a factory of which no informer was requested: there is nothing to wait for. */
export class NoInformersError extends RxInformerError {
  /** Always `NoInformersError`: set as a string, so it survives minification. */
  override readonly name: string = 'NoInformersError';
  constructor() {
    super('NoInformers', 'no informer was requested from the factory: call informerFor() before waitForCacheSync()');
  }
}

/** An informer of the factory, with what it was made for. */
export interface FactoryEntry {
  /** The informer. */
  readonly informer: SharedInformer<KubeObject>;
  /** Its resource. */
  readonly resource: ResourceDescriptor;
  /** Its scope. */
  readonly scope: InformerScope;
  /** Its cluster, in a multi-cluster factory. */
  readonly cluster?: string;
}

/** Where `waitForAll` looks: the informers now, and when that set changes or the factory stops. */
export interface CacheSyncSources {
  /** The informers of the factory now. */
  entries(): readonly FactoryEntry[];
  /** Emits when an informer is requested or leaves the factory. */
  requested: Observable<void>;
  /** Emits the error to give up with when the factory stops or shuts down. */
  ended: Observable<Error>;
  /** Where the time limit runs. */
  scheduler: SchedulerLike;
  /**
   * When given, the informers count only once it is true (a multi-cluster provider has told its
   * clusters), and none at all is enough. Default: at least one informer is needed.
   */
  ready?(): boolean;
}

/** Checks `waitForCacheSync`'s options: `InvalidOptionsError` for a bad time limit or signal. */
export function checkCacheSyncOptions(options: CacheSyncOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('waitForCacheSync options must be an object');
  const { timeoutMs, signal } = options;
  checkDuration('timeoutMs', timeoutMs, Infinity, { infinite: true });
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function'))
    throw new InvalidOptionsError('signal must be an AbortSignal');
}

/**
 * Resolves once every informer of `sources` has synced, re-checking whenever one syncs or the set
 * changes; rejects with the error `ended` emits when the factory stops or shuts down, and with
 * `CacheSyncTimeoutError` when `timeoutMs` passes or `signal` aborts.
 */
export function waitForAll(sources: CacheSyncSources, options: CacheSyncOptions): Promise<void> {
  const synced = (): boolean => {
    const all = sources.entries();
    if (sources.ready !== undefined) return sources.ready() && all.every((e) => e.informer.hasSynced());
    return all.length > 0 && all.every((e) => e.informer.hasSynced());
  };
  const unsynced = (): UnsyncedInformer[] =>
    sources
      .entries()
      .filter((e) => !e.informer.hasSynced())
      .map(describeEntry);
  if (synced()) return Promise.resolve();
  if (options.signal?.aborted) return Promise.reject(new CacheSyncTimeoutError({ aborted: options.signal.reason }, unsynced()));
  const changes = new Subject<void>();
  const watched = new Map<SharedInformer<KubeObject>, Subscription>();
  const watchAll = (): void => {
    for (const { informer } of sources.entries())
      if (!watched.has(informer))
        watched.set(
          informer,
          informer.synced$.subscribe(() => changes.next()),
        );
  };
  watchAll();
  const onRequest = sources.requested.subscribe(() => {
    watchAll();
    changes.next();
  });
  const fail = (error: () => Error): OperatorFunction<unknown, never> =>
    map(() => {
      throw error();
    });
  const giveUps: Observable<never>[] = [sources.ended.pipe(mergeMap((e) => throwError(() => e)))];
  const { timeoutMs, signal } = options;
  if (timeoutMs !== undefined && timeoutMs !== Infinity)
    giveUps.push(timerAfter(timeoutMs, sources.scheduler).pipe(fail(() => new CacheSyncTimeoutError({ timeoutMs }, unsynced()))));
  if (signal !== undefined)
    giveUps.push(fromEvent(signal, 'abort').pipe(fail(() => new CacheSyncTimeoutError({ aborted: signal.reason }, unsynced()))));
  return firstValueFrom(race(changes.pipe(filter(synced), take(1)), merge(...giveUps))).finally(() => {
    onRequest.unsubscribe();
    for (const s of watched.values()) s.unsubscribe();
  });
}

/** The resource name of a descriptor, qualified by its group: `pods`, `deployments.apps`. */
export function qualifiedResource(resource: ResourceDescriptor): string {
  return resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
}

/** A scope in words: ` in team-a, labelSelector "app=web"`, empty for everything. */
export function describeScope(scope: InformerScope): string {
  const parts = [
    scope.namespace !== undefined ? `namespace ${scope.namespace}` : undefined,
    scope.labelSelector ? `labelSelector "${scope.labelSelector}"` : undefined,
    scope.fieldSelector ? `fieldSelector "${scope.fieldSelector}"` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function describeEntry({ informer, resource, scope, cluster }: FactoryEntry): UnsyncedInformer {
  const status = informer.getStatus();
  const described = { ...(cluster !== undefined && { cluster }), resource: qualifiedResource(resource), scope, phase: status.phase };
  return status.lastError === undefined ? described : { ...described, lastError: status.lastError };
}

function describeUnsynced(u: UnsyncedInformer): string {
  const error = u.lastError === undefined ? '' : `, last error: ${u.lastError.name}: ${u.lastError.message}`;
  const where = u.cluster === undefined ? '' : `cluster ${u.cluster}: `;
  return `${where}${u.resource}${describeScope(u.scope)} ${u.phase}${error}`;
}

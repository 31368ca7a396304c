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
  race,
  Subject,
  take,
  timer,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { InvalidOptionsError, RxInformerError } from '../errors.ts';
import type { SharedInformer } from './sharedInformer.ts';
import type { InformerScope, KubeObject, ReflectorPhase, ReflectorStatus, ResourceDescriptor } from '../types.ts';

/** Options of `waitForCacheSync`. */
export interface CacheSyncOptions {
  /** Give up after this many ms (on the factory's scheduler), rejecting with `CacheSyncTimeoutError`. Default: no limit. */
  timeoutMs?: number;
  /** Give up when this signal aborts, rejecting with `CacheSyncTimeoutError` (reason `CacheSyncAborted`). */
  signal?: AbortSignal;
}

/** An informer that had not synced when `waitForCacheSync` gave up. */
export interface UnsyncedInformer {
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
 * aborted: reason `CacheSyncAborted`, `cause` the signal's reason) with informers not synced.
 * The message names each, with its phase and last error; `unsynced` lists them.
 */
export class CacheSyncTimeoutError extends RxInformerError {
  /** Always `CacheSyncTimeoutError`: set as a string, so it survives minification. */
  override readonly name: string = 'CacheSyncTimeoutError';
  /** Every informer of the factory that had not synced. */
  readonly unsynced: readonly UnsyncedInformer[];

  constructor(why: { timeoutMs: number } | { aborted: unknown }, unsynced: readonly UnsyncedInformer[]) {
    const aborted = 'aborted' in why;
    const head = aborted ? 'waitForCacheSync was aborted' : `caches not synced within ${why.timeoutMs} ms`;
    const which = unsynced.length === 0 ? 'none left in the factory' : unsynced.map(describeUnsynced).join('; ');
    super(aborted ? 'CacheSyncAborted' : 'CacheSyncTimeout', `${head}; not synced: ${which}`, {
      cause: aborted ? why.aborted : undefined,
    });
    this.unsynced = unsynced;
  }
}

/** `waitForCacheSync` on a factory whose `start()` was never called: nothing would ever sync. */
export class FactoryNotStartedError extends RxInformerError {
  /** Always `FactoryNotStartedError`: set as a string, so it survives minification. */
  override readonly name: string = 'FactoryNotStartedError';
  constructor() {
    super('FactoryNotStarted', 'the informer factory was not started: call start() before waitForCacheSync()');
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
}

/** Where `waitForAll` looks: the informers now, and when that set changes or the factory closes. */
export interface CacheSyncSources {
  /** The informers of the factory now. */
  entries(): readonly FactoryEntry[];
  /** Emits when an informer is requested or leaves the factory. */
  requested: Observable<void>;
  /** Emits when the factory shuts down. */
  closed: Observable<void>;
  /** Where the time limit runs. */
  scheduler: SchedulerLike;
}

/** Checks `waitForCacheSync`'s options: `InvalidOptionsError` for a bad time limit or signal. */
export function checkCacheSyncOptions(options: CacheSyncOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('waitForCacheSync options must be an object');
  const { timeoutMs, signal } = options;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0))
    throw new InvalidOptionsError(`timeoutMs must be a finite number >= 0, got ${String(timeoutMs)}`);
  if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function'))
    throw new InvalidOptionsError('signal must be an AbortSignal');
}

/**
 * Resolves once every informer of `sources` has synced, re-checking whenever one syncs or the set
 * changes; rejects with `shutdownError()` when the factory closes, and with
 * `CacheSyncTimeoutError` when `timeoutMs` passes or `signal` aborts.
 */
export function waitForAll(sources: CacheSyncSources, options: CacheSyncOptions, shutdownError: () => Error): Promise<void> {
  const synced = (): boolean => {
    const all = sources.entries();
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
  const giveUps: Observable<never>[] = [sources.closed.pipe(fail(shutdownError))];
  const { timeoutMs, signal } = options;
  if (timeoutMs !== undefined)
    giveUps.push(timer(timeoutMs, sources.scheduler).pipe(fail(() => new CacheSyncTimeoutError({ timeoutMs }, unsynced()))));
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

/** The current status of an informer (its `status$` replays it). */
function currentStatus(informer: SharedInformer<KubeObject>): ReflectorStatus | undefined {
  let status: ReflectorStatus | undefined;
  informer.status$.pipe(take(1)).subscribe((s) => (status = s));
  return status;
}

function describeEntry({ informer, resource, scope }: FactoryEntry): UnsyncedInformer {
  const status = currentStatus(informer);
  const described = { resource: qualifiedResource(resource), scope, phase: status?.phase ?? 'stopped' };
  return status?.lastError === undefined ? described : { ...described, lastError: status.lastError };
}

function describeUnsynced(u: UnsyncedInformer): string {
  const error = u.lastError === undefined ? '' : `, last error: ${u.lastError.name}: ${u.lastError.message}`;
  return `${u.resource}${describeScope(u.scope)} ${u.phase}${error}`;
}

/**
 * The informer factory (client-go's `SharedInformerFactory`), made hard to misuse: informers
 * requested after `start()` start at once, `waitForCacheSync()` covers every informer requested
 * whenever, and `shutdown()` releases everything.
 */
import { asyncScheduler, Subject, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError, RxInformerError } from '../errors.ts';
import { descriptorForm } from '../descriptorForm.ts';
import { expectedTypeOf } from '../expectedType.ts';
import { checkSelectors } from '../labels/fieldSelector.ts';
import {
  checkCacheSyncOptions,
  describeScope,
  FactoryNotStartedError,
  NoInformersError,
  qualifiedResource,
  waitForAll,
} from './cacheSync.ts';
import type { CacheSyncOptions, FactoryEntry } from './cacheSync.ts';
import { validateResyncPeriod } from './resync.ts';
import { isLogger, statusLogger, type InformerLogger } from './statusLogger.ts';
import { createSharedInformer, type SharedInformer, type SharedInformerOptions } from './sharedInformer.ts';
import type { InformerScope, KubeObject, ListerWatcherSource, ResourceDescriptor } from '../types.ts';

/** Options of `createInformerFactory`. */
export interface InformerFactoryOptions extends InformerScope {
  /** Default resync period of every informer's handlers, in ms (0 = off). Default 0. */
  resyncPeriodMs?: number;
  /** Transform applied before storing, e.g. dropping managedFields. Default: none. */
  transform?: (obj: KubeObject) => KubeObject;
  /** Where time runs. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * Told of each informer's status changes: starts listing, synced, an error (once per distinct
   * error), recovered (see `InformerLogger`; `console` fits). Default: none.
   */
  logger?: InformerLogger;
}

/** Per-informer options: a scope and informer options that override the factory's. */
export type InformerForOptions<T extends KubeObject> = InformerScope & Omit<SharedInformerOptions<T>, 'scheduler'>;

/** The factory was shut down: its informers stopped and it makes no more. */
export class FactoryShutdownError extends RxInformerError {
  constructor() {
    super('FactoryShutdown', 'the informer factory was shut down');
  }
}

/** A set of shared informers, one per resource and scope. */
export interface InformerFactory {
  /**
   * The informer of `resource` in the factory's (or the given) scope, made on first request and
   * started at once if the factory has started. A later request for the same resource and scope
   * returns the same informer, unless that one was shut down on its own (it then leaves the factory
   * and a new one is made): its `indexers` are added to the informer (`addIndexers`; an index name
   * already used with another function throws `IndexerError`), and any other option it passes must
   * equal the first request's (functions by identity), else `InvalidOptionsError`.
   * The informer skips objects of another type than the descriptor's (`apiVersion`, and `kind`
   * when given: the reflector's `expectedType`, which `options.reflector` can override, `{}` to
   * check nothing). Throws `FactoryShutdownError` after `shutdown()`, `InvalidOptionsError` for bad options.
   */
  informerFor<T extends KubeObject>(resource: ResourceDescriptor<T>, options?: InformerForOptions<T>): SharedInformer<T>;
  /** Starts every informer, and every informer requested from now on. Idempotent; returns at once. */
  start(): void;
  /**
   * Resolves once every informer requested so far, and any requested while waiting, has synced.
   * An informer shut down on its own is no longer waited for. It speaks up rather than wait
   * forever: rejects at once with `FactoryNotStartedError` before `start()`, with
   * `NoInformersError` when no informer was requested, with `FactoryShutdownError` after or on
   * `shutdown()`; with `CacheSyncTimeoutError` when `timeoutMs` passes or `signal` aborts, naming
   * every informer not synced with its phase and last error (its `unsynced`). Throws
   * `InvalidOptionsError` for a bad `timeoutMs` or `signal`.
   *
   * @example
   * factory.start();
   * await factory.waitForCacheSync({ timeoutMs: 60_000 }); // else: "caches not synced within 60000 ms; not synced: pods …"
   */
  waitForCacheSync(options?: CacheSyncOptions): Promise<void>;
  /**
   * True when every informer requested so far has synced (false with none, and after `shutdown()`):
   * `waitForCacheSync` as a check, for readiness probes. An informer requested later makes it false
   * again until it has synced.
   */
  hasSynced(): boolean;
  /**
   * Shuts every informer down for good (watches aborted, timers cleared, handlers removed, streams
   * completed); pending `waitForCacheSync` calls reject with `FactoryShutdownError`. Idempotent.
   */
  shutdown(): void;
}

/**
 * Creates an informer factory over a ListerWatcher source.
 *
 * @example
 * const factory = createInformerFactory(source, { namespace: 'default' });
 * const pods = factory.informerFor(podsResource);
 * factory.start();
 * await factory.waitForCacheSync();
 */
export function createInformerFactory(source: ListerWatcherSource, options: InformerFactoryOptions = {}): InformerFactory {
  if (typeof source !== 'function') throw new InvalidOptionsError('the ListerWatcher source must be a function');
  validateFactoryOptions(options);
  const state: FactoryState = { entries: new Map(), madeWith: new Map(), requested: new Subject(), started: false, stopped: false };
  const { entries, requested } = state;
  const closed = new Subject<void>();

  const informerFor = <T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    perInformer: InformerForOptions<T> = {},
  ): SharedInformer<T> => {
    if (state.stopped) throw new FactoryShutdownError();
    validateDescriptor(resource);
    validateScope(perInformer ?? {});
    const scope = scopeOf(resource, perInformer, options);
    const key = informerKey(resource, scope);
    const { namespace: _n, labelSelector: _l, fieldSelector: _f, ...own } = perInformer;
    const existing = entries.get(key)?.informer as unknown as SharedInformer<T> | undefined;
    if (existing) {
      reuseWith(existing, state.madeWith.get(key) ?? {}, own, resource.resource);
      return existing;
    }
    state.madeWith.set(key, own as PerInformerOptions<KubeObject>);
    const informer = makeInformer(state, source, options, { key, resource, scope, own });
    requested.next();
    return informer;
  };

  const all = (): FactoryEntry[] => [...entries.values()];
  const sync = { entries: all, requested, closed, scheduler: options.scheduler ?? asyncScheduler };
  return {
    informerFor,
    start: () => {
      if (state.started || state.stopped) return;
      state.started = true;
      for (const { informer } of all()) informer.start();
    },
    waitForCacheSync: (waitOptions: CacheSyncOptions = {}) => {
      checkCacheSyncOptions(waitOptions);
      if (state.stopped) return Promise.reject(new FactoryShutdownError());
      if (!state.started) return Promise.reject(new FactoryNotStartedError());
      if (entries.size === 0) return Promise.reject(new NoInformersError());
      return waitForAll(sync, waitOptions, () => new FactoryShutdownError());
    },
    hasSynced: () => !state.stopped && entries.size > 0 && all().every(({ informer }) => informer.hasSynced()),
    shutdown: () => {
      if (state.stopped) return;
      state.stopped = true;
      for (const { informer } of all()) informer.shutdown();
      closed.next();
      closed.complete();
      requested.complete();
    },
  };
}

/** What a factory holds: its informers, the options each was made with, and its phase. */
interface FactoryState {
  /** The informers by resource and scope. */
  readonly entries: Map<string, FactoryEntry>;
  /** The per-informer options each informer was made with, to hold later requests to them. */
  readonly madeWith: Map<string, PerInformerOptions<KubeObject>>;
  /** Emits when an informer joins or leaves the factory, so that waits look again. */
  readonly requested: Subject<void>;
  /** `start()` was called. */
  started: boolean;
  /** `shutdown()` was called. */
  stopped: boolean;
}

/** One informer to make: its key in the factory, resource, scope and own options. */
interface InformerRequest<T extends KubeObject> {
  key: string;
  resource: ResourceDescriptor<T>;
  scope: InformerScope;
  own: PerInformerOptions<T>;
}

/**
 * Makes the informer of `request` and enters it in the factory: it is logged (with a `logger`),
 * started at once when the factory has started, and leaves the factory when it is shut down on its
 * own (waits no longer count it; the next request for its resource and scope makes a new one).
 */
function makeInformer<T extends KubeObject>(
  state: FactoryState,
  source: ListerWatcherSource,
  options: InformerFactoryOptions,
  { key, resource, scope, own }: InformerRequest<T>,
): SharedInformer<T> {
  const informer = createSharedInformer<T>(source(resource, scope), informerOptions(resource, own, options));
  const held = informer as unknown as SharedInformer<KubeObject>;
  state.entries.set(key, { informer: held, resource, scope });
  if (options.logger) logStatusOf(informer, resource, scope, options.logger);
  informer.synced$.subscribe({
    complete: () => {
      if (state.stopped || state.entries.get(key)?.informer !== held) return;
      state.entries.delete(key);
      state.requested.next();
    },
  });
  if (state.started) informer.start(); // requested after start: starts at once
  return informer;
}

/** Tells `logger` of `informer`'s status changes, naming its resource and scope. */
function logStatusOf<T extends KubeObject>(
  informer: SharedInformer<T>,
  resource: ResourceDescriptor<T>,
  scope: InformerScope,
  logger: NonNullable<InformerFactoryOptions['logger']>,
): void {
  const about = { resource: qualifiedResource(resource), scope };
  informer.status$.subscribe(statusLogger(logger, `informer ${about.resource}${describeScope(scope)}`, about));
}

/** The options of `informerFor` besides the scope: those of the informer itself. */
type PerInformerOptions<T extends KubeObject> = Omit<InformerForOptions<T>, keyof InformerScope>;

/** The options of an informer: its own, over the factory's. */
function informerOptions<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  own: PerInformerOptions<T>,
  factory: InformerFactoryOptions,
): SharedInformerOptions<T> {
  const transform = 'transform' in own ? own.transform : (factory.transform as ((obj: T) => T) | undefined);
  return {
    resyncPeriodMs: factory.resyncPeriodMs,
    ...own,
    // A projected resource: its projection first (what the informer holds), then any transform.
    transform: resource.projection ? afterProjection(resource.projection as unknown as (obj: T) => T, transform) : transform,
    // Objects of another type never enter the cache (unless the informer's options say otherwise).
    reflector: { expectedType: expectedTypeOf(resource), ...own.reflector },
    scheduler: factory.scheduler,
  };
}

/** `projection`, then `transform` on what it made. */
function afterProjection<T>(projection: (obj: T) => T, transform: ((obj: T) => T) | undefined): (obj: T) => T {
  return transform ? (obj) => transform(projection(obj)) : projection;
}

/** Where an informer of `resource` lists and watches: its own scope, else the factory's. */
function scopeOf(resource: ResourceDescriptor, perInformer: InformerScope, factory: InformerScope): InformerScope {
  return {
    namespace: resource.namespaced ? (perInformer.namespace ?? factory.namespace) : undefined,
    labelSelector: perInformer.labelSelector ?? factory.labelSelector,
    fieldSelector: perInformer.fieldSelector ?? factory.fieldSelector,
  };
}

/** The key of an informer: one per resource and scope. */
function informerKey(resource: ResourceDescriptor, scope: InformerScope): string {
  return JSON.stringify([
    formOf(resource),
    resource.group,
    resource.version,
    resource.resource,
    scope.namespace ?? '',
    scope.labelSelector ?? '',
    scope.fieldSelector ?? '',
  ]);
}

/** Which objects an informer of `resource` holds: whole, metadata, Table rows, or a projection (by its paths). */
function formOf(resource: ResourceDescriptor): string {
  const form = descriptorForm(resource);
  return form === 'projection' ? `projection:${resource.projection!.key}` : form;
}

function validateDescriptor(resource: ResourceDescriptor): void {
  if (
    !resource ||
    typeof resource.group !== 'string' ||
    typeof resource.resource !== 'string' ||
    !resource.resource ||
    typeof resource.version !== 'string' ||
    !resource.version
  ) {
    throw new InvalidOptionsError('a resource descriptor needs string group, version and resource');
  }
  // Without it a namespaced resource would silently be watched in every namespace.
  if (typeof resource.namespaced !== 'boolean')
    throw new InvalidOptionsError(`the descriptor of ${resource.resource} needs namespaced: true or false`);
  const p = resource.projection;
  if (p !== undefined && (typeof p !== 'function' || typeof p.key !== 'string'))
    throw new InvalidOptionsError(`the projection of ${resource.resource} must be made by project()`);
  descriptorForm(resource); // one form only
}

/**
 * A later request for an informer that exists: its indexers are added to it (client-go's
 * `AddIndexers`); any other option must be what the informer was made with, or the request is
 * refused rather than silently given an informer that ignores it.
 */
function reuseWith<T extends KubeObject>(
  informer: SharedInformer<T>,
  first: PerInformerOptions<KubeObject>,
  later: PerInformerOptions<T>,
  resource: string,
): void {
  const { indexers, ...rest } = later;
  for (const [field, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const before: unknown = first[field as keyof typeof first];
    const same = typeof value === 'object' && value !== null ? JSON.stringify(value) === JSON.stringify(before) : value === before;
    if (!same)
      throw new InvalidOptionsError(
        `the ${resource} informer of this scope already exists with another ${field}: pass the options it was made with (indexers are added to it)`,
      );
  }
  if (indexers !== undefined) informer.addIndexers(indexers);
}

/** A scope's fields are strings, and its selectors ones the API server accepts (else it would answer 400 forever). */
function validateScope(scope: InformerScope): void {
  if (scope === null || typeof scope !== 'object') throw new InvalidOptionsError('options must be an object');
  if (scope.namespace !== undefined && typeof scope.namespace !== 'string') throw new InvalidOptionsError('namespace must be a string');
  checkSelectors(scope);
}

function validateFactoryOptions(options: InformerFactoryOptions): void {
  validateScope(options);
  validateResyncPeriod(options.resyncPeriodMs);
  if (options.transform !== undefined && typeof options.transform !== 'function')
    throw new InvalidOptionsError('transform must be a function');
  if (options.logger !== undefined && !isLogger(options.logger))
    throw new InvalidOptionsError('logger must be an object whose info, warn and error, when given, are functions');
}

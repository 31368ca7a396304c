/**
 * The informer factory (client-go's `SharedInformerFactory`), made hard to misuse: informers
 * requested after `start()` start at once, `waitForCacheSync()` covers every informer requested
 * whenever, `stop()` and `start()` again resume, `retain()` runs it while views need it, and
 * `shutdown()` releases everything.
 */
import { asyncScheduler, Subject, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError, RxInformerError } from '../errors.ts';
import {
  checkCacheSyncOptions,
  describeScope,
  FactoryNotStartedError,
  FactoryStoppedError,
  NoInformersError,
  qualifiedResource,
  waitForAll,
} from './cacheSync.ts';
import type { CacheSyncOptions, CacheSyncSources, FactoryEntry } from './cacheSync.ts';
import { DEFAULT_RELEASE_GRACE_MS, factoryLifecycle, type FactoryLifecycle } from './factoryLifecycle.ts';
import {
  informerKey,
  informerOptions,
  reuseWith,
  scopeOf,
  validateDescriptor,
  validateFactoryOptions,
  validateScope,
  type FactorySnapshotOptions,
  type PerInformerOptions,
} from './factoryOptions.ts';
import { statusLogger, type InformerLogger } from './statusLogger.ts';
import { createSharedInformer, type SharedInformer, type SharedInformerOptions } from './sharedInformer.ts';
import { createStreamingListMemory, type StreamingListMemory } from '../reflector/streamingListSupport.ts';
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
  /**
   * How long the factory keeps running after the last `retain()` is released, in ms on the
   * factory's scheduler: a `retain()` within it keeps the watches open (no relist), as when React's
   * StrictMode unmounts and mounts a provider again, or a route change swaps one view for another.
   * 0 stops at the last release; any length is waited out (past a JavaScript timer's 24.8 days
   * too); `Infinity` runs on until `stop()` or `shutdown()`. NaN and negative values throw
   * `InvalidOptionsError`. Default 5000.
   */
  releaseGraceMs?: number;
  /**
   * Persist every informer's cache and start warm: a restart shows the cache at once and resumes
   * the watch instead of listing (see `SharedInformerOptions.snapshot`). Secrets informers throw
   * `SecretsSnapshotError` unless `persistSecrets` (or their own `snapshots: false`). Default: none.
   */
  snapshots?: FactorySnapshotOptions;
  /**
   * What is known of the server's support for streaming lists, one record per API group version,
   * given to each informer's reflector (as its `streamingListSupport`, unless its own options set
   * one): once the server refuses a streaming list to one informer, the others of that group
   * version page without asking, until the refusal is forgotten (10 minutes by default). Pass one
   * memory to the factories of one server to share it between them. Default: the factory's own
   * (`createStreamingListMemory()`).
   */
  streamingLists?: StreamingListMemory;
}

/**
 * Per-informer options: a scope and informer options that override the factory's; `snapshots`
 * over the factory's (`false`: this informer persists nothing).
 */
export type InformerForOptions<T extends KubeObject> = InformerScope &
  Omit<SharedInformerOptions<T>, 'scheduler' | 'snapshot'> & {
    /** This informer's snapshots: over the factory's `snapshots` (e.g. another `intervalMs`), or `false` for none. */
    snapshots?: Partial<FactorySnapshotOptions> | false;
  };

/** The factory was shut down: its informers stopped and it makes no more. */
export class FactoryShutdownError extends RxInformerError {
  /** Always `FactoryShutdownError`: set as a string, so it survives minification. */
  override readonly name: string = 'FactoryShutdownError';
  constructor() {
    super('FactoryShutdown', 'the informer factory was shut down');
  }
}

/** A set of shared informers, one per resource and scope. */
export interface InformerFactory {
  /**
   * The informer of `resource` in the factory's (or the given) scope, made on first request and
   * started at once if the factory runs. A later request for the same resource and scope
   * returns the same informer, unless that one was shut down on its own (it then leaves the factory
   * and a new one is made): its `indexers` are added to the informer (`addIndexers`; an index name
   * already used with another function throws `IndexerError`), and any other option it passes must
   * equal the first request's (functions by identity), else `InvalidOptionsError`.
   * The informer skips objects of another type than the descriptor's (`apiVersion`, and `kind`
   * when given: the reflector's `expectedType`, which `options.reflector` can override, `{}` to
   * check nothing). Throws `FactoryShutdownError` after `shutdown()`, `InvalidOptionsError` for bad options.
   */
  informerFor<T extends KubeObject>(resource: ResourceDescriptor<T>, options?: InformerForOptions<T>): SharedInformer<T>;
  /**
   * Starts every informer, and every informer requested from now on, and keeps them running until
   * `stop()`. Idempotent; returns at once.
   */
  start(): void;
  /**
   * Stops every informer (client-go's stop channel): watches aborted, resync timers cleared; the
   * caches, handlers and streams stay, so `start()` again resumes (each informer relists, a
   * consistent read). Pending `waitForCacheSync` calls reject with `FactoryStoppedError`.
   * Idempotent.
   *
   * Caveat: it ends what `start()` began; while a `retain()` is unreleased the factory runs on, and
   * stops when the last one is released (after `releaseGraceMs`).
   */
  stop(): void;
  /**
   * Holds the factory running for one user (a view, a React provider): the first hold starts it,
   * and when the last is released, with no `start()` in force, it stops after `releaseGraceMs`
   * (default 5000, on the factory's scheduler). A `retain()` within that grace cancels the stop:
   * the watches stay open and nothing relists. Returns the release (idempotent). Throws
   * `FactoryShutdownError` after `shutdown()`.
   *
   * @example
   * useEffect(() => factory.retain(), [factory]); // StrictMode's unmount and remount: no relist
   *
   * Caveat: a stopped factory is not shut down: it can run again, and `shutdown()` is still yours
   * to call when the factory is no longer needed (a stopped one holds no socket or timer).
   */
  retain(): () => void;
  /** True while the informers run: after `start()` or `retain()`, until stopped or shut down. */
  isRunning(): boolean;
  /**
   * Resolves once every informer requested so far, and any requested while waiting, has synced.
   * An informer shut down on its own is no longer waited for. It speaks up rather than wait
   * forever: rejects at once with `FactoryNotStartedError` when the factory is not running, with
   * `NoInformersError` when no informer was requested, with `FactoryShutdownError` after or on
   * `shutdown()`, with `FactoryStoppedError` when the factory stops while waiting; with
   * `CacheSyncTimeoutError` when `timeoutMs` passes or `signal` aborts, naming every informer not
   * synced with its phase and last error (its `unsynced`). Throws `InvalidOptionsError` for a bad
   * `timeoutMs` or `signal`.
   *
   * @example
   * factory.start();
   * await factory.waitForCacheSync({ timeoutMs: 60_000 }); // else: "caches not synced within 60000 ms; not synced: pods …"
   */
  waitForCacheSync(options?: CacheSyncOptions): Promise<void>;
  /**
   * True when every informer requested so far has synced (false with none, and after `shutdown()`):
   * `waitForCacheSync` as a check, for readiness probes. An informer requested later makes it false
   * again until it has synced. A stopped factory's informers keep their caches, and their sync.
   */
  hasSynced(): boolean;
  /**
   * Writes every informer's snapshot that changed since its last one (with `snapshots`), after any
   * save in progress; resolves when all are written, rejects with the first `SnapshotStoreError`.
   * `stop()` and `shutdown()` start these saves: await this before a process exits.
   *
   * @example
   * process.once('SIGTERM', async () => { factory.shutdown(); await factory.saveSnapshots(); process.exit(0); });
   */
  saveSnapshots(): Promise<void>;
  /**
   * Shuts every informer down for good (watches aborted, timers cleared, handlers removed, streams
   * completed); pending `waitForCacheSync` calls reject with `FactoryShutdownError`; releases of
   * `retain()` do nothing any more. Idempotent.
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
  const streamingLists = options.streamingLists ?? createStreamingListMemory();
  const state: FactoryState = { entries: new Map(), madeWith: new Map(), requested: new Subject(), running: false, shutDown: false };
  const { entries, requested } = state;
  /** Emits the error pending waits reject with: on `stop()`, and on `shutdown()` (then completes). */
  const ended = new Subject<Error>();
  const scheduler = options.scheduler ?? asyncScheduler;
  const all = (): FactoryEntry[] => [...entries.values()];
  const lifecycle = factoryLifecycle(
    {
      run: () => {
        state.running = true;
        for (const { informer } of all()) informer.start();
      },
      halt: () => {
        state.running = false;
        for (const { informer } of all()) informer.stop();
        ended.next(new FactoryStoppedError());
      },
    },
    options.releaseGraceMs ?? DEFAULT_RELEASE_GRACE_MS,
    scheduler,
  );

  const informerFor = <T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    perInformer: InformerForOptions<T> = {},
  ): SharedInformer<T> => {
    if (state.shutDown) throw new FactoryShutdownError();
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
    const informer = makeInformer(state, source, { ...options, streamingLists }, { key, resource, scope, own });
    requested.next();
    return informer;
  };

  const sync = { entries: all, requested, ended, scheduler };
  return {
    informerFor,
    ...runControls(lifecycle, state, () => entries.size, sync),
    hasSynced: () => !state.shutDown && entries.size > 0 && all().every(({ informer }) => informer.hasSynced()),
    saveSnapshots: async () => {
      const results = await Promise.allSettled(all().map(({ informer }) => informer.saveSnapshot()));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown: () => {
      if (state.shutDown) return;
      state.shutDown = true;
      state.running = false;
      lifecycle.close();
      for (const { informer } of all()) informer.shutdown();
      ended.next(new FactoryShutdownError());
      ended.complete();
      requested.complete();
    },
  };
}

/** The methods of a factory that run it and wait for its caches. */
export type RunControls = Pick<InformerFactory, 'start' | 'stop' | 'retain' | 'isRunning' | 'waitForCacheSync'>;

/**
 * `start`, `stop`, `retain`, `isRunning` and `waitForCacheSync` of a factory whose run `lifecycle`
 * holds, of which `requests()` informers (or views) were requested, whose caches `sync` finds.
 */
export function runControls(
  lifecycle: FactoryLifecycle,
  state: { readonly running: boolean; readonly shutDown: boolean },
  requests: () => number,
  sync: CacheSyncSources,
): RunControls {
  return {
    start: () => lifecycle.hold(),
    stop: () => lifecycle.unhold(),
    retain: () => {
      if (state.shutDown) throw new FactoryShutdownError();
      return lifecycle.retain();
    },
    isRunning: () => state.running,
    waitForCacheSync: (waitOptions: CacheSyncOptions = {}) => {
      checkCacheSyncOptions(waitOptions);
      if (state.shutDown) return Promise.reject(new FactoryShutdownError());
      if (!state.running) return Promise.reject(new FactoryNotStartedError());
      if (requests() === 0) return Promise.reject(new NoInformersError());
      return waitForAll(sync, waitOptions);
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
  /** The informers run (`start()` or `retain()` holds the factory). */
  running: boolean;
  /** `shutdown()` was called. */
  shutDown: boolean;
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
 * started at once when the factory runs, and leaves the factory when it is shut down on its
 * own (waits no longer count it; the next request for its resource and scope makes a new one).
 */
function makeInformer<T extends KubeObject>(
  state: FactoryState,
  source: ListerWatcherSource,
  options: InformerFactoryOptions,
  { key, resource, scope, own }: InformerRequest<T>,
): SharedInformer<T> {
  const informer = createSharedInformer<T>(source(resource, scope), informerOptions(resource, scope, own, options));
  const held = informer as unknown as SharedInformer<KubeObject>;
  state.entries.set(key, { informer: held, resource, scope });
  if (options.logger) logStatusOf(informer, resource, scope, options.logger);
  informer.synced$.subscribe({
    complete: () => {
      if (state.shutDown || state.entries.get(key)?.informer !== held) return;
      state.entries.delete(key);
      state.requested.next();
    },
  });
  if (state.running) informer.start(); // requested while running: starts at once
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

/**
 * `controllerFor`: a controller of one primary resource, in the spirit of controller-runtime's
 * builder and kube-rs's `Controller` — the objects it owns and any other resource it watches are
 * mapped to keys of the primary, and one typed reconcile reads the primary from the cache.
 */
import type { SchedulerLike } from 'rxjs';
import {
  InvalidOptionsError,
  parseLabelSelector,
  type InformerFactory,
  type InformerScope,
  type KubeObject,
  type ResourceDescriptor,
  type RxInformerError,
  type SharedInformer,
} from '@rxinformer/core';
import { checkSelectors } from '@rxinformer/core/labels';
import { checkDuration } from '@rxinformer/core/time';
import { type WorkQueueOptions } from '@rxinformer/core/workqueue';
import { isLogger, type Logger } from '../log/logger.ts';
import { ownerKey } from '../objects/owners.ts';
import type { ControllerError } from '../reconcile/errors.ts';
import type { Reconcile } from '../reconcile/request.ts';
import { Shard, type ShardOptions } from '../shard/shard.ts';
import { makeController, type Controller } from './controller.ts';
import { checkPredicates, type Predicate } from './predicates.ts';
import { primaryKeyCheck, type RefuseKey, type Source, type SourceKeys } from './sources.ts';
import type { ApiClient } from '../client/apiClient.ts';
import { resourceKey, type ControllerClient, type FollowedInformer } from './writes.ts';

/**
 * Options of a source (`owns`, `watches`, and the primary's own, in `controllerFor`'s options):
 * which of its objects are cached — a namespace, label and field selectors, each scope one informer
 * in the factory, shared with any other request of the same scope — how (`transform`), and which of
 * their events count (`predicates`). For a metadata-only source, pass `metadataOnly(descriptor)`.
 */
export interface SourceOptions<S extends KubeObject> extends InformerScope {
  /** Filters of the source's events; all must pass. Default: none. */
  predicates?: readonly Predicate<S>[];
  /**
   * Applied to each object before it is cached (drop `managedFields`, say): the informer's option,
   * so a request of the same scope elsewhere must pass the same function. Default: the factory's.
   */
  transform?: (obj: S) => S;
}

/** Options of `controllerFor`: the controller's, and its primary source's (`SourceOptions`). */
export interface ControllerBuilderOptions<T extends KubeObject> extends SourceOptions<T> {
  /** The controller's name: its handlers' prefix, its log lines' and its metrics' `controller` label. Required. */
  name: string;
  /** Parallel reconciles; one key is never reconciled by two at once. Default 1. */
  concurrency?: number;
  /** Retries of a failing key before it is dropped (reported). Default: unlimited. */
  maxRetries?: number;
  /**
   * Per-key quiet time in ms (kube-rs's debounce): changes of one key within it reconcile once,
   * `debounceMs` after the last. A number of ms from 0 to 2³¹−1 (~24.8 days): it rides one timer,
   * so a longer one, NaN or Infinity throws `InvalidOptionsError`. Default 0 (none).
   */
  debounceMs?: number;
  /** The work queue's backoff and rate limits (`WorkQueueOptions` without the scheduler). */
  queue?: Omit<WorkQueueOptions<string>, 'scheduler'>;
  /** Where time runs: debounce, backoff, requeues. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Called with each failure, as well as the running term's `errors$`. */
  onError?: (error: ControllerError<string>) => void;
  /**
   * Where reconcile failures (throttled per key), panics, timeouts, read-your-writes timeouts and
   * refused keys are logged; each reconcile's `req.log` is its child (controller, key, reconcile
   * id). pino fits, and `console`. Default `console`.
   */
  logger?: Logger;
  /** A key's failure of one kind is logged once per this many ms; repeats are counted in the next line. Default 60 000. */
  logThrottleMs?: number;
  /**
   * How long a reconcile may run, in ms (controller-runtime's `ReconciliationTimeout`): then its
   * `req.signal` aborts with a `ReconcileTimeoutError` and it is counted (`timeouts`); the key is
   * released once the reconcile settles. Default: no limit.
   */
  reconcileTimeoutMs?: number;
  /**
   * Shares the primary's objects with other replicas over a ring of Leases (KEP-5866): this
   * replica caches and reconciles only its slots' objects, from `shard.source` instead of the
   * factory, and hands slots over drained. Each `start()` joins the ring; `stop()` leaves it once
   * every reconcile has settled. Default: not sharded.
   */
  shard?: ShardOptions<T>;
  /**
   * The client of the reconcile's writes, `req.api(descriptor)`; over a multi-cluster factory, a
   * function giving each cluster's (client-node's `kubeClusterClients(fleet)`),
   * called with `req.cluster`. Default: none (`req.api` throws).
   */
  client?: ControllerClient;
  /**
   * Read-your-writes: a key's next reconcile waits until the caches show the writes its last
   * reconcile made through `req.api` to the resources the controller follows, at most `timeoutMs`
   * (default 10 000). `false` turns it off. Default on.
   */
  readYourWrites?:
    | boolean
    | {
        /** How long a key's reconcile waits at most, in ms: > 0 and at most 2³¹−1 (one timer; longer, NaN or Infinity throws `InvalidOptionsError`). Default 10 000. */
        timeoutMs?: number;
      };
}

/**
 * Maps an event of a watched resource to keys of the primary (`namespace/name`, or `name`):
 * `oldObj` is undefined on an add, `newObj` on a delete; on an update both are given, so a key the
 * old state pointed to is reconciled too (a label removed still reaches its former owner).
 */
export type MapToKeys<S extends KubeObject> = (oldObj: S | undefined, newObj: S | undefined) => SourceKeys;

/** How long a key's reconcile waits for the caches to show its writes, by default. */
const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;

/** The read-your-writes timeout of the option; undefined: off. */
function readYourWritesMs(option: ControllerBuilderOptions<KubeObject>['readYourWrites']): number | undefined {
  if (option === false) return undefined;
  return (option === true ? undefined : option?.timeoutMs) ?? READ_YOUR_WRITES_TIMEOUT_MS;
}

/**
 * Where a controller may be built: a manager (`createManager`), whose factory, client and logger
 * the controller takes and to which `reconcile(fn)` adds it.
 */
export interface ControllerHost {
  /** The informer factory of the controller's sources. */
  readonly factory: InformerFactory;
  /** The client of `req.api`, unless the controller's options name one. */
  readonly client?: ApiClient;
  /** The logger, unless the controller's options name one. */
  readonly logger: Logger;
  /** Takes the controller built. */
  add(controller: Controller): unknown;
}

/** Collects a controller's sources; `reconcile(fn)` makes it. */
export class ControllerBuilder<T extends KubeObject> {
  readonly #factory: InformerFactory;
  readonly #host: ControllerHost | undefined;
  readonly #primary: ResourceDescriptor<T>;
  readonly #primaryInformer: SharedInformer<T>;
  readonly #options: ControllerBuilderOptions<T>;
  readonly #sources: Source<KubeObject>[];
  readonly #followed: [Source<KubeObject>, FollowedInformer][];
  readonly #shard: Shard<T> | undefined;
  #built = false;

  constructor(factory: InformerFactory, primary: ResourceDescriptor<T>, options: ControllerBuilderOptions<T>, host?: ControllerHost) {
    validateBuilderOptions(factory, primary, options);
    this.#factory = factory;
    this.#host = host;
    this.#primary = primary;
    this.#options = options;
    const shard = options.shard === undefined ? undefined : new Shard(options.shard, options.transform, options.scheduler);
    this.#shard = shard;
    this.#primaryInformer = shard?.informer ?? this.#informer(primary, options, 'controllerFor');
    const source: Source<T> = {
      name: `${options.name}/${primary.resource}`,
      resource: primary,
      informer: this.#primaryInformer,
      predicates: checkPredicates(options.predicates ?? [], 'controllerFor'),
      keysOf: shard === undefined ? (_old, _new, key) => key : (oldObj, newObj, key) => (shard.note(key, newObj ?? oldObj), key),
    };
    this.#sources = [source as unknown as Source<KubeObject>];
    this.#followed = [followedOf(source as unknown as Source<KubeObject>, options)];
  }

  /**
   * Reconciles the controller owner (the owner reference with `controller: true`, of the primary's
   * group and kind) of each `owned` object that is added, deleted or changed — the owner of the old
   * state and of the new one. The primary descriptor needs its `kind`.
   *
   * Caveat: an owner reference whose name is not one path segment (`.`, `..`, holding `/` or `%`:
   * kube-apiserver accepts them) gives no key: an `InvalidSourceKeyError` on the controller's
   * `errors$` (and `onError`) tells of it; the other state's owner is reconciled as usual.
   */
  owns<S extends KubeObject>(owned: ResourceDescriptor<S>, options: SourceOptions<S> = {}): this {
    const primary = this.#primary;
    const kind = primary.kind;
    if (typeof kind !== 'string' || kind === '') throw new InvalidOptionsError('owns: the primary descriptor needs its kind');
    const owner = { ...primary, kind };
    const keyOf = (obj: S | undefined, refuse: RefuseKey): string | undefined => {
      try {
        return ownerKey(obj, owner);
      } catch (e) {
        refuse(e as RxInformerError); // ownerKey throws InvalidPathSegmentError only
        return undefined;
      }
    };
    return this.#add(owned, options, 'owns', (oldObj, newObj, refuse) => {
      let told: string | undefined; // both states with the same bad reference: told once
      const once: RefuseKey = (error) => {
        if (error.message !== told) refuse(error);
        told = error.message;
      };
      const keys = [keyOf(oldObj, once), oldObj === newObj ? undefined : keyOf(newObj, once)];
      return keys[0] === keys[1] ? keys.slice(1).filter(isKey) : keys.filter(isKey);
    });
  }

  /**
   * Reconciles the keys `mapToKeys` gives for each event of `watched` that passes the predicates.
   *
   * Caveat: a key that names no object of the primary — `namespace/name` for a namespaced primary,
   * `name` for a cluster-scoped one, each part one path segment (not `.`, `..`, no `/` or `%`) — is
   * not queued: an `InvalidSourceKeyError` on the controller's `errors$` (and `onError`) tells of it.
   */
  watches<S extends KubeObject>(watched: ResourceDescriptor<S>, mapToKeys: MapToKeys<S>, options: SourceOptions<S> = {}): this {
    if (typeof mapToKeys !== 'function') throw new InvalidOptionsError('watches: mapToKeys must be a function');
    return this.#add(watched, options, 'watches', (oldObj, newObj) => mapToKeys(oldObj, newObj));
  }

  /**
   * The controller, reconciling with `reconcile`; not started (built on a manager: added to it).
   * The builder takes no more sources.
   */
  reconcile(reconcile: Reconcile<T>): Controller {
    if (typeof reconcile !== 'function') throw new InvalidOptionsError('reconcile must be a function');
    this.#checkOpen('reconcile');
    this.#built = true;
    const informers = new Map<string, FollowedInformer[]>();
    for (const [source, followed] of this.#followed) {
      const key = resourceKey(source.resource);
      informers.set(key, [...(informers.get(key) ?? []).filter((f) => f.informer !== followed.informer), followed]);
    }
    const o = this.#options;
    const controller = makeController<T>(
      o,
      {
        startInformers: () => this.#factory.start(),
        primary: this.#primaryInformer,
        sources: this.#sources,
        writes: { client: o.client, informers },
        readYourWritesMs: readYourWritesMs(o.readYourWrites),
        logger: o.logger ?? console,
        shard: this.#shard,
      },
      reconcile,
    );
    this.#host?.add(controller);
    return controller;
  }

  /** The informer of `descriptor` in the source's scope, from the factory (shared with any other request of that scope). */
  #informer<S extends KubeObject>(descriptor: ResourceDescriptor<S>, options: SourceOptions<S>, how: string): SharedInformer<S> {
    if (options === null || typeof options !== 'object') throw new InvalidOptionsError(`${how}: options must be an object`);
    const { namespace, labelSelector, fieldSelector, transform } = options;
    if (transform !== undefined && typeof transform !== 'function') throw new InvalidOptionsError(`${how}: transform must be a function`);
    try {
      checkSelectors(options);
    } catch (e) {
      throw new InvalidOptionsError(`${how}: ${(e as Error).message}`, { cause: e });
    }
    const scope = { ...(namespace !== undefined && { namespace }), ...(labelSelector !== undefined && { labelSelector }) };
    return this.#factory.informerFor(descriptor, {
      ...scope,
      ...(fieldSelector !== undefined && { fieldSelector }),
      ...(transform && { transform }),
    });
  }

  #add<S extends KubeObject>(
    descriptor: ResourceDescriptor<S>,
    options: SourceOptions<S>,
    how: string,
    keysOf: (oldObj: S | undefined, newObj: S | undefined, refuse: RefuseKey) => SourceKeys,
  ): this {
    this.#checkOpen(how);
    const source: Source<S> = {
      name: `${this.#options.name}/${how}/${descriptor?.resource}`,
      resource: descriptor,
      informer: this.#informer(descriptor, options, how),
      predicates: checkPredicates(options?.predicates ?? [], how),
      keysOf: (oldObj, newObj, _key, refuse) => keysOf(oldObj, newObj, refuse),
      checkKey: primaryKeyCheck(this.#primary),
    };
    this.#sources.push(source as unknown as Source<KubeObject>);
    this.#followed.push(followedOf(source as unknown as Source<KubeObject>, options));
    return this;
  }

  #checkOpen(what: string): void {
    if (this.#built) throw new InvalidOptionsError(`${what}: the controller was already built`);
  }
}

const isKey = (k: string | undefined): k is string => k !== undefined;

/** A source's informer with its scope, as read-your-writes matches writes against it (the scope as the factory resolved it). */
function followedOf(source: Source<KubeObject>, options: InformerScope): [Source<KubeObject>, FollowedInformer] {
  const namespace = source.resource.namespaced ? options.namespace : undefined;
  const labels = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
  return [source, { informer: source.informer, namespace, labels }];
}

/** Throws `InvalidOptionsError` for options a controller cannot run with. */
function validateBuilderOptions<T extends KubeObject>(
  factory: InformerFactory,
  primary: ResourceDescriptor<T>,
  o: ControllerBuilderOptions<T>,
): void {
  if (typeof factory?.informerFor !== 'function' || typeof factory.start !== 'function')
    throw new InvalidOptionsError('controllerFor needs an informer factory');
  if (typeof primary?.resource !== 'string') throw new InvalidOptionsError('controllerFor needs a resource descriptor');
  if (typeof o?.name !== 'string' || o.name === '') throw new InvalidOptionsError('controllerFor: name must be a non-empty string');
  validateWriteOptions(o);
  if (o.logger !== undefined && !isLogger(o.logger))
    throw new InvalidOptionsError('controllerFor: logger must have error, warn and info methods (pino and console do)');
  const { concurrency, maxRetries, debounceMs, reconcileTimeoutMs, logThrottleMs } = o;
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1))
    throw new InvalidOptionsError(`controllerFor: concurrency must be an integer >= 1, got ${String(concurrency)}`);
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0))
    throw new InvalidOptionsError(`controllerFor: maxRetries must be an integer >= 0, got ${String(maxRetries)}`);
  checkDuration('controllerFor: debounceMs', debounceMs, 0, { max: 'timer' });
  if (reconcileTimeoutMs !== undefined)
    checkDuration('controllerFor: reconcileTimeoutMs', reconcileTimeoutMs, reconcileTimeoutMs, { exclusive: true, max: 'timer' });
  checkDuration('controllerFor: logThrottleMs', logThrottleMs, 0);
}

/** Throws `InvalidOptionsError` for a `client` or `readYourWrites` option that is not one. */
function validateWriteOptions<T extends KubeObject>({ client, readYourWrites: ryw }: ControllerBuilderOptions<T>): void {
  if (client !== undefined && typeof client !== 'function' && typeof client?.request !== 'function')
    throw new InvalidOptionsError('controllerFor: client must be an ApiClient, or a function giving the ApiClient of a cluster');
  if (!(ryw === undefined || typeof ryw === 'boolean' || (typeof ryw === 'object' && ryw !== null)))
    throw new InvalidOptionsError('controllerFor: readYourWrites must be a boolean or { timeoutMs }');
  const timeoutMs = typeof ryw === 'object' ? ryw.timeoutMs : undefined;
  checkDuration('controllerFor: readYourWrites.timeoutMs', timeoutMs, READ_YOUR_WRITES_TIMEOUT_MS, { exclusive: true, max: 'timer' });
}

/**
 * Starts building a controller of `primary`'s objects: add `owns`/`watches` sources, then
 * `reconcile(fn)` makes it. Requests the informers from the factory at once (so `waitForCacheSync`
 * and a standby replica's warm caches cover them); `start()` starts the factory.
 *
 * Built on a manager (`controllerFor(mgr, …)`, as controller-runtime's `NewControllerManagedBy`),
 * the controller takes the manager's factory, its `client` (the one `req.api`, the Lease and the
 * event recorders write through) and its logger, unless its options name others, and
 * `reconcile(fn)` adds it to the manager.
 *
 * @example
 * controllerFor(mgr, pods, { name: 'reaper', fieldSelector: 'status.phase=Failed' })
 *   .reconcile(async ({ object, api }) => { if (object) await api(pods).delete(refOf(object)); });
 *
 * @example
 * const ctl = controllerFor(factory, configMaps, { name: 'replicator', concurrency: 4 })
 *   .owns(secrets, { predicates: [generationChanged] })
 *   .watches(namespaces, (oldNs, newNs) => keysFor(oldNs, newNs))
 *   .reconcile(async ({ key, object }) => {
 *     if (object === undefined) return; // gone
 *     // … converge; throw to retry with backoff
 *     return { requeueAfterMs: 60_000 };
 *   });
 * whileLeading(election, () => ctl.start()).subscribe();
 */
export function controllerFor<T extends KubeObject>(
  on: InformerFactory | ControllerHost,
  primary: ResourceDescriptor<T>,
  options: ControllerBuilderOptions<T>,
): ControllerBuilder<T> {
  const host = on as Partial<ControllerHost> | undefined;
  if (typeof host?.add !== 'function' || typeof host.factory !== 'object')
    return new ControllerBuilder(on as InformerFactory, primary, options);
  const { client, logger } = host as ControllerHost;
  const inherited = { ...(client !== undefined && { client }), logger };
  return new ControllerBuilder(host.factory, primary, { ...inherited, ...options }, host as ControllerHost);
}

/**
 * What an informer factory checks and derives from the options of a request: the scope and key of
 * an informer, its options over the factory's, and whether a later request may share it.
 */
import { descriptorForm } from '../descriptorForm.ts';
import { InvalidOptionsError } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';
import { expectedTypeOf, groupVersionOf } from '../expectedType.ts';
import { checkSelectors } from '../labels/fieldSelector.ts';
import { validateResyncPeriod } from './resync.ts';
import { isLogger } from './statusLogger.ts';
import { isSnapshotStore, type SnapshotStore } from '../snapshot/snapshotStore.ts';
import { snapshotIdentity } from '../snapshot/snapshotIdentity.ts';
import type { InformerFactoryOptions, InformerForOptions } from './informerFactory.ts';
import type { SharedInformer, SharedInformerOptions } from './sharedInformer.ts';
import type { InformerSnapshotOptions } from './snapshotting.ts';
import type { InformerScope, KubeObject, ResourceDescriptor } from '../types.ts';

/**
 * A factory's `snapshots`: its informers persist their caches and start warm (see the informer's
 * `snapshot` option), each under a key of its own derived from `server`, its resource and scope,
 * and its transform.
 *
 * @example
 * createInformerFactory(source, { snapshots: { store: indexedDbSnapshotStore(), server: 'prod (alice)' } });
 */
export interface FactorySnapshotOptions {
  /** Where the snapshots are kept. Required. */
  store: SnapshotStore;
  /**
   * Names the server and the user it is read as, so that snapshots of two clusters, or of two
   * users of one browser profile, never mix. Required (client-node's factory sets the cluster's
   * URL and the KubeConfig's user).
   */
  server: string;
  /** At most one save per this many ms while a cache changes, and one at stop. Default 30 000. */
  intervalMs?: number;
  /** Persist Secrets informers too. Default false: `informerFor(secrets)` throws `SecretsSnapshotError`. */
  persistSecrets?: boolean;
  /** Names the informers' transform in their snapshots' identity (default: a hash of its source). */
  transformId?: string;
}

/** The options of `informerFor` besides the scope: those of the informer itself. */
export type PerInformerOptions<T extends KubeObject> = Omit<InformerForOptions<T>, keyof InformerScope>;

/** The options of an informer in `scope`: its own, over the factory's. */
export function informerOptions<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  scope: InformerScope,
  own: PerInformerOptions<T>,
  factory: InformerFactoryOptions,
): SharedInformerOptions<T> {
  const { snapshots, ...rest } = own;
  const transform = 'transform' in own ? own.transform : (factory.transform as ((obj: T) => T) | undefined);
  return {
    resyncPeriodMs: factory.resyncPeriodMs,
    ...rest,
    // A projected resource: its projection first (what the informer holds), then any transform.
    transform: resource.projection ? afterProjection(resource.projection as unknown as (obj: T) => T, transform) : transform,
    // Objects of another type never enter the cache (unless the informer's options say otherwise);
    // the server's streaming-list support is known per group version (aggregated API servers).
    reflector: {
      expectedType: expectedTypeOf(resource),
      streamingListSupport: factory.streamingLists?.of(groupVersionOf(resource)),
      ...own.reflector,
    },
    scheduler: factory.scheduler,
    snapshot: snapshotOf(resource, scope, transform, snapshots, factory.snapshots),
  };
}

/** `projection`, then `transform` on what it made. */
function afterProjection<T>(projection: (obj: T) => T, transform: ((obj: T) => T) | undefined): (obj: T) => T {
  return transform ? (obj) => transform(projection(obj)) : projection;
}

/** An informer's `snapshot` option: the factory's `snapshots` with the informer's own over them; none for `false`. */
function snapshotOf<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  scope: InformerScope,
  transform: ((obj: T) => T) | undefined,
  own: Partial<FactorySnapshotOptions> | false | undefined,
  factory: FactorySnapshotOptions | undefined,
): InformerSnapshotOptions | undefined {
  if (own === false) return undefined;
  const o = { ...factory, ...own };
  if (o.store === undefined) return undefined;
  const identity = snapshotIdentity({ server: o.server ?? '', resource, scope, transform, transformId: o.transformId });
  return { store: o.store, identity, intervalMs: o.intervalMs, persistSecrets: o.persistSecrets };
}

/** Checks a factory's `snapshots` (an informer's own are checked as it is made). */
function validateSnapshots(o: InformerFactoryOptions['snapshots']): void {
  if (o === undefined) return;
  if (o === null || typeof o !== 'object' || !isSnapshotStore(o.store))
    throw new InvalidOptionsError('snapshots must be { store, server }, store having load, save and remove');
  if (typeof o.server !== 'string' || o.server === '')
    throw new InvalidOptionsError('snapshots.server must name the server (and user): snapshots of two clusters must never mix');
}

/** Where an informer of `resource` lists and watches: its own scope, else the factory's. */
export function scopeOf(resource: ResourceDescriptor, perInformer: InformerScope, factory: InformerScope): InformerScope {
  return {
    namespace: resource.namespaced ? (perInformer.namespace ?? factory.namespace) : undefined,
    labelSelector: perInformer.labelSelector ?? factory.labelSelector,
    fieldSelector: perInformer.fieldSelector ?? factory.fieldSelector,
  };
}

/** The key of an informer: one per resource and scope. */
export function informerKey(resource: ResourceDescriptor, scope: InformerScope): string {
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

export function validateDescriptor(resource: ResourceDescriptor): void {
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
export function reuseWith<T extends KubeObject>(
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
export function validateScope(scope: InformerScope): void {
  if (scope === null || typeof scope !== 'object') throw new InvalidOptionsError('options must be an object');
  if (scope.namespace !== undefined && typeof scope.namespace !== 'string') throw new InvalidOptionsError('namespace must be a string');
  checkSelectors(scope);
}

export function validateFactoryOptions(options: InformerFactoryOptions): void {
  validateScope(options);
  validateResyncPeriod(options.resyncPeriodMs);
  if (options.transform !== undefined && typeof options.transform !== 'function')
    throw new InvalidOptionsError('transform must be a function');
  if (options.streamingLists !== undefined && typeof options.streamingLists?.of !== 'function')
    throw new InvalidOptionsError('streamingLists must be a StreamingListMemory (see createStreamingListMemory)');
  if (options.logger !== undefined && !isLogger(options.logger))
    throw new InvalidOptionsError('logger must be an object whose info, warn and error, when given, are functions');
  validateSnapshots(options.snapshots);
  checkDuration('releaseGraceMs', options.releaseGraceMs, 0, { infinite: true });
}

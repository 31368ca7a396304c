/**
 * Object semantics on top of the storage, as the real API server applies them: the `ObjectStore`
 * that the HTTP layer and the load generator both write through, so a bad request is refused
 * before anything is stored. It resolves resource references and reads; its writes are in
 * `creation.ts` (metadata filled on create, namespace lifecycle, CRD registration), `update.ts`
 * (optimistic concurrency, managedFields) and `deletion.ts` (graceful deletion, finalizers,
 * namespace termination).
 */
import type { KubeObject } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import type { SchedulerLike } from 'rxjs';
import { createObject } from './creation.ts';
import { deleteObject } from './deletion.ts';
import type { Random } from './random.ts';
import { checkCollectionKey, checkObjectKey } from './objectKeys.ts';
import { gvrKey, type ResourceInfo, type ResourceRegistry } from './resources.ts';
import { errors } from './status.ts';
import { objectKey, type Storage } from './storage.ts';
import { after, type CancelTimer } from './timers.ts';
import { updateObject } from './update.ts';
import type { DeleteOptions, WriteContext, WriteOptions } from './writeContext.ts';

/** A resource: its `ResourceInfo`, `pods`, `deployments.apps` or `apps/v1/deployments`. */
export type ResourceRef = ResourceInfo | string;

/** An object to write: `apiVersion`, `kind`, `metadata`, and any other field (`spec`, `data`…). */
export type ObjectInput = KubeObject | (KubeObject & Record<string, unknown>);

/** Options of `ObjectStore`. */
export interface ObjectStoreOptions {
  /** Revisions, history and watch fan-out. */
  storage: Storage;
  /** The resources served (built-ins and CRDs). */
  registry: ResourceRegistry;
  /** Seeded randomness (UIDs, generated names). */
  random: Random;
  /** Refuse writes into namespaces that do not exist (default true, like a real server). */
  namespaceLifecycle?: boolean;
  /** Grace period used when a pod delete names none, in seconds (default 0: the simulated kubelet is instant): >= 0, any length; NaN, Infinity and negative values throw `InvalidOptionsError`. */
  defaultPodGracePeriodSeconds?: number;
  /** Milliseconds per second of grace period (default 1000; tests shrink it): a finite number >= 0. */
  graceMsPerSecond?: number;
  /**
   * Milliseconds between a namespace's DELETE (which marks it Terminating) and the simulated
   * namespace controller's pass that deletes its contents, then the namespace (default 0: the next
   * turn of the event loop, after the DELETE was answered): >= 0, any length.
   */
  namespaceDeletionDelayMs?: number;
  /**
   * Where grace periods and the namespace controller's passes are timed: tests pass a virtual-time
   * scheduler. Default: Node timers that do not hold the process open.
   */
  scheduler?: SchedulerLike;
}

/**
 * The semantic object store.
 *
 * @example
 * const pod = objects.create(registry.get('', 'v1', 'pods')!, { metadata: { name: 'a' } }, 'default');
 */
export class ObjectStore {
  /** The underlying revisioned storage. */
  readonly storage: Storage;
  /** The resources served. */
  readonly registry: ResourceRegistry;
  readonly #pending = new Set<CancelTimer>();
  readonly #scheduler: SchedulerLike | undefined;
  readonly #ctx: WriteContext;

  constructor(options: ObjectStoreOptions) {
    // Any length: `after` waits out a delay past a JavaScript timer's 24.8 days.
    const podGraceSeconds = checkDuration('defaultPodGracePeriodSeconds', options.defaultPodGracePeriodSeconds, 0, { unit: 's' });
    const graceMsPerSecond = checkDuration('graceMsPerSecond', options.graceMsPerSecond, 1000);
    const namespaceDeletionDelayMs = checkDuration('namespaceDeletionDelayMs', options.namespaceDeletionDelayMs, 0);
    this.storage = options.storage;
    this.registry = options.registry;
    this.#scheduler = options.scheduler;
    this.#ctx = {
      storage: options.storage,
      registry: options.registry,
      random: options.random,
      namespaceLifecycle: options.namespaceLifecycle ?? true,
      podGraceSeconds,
      graceMsPerSecond,
      namespaceDeletionDelayMs,
      later: (ms, fn) => this.#later(ms, fn),
    };
  }

  /** Cancels pending graceful deletions. */
  close(): void {
    for (const cancel of this.#pending) cancel();
    this.#pending.clear();
  }

  /**
   * Resolves a resource reference: a `ResourceInfo`, a plural (`pods`, core group first), a
   * `plural.group` (`deployments.apps`) or `group/version/plural` (`apps/v1/deployments`, `v1/pods`).
   * Throws a 404 `ApiStatusError` for a resource not served.
   */
  resolve(ref: ResourceRef): ResourceInfo {
    if (typeof ref !== 'string') return ref;
    if (this.#resolvedAt !== this.registry.version) {
      this.#resolved.clear();
      this.#resolvedAt = this.registry.version;
    }
    const hit = this.#resolved.get(ref);
    if (hit) return hit;
    const parts = ref.split('/');
    let found: ResourceInfo | undefined;
    if (parts.length === 3) found = this.registry.get(parts[0], parts[1], parts[2]);
    else if (parts.length === 2) found = this.registry.get('', parts[0], parts[1]);
    else {
      const dot = ref.indexOf('.');
      const plural = dot < 0 ? ref : ref.slice(0, dot);
      const group = dot < 0 ? '' : ref.slice(dot + 1);
      const all = this.registry.all().filter((r) => r.resource === plural && (dot < 0 || r.group === group));
      found = all.find((r) => r.group === '') ?? all[0];
    }
    if (!found) throw errors.unknownPath();
    this.#resolved.set(ref, found);
    return found;
  }

  readonly #resolved = new Map<string, ResourceInfo>();
  #resolvedAt = -1;

  /** The current revision of the storage. */
  get resourceVersion(): string {
    return String(this.storage.resourceVersion);
  }

  /** Every current object of a resource (optionally in one namespace), in key order. */
  list(ref: ResourceRef, namespace?: string): KubeObject[] {
    const res = this.resolve(ref);
    checkCollectionKey(res, namespace);
    const snap = this.storage.snapshot(gvrKey(res));
    const out: KubeObject[] = [];
    for (const k of snap.keys('', res.namespaced && namespace !== undefined ? `${namespace}/` : undefined)) {
      const o = snap.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** The current object, or a 404 `ApiStatusError` (400 for a name that is not one path segment: `objectKeys.ts`). */
  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject {
    const res = this.resolve(ref);
    checkObjectKey(res, namespace, name);
    const obj = this.storage.get(gvrKey(res), objectKey(res.namespaced ? namespace : undefined, name));
    if (!obj) throw errors.notFound({ resource: res.resource, group: res.group, name });
    return obj;
  }

  /** Like `get` but `undefined` when absent. */
  find(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const res = this.resolve(ref);
    checkObjectKey(res, namespace, name);
    return this.storage.get(gvrKey(res), objectKey(res.namespaced ? namespace : undefined, name));
  }

  /**
   * Creates an object: fills its metadata and stores it at the next revision.
   * Throws `ApiStatusError` (400, 404, 409, 422) without storing anything.
   */
  create(ref: ResourceRef, input: ObjectInput, namespace?: string, options: WriteOptions = {}): KubeObject {
    return createObject(this.#ctx, this.resolve(ref), input, namespace, options);
  }

  /**
   * Replaces an object (PUT). A `metadata.resourceVersion` that is not the current one → 409
   * Conflict; none → unconditional update. A no-op update keeps the revision and emits nothing.
   */
  update(ref: ResourceRef, input: ObjectInput, namespace: string | undefined, name: string, options: WriteOptions = {}): KubeObject {
    return updateObject(this.#ctx, this.resolve(ref), input, namespace, name, options);
  }

  /**
   * Deletes an object. With finalizers, or a grace period, it is first marked
   * (`deletionTimestamp`, MODIFIED) and removed later. Returns the object's last state.
   */
  delete(ref: ResourceRef, namespace: string | undefined, name: string, options: DeleteOptions = {}): KubeObject {
    const res = this.resolve(ref);
    checkObjectKey(res, namespace, name);
    return deleteObject(this.#ctx, res, namespace, name, options);
  }

  /** Runs `fn` after `ms` on the scheduler (or an unreferenced timer); `close()` cancels it. */
  #later(ms: number, fn: () => void): void {
    const cancel = after(this.#scheduler, ms, () => {
      this.#pending.delete(cancel);
      fn();
    });
    this.#pending.add(cancel);
  }
}

/**
 * What the write paths of the object store (`creation.ts`, `update.ts`, `deletion.ts`) share: the
 * options of a write, and the store's state they act on.
 */
import type { KubeObject } from '@rxinformer/core';
import type { ManagedFieldsEntry } from './managedFields.ts';
import type { Random } from './random.ts';
import type { ResourceRegistry } from './resources.ts';
import type { Storage } from './storage.ts';

/** The parts of DeleteOptions the simulator honours. */
export interface DeleteOptions {
  /** Seconds before a pod is really deleted; 0 = at once. */
  gracePeriodSeconds?: number;
  /** Delete only if the stored object still has this UID / resource version (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** `Foreground`, `Background` or `Orphan`. */
  propagationPolicy?: string;
  /** `["All"]`: validate, change nothing. */
  dryRun?: string[];
}

/** Options of a write. */
export interface WriteOptions {
  /** `fieldManager` of the request (default: derived from the operation). */
  fieldManager?: string;
  /**
   * The caller hands the object over and will never mutate it (nor anything it shares with a stored
   * object): no defensive copy is made (default false). The HTTP layer sets it for parsed bodies.
   */
  owned?: boolean;
  /** `status` for the status subresource. */
  subresource?: string;
  /** Validate and compute the result but store nothing. */
  dryRun?: boolean;
  /** The operation recorded in managedFields (default `Update`). */
  operation?: 'Update' | 'Apply';
  /**
   * Server-side apply: the applied configuration, whose fields alone the manager owns (default for
   * an Apply: the whole object). An Update owns the fields it changed, not this.
   */
  applied?: KubeObject;
  /** The managedFields to start from instead of the stored ones (a forced apply hands fields over). */
  managedFields?: readonly ManagedFieldsEntry[];
}

/** The object store's state, as its write paths see it (the resolved `ObjectStoreOptions`). */
export interface WriteContext {
  /** Revisions, history and watch fan-out. */
  readonly storage: Storage;
  /** The resources served (CRDs add and remove some). */
  readonly registry: ResourceRegistry;
  /** Seeded randomness (UIDs, generated names). */
  readonly random: Random;
  /** Refuse writes into namespaces that do not exist or are terminating. */
  readonly namespaceLifecycle: boolean;
  /** Grace period of a pod delete that names none, in seconds. */
  readonly podGraceSeconds: number;
  /** Milliseconds per second of grace period. */
  readonly graceMsPerSecond: number;
  /** Milliseconds between a namespace's DELETE and the simulated namespace controller's pass. */
  readonly namespaceDeletionDelayMs: number;
  /** Runs `fn` after `ms` on a timer that the store's `close()` cancels. */
  later(ms: number, fn: () => void): void;
}

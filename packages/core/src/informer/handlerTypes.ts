/**
 * The types of event handlers: the callbacks, their options, and what a registration reports. Kept
 * apart from the code that delivers to handlers so that `handlerQueue.ts` and `eventHandler.ts`
 * both depend on them and not on each other.
 */
import type { Observable } from 'rxjs';
import type { DeletedObject, Delta, KubeObject } from '../types.ts';

/**
 * The callbacks of a handler; at least one is required. A returned promise is awaited. Each is given
 * the delta's key — the informer's `keyFunc`'s, as the cache holds the object — to use rather than
 * recomputing one (a custom `keyFunc` would make `metaNamespaceKeyFunc` miss the cache).
 */
export interface EventHandler<T extends KubeObject> {
  /**
   * A new object; `isInInitialList` is true for the initial list and a late handler's replay;
   * `fromSnapshot` (informers always pass it) is true when the object was read from a persisted
   * snapshot the server has not confirmed yet (the informer's `snapshot` option): it may be as old
   * as that snapshot, and an update or delete follows if the server has moved on.
   */
  onAdd?(obj: T, isInInitialList: boolean, key: string, fromSnapshot?: boolean): void | Promise<void>;
  /** A changed object; on resync (`Sync`) and unchanged relist (`Replaced`) deltas `oldObj === newObj`. */
  onUpdate?(oldObj: T, newObj: T, key: string): void | Promise<void>;
  /**
   * A deleted object: its key, its last known state, and `finalStateUnknown` when that is only
   * what the cache last held (a tombstone: see `DeletedObject`).
   */
  onDelete?(deleted: DeletedObject<T>): void | Promise<void>;
}

/** How a handler's pending notifications are buffered. */
export type BufferPolicy = 'fifo' | 'coalesce';

/** Options of `addEventHandler`. */
export interface EventHandlerOptions {
  /** A name for error reports and metrics. Default `handler-<n>`. */
  name?: string;
  /**
   * `fifo` (default, client-go's behaviour): every notification in order, unbounded.
   * `coalesce`: only the newest pending notification per key is kept (an update keeps the oldest
   * pending `oldObject`); deletes are never dropped, and a delete followed by an add stays two.
   * Order holds per key, not across keys.
   */
  buffer?: BufferPolicy;
  /** Re-deliver the whole cache as `Sync` updates every this many ms (minimum 1000; 0 = off). Default 0. */
  resyncPeriodMs?: number;
}

/** A handler failure: which handler, on which delta, with what error. */
export interface HandlerError<T extends KubeObject = KubeObject> {
  /** The handler's name. */
  handler: string;
  /** The delta it was handling. */
  delta: Delta<T>;
  /** What it threw or rejected with. */
  error: unknown;
}

/** Per-handler delivery figures. */
export interface HandlerMetrics {
  /** Notifications waiting in the buffer. */
  depth: number;
  /** Time the last delivered notification waited in the buffer, in ms (scheduler time). */
  lagMs: number;
  /** Notifications delivered so far. */
  delivered: number;
  /** Callbacks that threw or rejected so far. */
  errors: number;
}

/** What `addEventHandler` returns. */
export interface HandlerRegistration {
  /** The handler's name. */
  readonly name: string;
  /** True once this handler has finished (returned or settled) every object of the initial list. */
  hasSynced(): boolean;
  /** `hasSynced()` as a stream: emits `false`, then `true` once. */
  readonly synced$: Observable<boolean>;
  /** Delivery figures as a stream. */
  readonly metrics$: Observable<HandlerMetrics>;
  /** Stops delivery and drops the buffer. Removing twice is a no-op. */
  remove(): void;
}

/** One notification handed to a handler, as `deliverTo` reports it. */
export interface Delivery<T extends KubeObject = KubeObject> {
  /** The handler's name. */
  handler: string;
  /** The delta the callback was called with. */
  delta: Delta<T>;
  /** How long it waited in the buffer, in ms (scheduler time). */
  lagMs: number;
  /** True when the callback threw or rejected; `error` holds what it threw. */
  failed: boolean;
  /** What the callback threw or rejected with, when `failed`. */
  error?: unknown;
}

/**
 * What the live view knows, fed by its informer event handler: every object with its last event,
 * recently deleted objects for a few seconds, counts per event type and the event rate.
 */
import { metaNamespaceKeyFunc, splitMetaNamespaceKey, type EventHandler, type KubeObject } from '@rxinformer/core';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { createRateMeter, type RateMeter } from './rateMeter.ts';

/** The event types of the view: the watch types, plus `DELETED?` for a tombstone (final state unknown). */
export type LiveEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'DELETED?';

/** One event as the view records it. */
export interface LiveEvent {
  type: LiveEventType;
  key: string;
  object: KubeObject;
  /** Scheduler time of the event, in ms. */
  at: number;
  /** Part of the initial list (or a relist's first delivery). */
  initial: boolean;
}

/** Event counts by type; `unchanged` counts objects a relist found unchanged (no event line). */
export interface LiveCounts {
  ADDED: number;
  MODIFIED: number;
  DELETED: number;
  'DELETED?': number;
  unchanged: number;
}

/** Options of `createLiveState`. */
export interface LiveStateOptions {
  /** How long a deleted object stays in the table, in ms. Default 5000. */
  keepDeletedMs?: number;
  /** Whose clock stamps events. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Called with every event recorded, e.g. to print it. Default: none. */
  onEvent?: (event: LiveEvent) => void;
}

/** The live view's state and the informer handler that feeds it. */
export interface LiveState {
  /** Register this with `informer.addEventHandler`. */
  readonly handler: EventHandler<KubeObject>;
  readonly counts: Readonly<LiveCounts>;
  readonly rate: RateMeter;
  /** The newest events first (most recent last event first), one per object: live objects and those deleted within `keepDeletedMs`. */
  rows(limit?: number): LiveEvent[];
  /** Objects the handler holds (deleted ones excluded). */
  readonly size: number;
}

/**
 * Creates the state of a live view.
 *
 * @example
 * const state = createLiveState({ onEvent: (e) => console.log(e.type, e.key) });
 * informer.addEventHandler(state.handler, { name: 'view' });
 *
 * Caveat: the handler's view trails the store by the handler's lag; the counters say how much.
 */
export function createLiveState(options: LiveStateOptions = {}): LiveState {
  const scheduler = options.scheduler ?? asyncScheduler;
  const keepDeletedMs = options.keepDeletedMs ?? 5000;
  const latest = new Map<string, LiveEvent>();
  const counts: LiveCounts = { ADDED: 0, MODIFIED: 0, DELETED: 0, 'DELETED?': 0, unchanged: 0 };
  const rate = createRateMeter({ scheduler });
  let size = 0;
  /** Every event in order; entries superseded by a newer event of their key are dropped by `compact`. */
  let log: LiveEvent[] = [];
  const expired = (e: LiveEvent, cutoff: number) => (e.type === 'DELETED' || e.type === 'DELETED?') && e.at < cutoff;
  const compact = () => {
    const cutoff = scheduler.now() - keepDeletedMs;
    for (const [key, e] of latest) if (expired(e, cutoff)) latest.delete(key);
    log = [...latest.values()];
  };

  const record = (type: LiveEventType, object: KubeObject, initial: boolean) => {
    const key = metaNamespaceKeyFunc(object);
    const event: LiveEvent = { type, key, object, at: scheduler.now(), initial };
    const before = latest.get(key);
    const existed = before !== undefined && before.type !== 'DELETED' && before.type !== 'DELETED?';
    const exists = type === 'ADDED' || type === 'MODIFIED';
    size += Number(exists) - Number(existed);
    latest.delete(key); // re-inserted: the map stays in event order, oldest first
    latest.set(key, event);
    log.push(event);
    if (log.length > 2 * latest.size + 1024) compact();
    counts[type]++;
    rate.mark();
    options.onEvent?.(event);
  };

  const handler: EventHandler<KubeObject> = {
    onAdd: (obj, initial) => record('ADDED', obj, initial),
    onUpdate: (oldObj, newObj) => {
      if (oldObj === newObj)
        counts.unchanged++; // a relist's unchanged object (or a resync): nothing happened
      else record('MODIFIED', newObj, false);
    },
    onDelete: ({ key, lastKnown, finalStateUnknown }) =>
      record(finalStateUnknown ? 'DELETED?' : 'DELETED', lastKnown ?? { metadata: splitMetaNamespaceKey(key) }, false),
  };

  return {
    handler,
    counts,
    rate,
    get size() {
      return size;
    },
    rows(limit = Infinity) {
      // From the newest event back, skipping superseded and expired ones: the cost follows `limit`, not the store.
      const cutoff = scheduler.now() - keepDeletedMs;
      const rows: LiveEvent[] = [];
      for (let i = log.length - 1; i >= 0 && rows.length < limit; i--) {
        const e = log[i];
        if (latest.get(e.key) === e && !expired(e, cutoff)) rows.push(e);
      }
      return rows;
    },
  };
}

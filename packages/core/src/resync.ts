/**
 * Resync: a timer stream that re-delivers the cache's contents as `Sync` deltas (client-go's
 * resync). It reads the local store only and never calls the server.
 *
 * Each handler has its own period; its timer runs only while the informer runs, and restarts its
 * period when the informer starts again. Nothing is re-delivered before the first complete list.
 */
import { EMPTY, asyncScheduler, distinctUntilChanged, filter, interval, map, switchMap, type Observable, type SchedulerLike } from 'rxjs';
import { describeValue, InvalidOptionsError } from './errors.ts';
import { MAX_TIMER_MS } from './longTimer.ts';
import type { Delta, KubeObject, Store } from './types.ts';

/** The shortest resync period accepted, in ms (anything shorter is a busy loop over the cache). */
export const MIN_RESYNC_PERIOD_MS = 1000;

/**
 * Checks a resync period: `0` (off) or a number of ms from `MIN_RESYNC_PERIOD_MS` to `MAX_TIMER_MS`.
 * Returns it (`0` for `undefined`); throws `InvalidOptionsError` naming `field` otherwise.
 */
export function validateResyncPeriod(value: unknown, field = 'resyncPeriodMs'): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidOptionsError(`${field} must be a number >= 0, got ${describeValue(value)}`);
  }
  if (value > MAX_TIMER_MS)
    throw new InvalidOptionsError(`${field} must be at most ${MAX_TIMER_MS} (a timer's limit, ~24.8 days), got ${value}`);
  if (value > 0 && value < MIN_RESYNC_PERIOD_MS) {
    throw new InvalidOptionsError(`${field} must be 0 (off) or at least ${MIN_RESYNC_PERIOD_MS}, got ${value}`);
  }
  return value;
}

/**
 * Emits the 0-based tick number every `periodMs` while `running$` is last `true`; stops while it is
 * `false`, and the period starts over on each `true`. Emits nothing for `periodMs <= 0`.
 *
 * @example
 * resyncTicks(30_000, informerRunning$, asyncScheduler).subscribe(() => resyncOneHandler());
 */
export function resyncTicks(
  periodMs: number,
  running$: Observable<boolean>,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<number> {
  if (periodMs <= 0) return EMPTY;
  return running$.pipe(
    distinctUntilChanged(),
    switchMap((on) => (on ? interval(periodMs, scheduler) : EMPTY)),
  );
}

/**
 * The deltas of one resync pass over `store`: a `Sync` (`object === oldObject`) for every key,
 * except keys for which `isPending(key)` is true — a handler that still has a change of that key
 * waiting must not hear the current state before that change. Pure; reads only the snapshot.
 */
export function syncDeltas<T extends KubeObject>(store: Store<T>, isPending: (key: string) => boolean = () => false): Delta<T>[] {
  const deltas: Delta<T>[] = [];
  for (const key of store.keys()) {
    if (isPending(key)) continue;
    const object = store.get(key);
    if (object !== undefined) deltas.push({ type: 'Sync', key, object, oldObject: object, store });
  }
  return deltas;
}

/** Options of `resyncPasses`. */
export interface ResyncOptions<T extends KubeObject> {
  /** Period in ms; `0` = off (emits nothing). Validate with `validateResyncPeriod` first. */
  periodMs: number;
  /** Whether the informer runs: timers run only while the last value is `true`. */
  running$: Observable<boolean>;
  /** The current snapshot, or `undefined` while the first list is not complete (no pass then). */
  snapshot: () => Store<T> | undefined;
  /** Keys to skip in a pass (a change of theirs is still pending). Default: none. */
  isPending?: (key: string) => boolean;
  /** Where the timers run. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * One array of `Sync` deltas per due resync tick, computed from the snapshot at the tick.
 * Passes over an empty store, or before the first list, are skipped.
 *
 * Caveat: a pass is computed at the tick, so it reflects the cache then; deltas enqueued behind a
 * slow handler's backlog reach it later, but never ahead of a change of the same key.
 */
export function resyncPasses<T extends KubeObject>(options: ResyncOptions<T>): Observable<readonly Delta<T>[]> {
  return resyncTicks(options.periodMs, options.running$, options.scheduler).pipe(
    map(() => options.snapshot()),
    filter((store): store is Store<T> => store !== undefined),
    map((store) => syncDeltas(store, options.isPending)),
    filter((deltas) => deltas.length > 0),
  );
}

/**
 * Resync: a timer stream that re-delivers the cache's contents as `Sync` deltas (client-go's
 * resync). It reads the local store only and never calls the server.
 *
 * One clock per period, shared by every handler of that period (`resyncClocks`): one timer and one
 * pass over the store per tick, however many handlers hear it. A clock runs only while the informer
 * runs and some handler listens, and restarts its period when the informer starts again. Nothing is
 * re-delivered before the first complete list.
 */
import {
  EMPTY,
  asyncScheduler,
  concatMap,
  distinctUntilChanged,
  filter,
  interval,
  map,
  of,
  range,
  share,
  switchMap,
  takeUntil,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { describeValue, InvalidOptionsError } from '../errors.ts';
import { StoreSnapshot } from '../store/indexer.ts';
import { checkDuration } from '../time/duration.ts';
import type { Delta, KubeObject, Store } from '../types.ts';

/** The shortest resync period accepted, in ms (anything shorter is a busy loop over the cache). */
export const MIN_RESYNC_PERIOD_MS = 1000;

/** The most keys in one slice of a resync pass (see `resyncPasses`). */
export const RESYNC_SLICE_KEYS = 1000;

/**
 * Checks a resync period: `0` (off) or a number of ms from `MIN_RESYNC_PERIOD_MS` to `MAX_TIMER_MS`
 * (the ticks are one RxJS `interval`: a longer period is refused rather than split). Returns it
 * (`0` for `undefined`); throws `InvalidOptionsError` naming `field` otherwise.
 */
export function validateResyncPeriod(value: unknown, field = 'resyncPeriodMs'): number {
  if (value !== undefined && typeof value !== 'number')
    throw new InvalidOptionsError(`${field} must be a number >= 0, got ${describeValue(value)}`);
  const ms = checkDuration(field, value, 0, { max: 'timer' });
  if (ms > 0 && ms < MIN_RESYNC_PERIOD_MS) {
    throw new InvalidOptionsError(`${field} must be 0 (off) or at least ${MIN_RESYNC_PERIOD_MS}, got ${ms}`);
  }
  return ms;
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
 * The deltas of one resync pass over `store`: a `Sync` for every key. Pure;
 * reads only the snapshot. (Each handler's buffer leaves out the keys it still has a change of
 * waiting: see `HandlerQueue.enqueueBatch`.)
 */
export function syncDeltas<T extends KubeObject>(store: Store<T>): Delta<T>[] {
  if (!(store instanceof StoreSnapshot)) return sliceDeltas(store, store.keys());
  // Its keys and objects side by side (one walk each, cached by the snapshot), not a lookup per key.
  const keys = store.keys();
  const objects = store.list() as readonly T[];
  const deltas: Delta<T>[] = [];
  for (let i = 0; i < keys.length; i++) deltas.push({ type: 'Sync', key: keys[i], object: objects[i], store });
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
  /** Where the timers run. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * The `Sync` deltas of each due resync tick, computed from the snapshot at the tick: one array for
 * a store of up to `RESYNC_SLICE_KEYS` (1000) keys; a larger store's pass in slices of that many
 * keys, the first at the tick and each next one on a later task of the scheduler, read from the
 * snapshot current then (a key deleted meanwhile is left out; one changed gives its newer object).
 * So a pass over 100k objects never holds the event loop: at once, it did for hundreds of ms, in
 * which no watch event was read. A new tick, or the informer stopping, ends a pass in progress.
 * Passes over an empty store, or before the first list, are skipped.
 *
 * Caveat: a pass reflects the cache when each slice is made; deltas enqueued behind a slow
 * handler's backlog reach it later, but never ahead of a change of the same key.
 */
export function resyncPasses<T extends KubeObject>(options: ResyncOptions<T>): Observable<readonly Delta<T>[]> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const stopped$ = options.running$.pipe(filter((on) => !on));
  return resyncTicks(options.periodMs, options.running$, scheduler).pipe(
    map(() => options.snapshot()),
    filter((store): store is Store<T> => store !== undefined),
    switchMap((store) => passSlices(store, options, scheduler).pipe(takeUntil(stopped$))),
    filter((deltas) => deltas.length > 0),
  );
}

/** The slices of one pass over `first`: the whole pass when it is small, else one slice per task. */
function passSlices<T extends KubeObject>(first: Store<T>, o: ResyncOptions<T>, scheduler: SchedulerLike): Observable<Delta<T>[]> {
  const keys = first.keys();
  if (keys.length <= RESYNC_SLICE_KEYS) return of(syncDeltas(first));
  return range(0, Math.ceil(keys.length / RESYNC_SLICE_KEYS)).pipe(
    concatMap((i) => (i === 0 ? of(first) : timer(0, scheduler).pipe(map(() => o.snapshot() ?? first)))),
    map((store, i) => sliceDeltas(store, keys.slice(i * RESYNC_SLICE_KEYS, (i + 1) * RESYNC_SLICE_KEYS))),
  );
}

/** The `Sync` deltas of `keys` still in `store`. */
function sliceDeltas<T extends KubeObject>(store: Store<T>, keys: readonly string[]): Delta<T>[] {
  const deltas: Delta<T>[] = [];
  for (const key of keys) {
    const object = store.get(key);
    if (object !== undefined) deltas.push({ type: 'Sync', key, object, store });
  }
  return deltas;
}

/** The passes of one shared clock per period (see `resyncClocks`). */
export type ResyncClocks<T extends KubeObject> = (periodMs: number) => Observable<readonly Delta<T>[]>;

/**
 * One informer's resync clocks: `clocks(periodMs)` is the same hot stream of passes for every
 * caller with that period, so handlers of one period share one timer, and each pass (or slice) is
 * computed once and handed to all of them. A clock runs while someone subscribes (and the informer
 * runs); when its last subscriber leaves it stops, and the next one starts its period afresh. A
 * handler that joins a running clock hears its next tick, less than a period after it joined.
 * @internal used by the shared informer.
 */
export function resyncClocks<T extends KubeObject>(options: Omit<ResyncOptions<T>, 'periodMs'>): ResyncClocks<T> {
  const clocks = new Map<number, Observable<readonly Delta<T>[]>>();
  return (periodMs) => {
    let clock = clocks.get(periodMs);
    if (clock === undefined) {
      clock = resyncPasses({ ...options, periodMs }).pipe(share());
      clocks.set(periodMs, clock);
    }
    return clock;
  };
}

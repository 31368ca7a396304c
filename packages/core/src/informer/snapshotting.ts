/**
 * An informer's persisted snapshots. The warm start: the stored snapshot read, checked and handed
 * to the scan as one more input, a `LIST` marked `restored` (the reflector then resumes the watch
 * from its resource version instead of listing). The saves: at most one per `intervalMs` while the
 * cache changes, one when the informer stops, each from one immutable state, off the event's path.
 *
 *   start ─ load(key) ─ decodeSnapshot ─▶ LIST{restored} ─▶ scan          (refused: cold start, removed)
 *   changes (deltas, bookmarks) ─ auditTime(intervalMs) ─┬─▶ encodeSnapshot(state) ─▶ save(key)
 *   stop ────────────────────────────────────────────────┘
 */
import {
  EMPTY,
  auditTime,
  catchError,
  concat,
  defer,
  from,
  map,
  mergeMap,
  of,
  switchMap,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { InvalidOptionsError, withCause } from '../errors.ts';
import { checkDuration } from '../time/duration.ts';
import { createPrepare, prepareItems } from '../store/prepare.ts';
import type { DeltaStoreState } from '../store/deltaStore.ts';
import { decodeSnapshot, encodeSnapshot } from '../snapshot/snapshotCodec.ts';
import { SecretsSnapshotError, SnapshotRejectedError, SnapshotStoreError } from '../snapshot/snapshotErrors.ts';
import { isSecrets, snapshotKey, type SnapshotIdentity } from '../snapshot/snapshotIdentity.ts';
import { isSnapshotStore, type SnapshotStore } from '../snapshot/snapshotStore.ts';
import type { InvalidObjectError } from '../errors.ts';
import type { KubeObject, ReflectorEvent } from '../types.ts';
import type { SnapshotStatus } from '../snapshotStatus.ts';

/** The `snapshot` option of `createSharedInformer`: where its snapshots are kept and whose they are. */
export interface InformerSnapshotOptions {
  /** Where snapshots are kept (`memorySnapshotStore`, `indexedDbSnapshotStore`, client-node's `fileSnapshotStore`). Required. */
  store: SnapshotStore;
  /** Whose cache it is (`snapshotIdentity`): the store key is derived from it, and a snapshot of another is refused. Required. */
  identity: SnapshotIdentity;
  /**
   * While the cache changes (events, bookmarks), at most one save per this many ms; one more when
   * the informer stops. Default 30 000: a crash loses at most that much, well inside
   * kube-apiserver's watch window (at least 75 s), so the restart still resumes.
   */
  intervalMs?: number;
  /** Persist a Secrets informer's objects (core group, `secrets`). Default false: `SecretsSnapshotError`. */
  persistSecrets?: boolean;
}

/** @internal `InformerSnapshotOptions` checked, with the key and defaults filled in. */
export interface ResolvedSnapshotOptions {
  readonly store: SnapshotStore;
  readonly identity: SnapshotIdentity;
  readonly key: string;
  readonly intervalMs: number;
}

/** The default of `intervalMs`. */
export const DEFAULT_SNAPSHOT_INTERVAL_MS = 30_000;

/**
 * @internal Checks an informer's `snapshot` option; throws `InvalidOptionsError`, or
 * `SecretsSnapshotError` for Secrets without `persistSecrets: true`.
 */
export function resolveSnapshotOptions(o: InformerSnapshotOptions | undefined): ResolvedSnapshotOptions | undefined {
  if (o === undefined) return undefined;
  if (o === null || typeof o !== 'object') throw new InvalidOptionsError('snapshot must be an object with store and identity');
  if (!isSnapshotStore(o.store)) throw new InvalidOptionsError('snapshot.store must have load, save and remove');
  const identity = o.identity as Partial<SnapshotIdentity> | undefined;
  if (typeof identity?.server !== 'string' || identity.server === '' || typeof identity.resource !== 'string')
    throw new InvalidOptionsError('snapshot.identity must be a snapshotIdentity(…), with a server');
  if (isSecrets(o.identity) && o.persistSecrets !== true) throw new SecretsSnapshotError(`an informer of ${o.identity.resource}`);
  // auditTime holds it in one timer
  const intervalMs = checkDuration('snapshot.intervalMs', o.intervalMs, DEFAULT_SNAPSHOT_INTERVAL_MS, { min: 1000, max: 'timer' });
  return { store: o.store, identity: o.identity, key: snapshotKey(o.identity), intervalMs };
}

/** A change of the informer's `SnapshotStatus`, as an input of its scan. */
export interface SnapshotInput {
  readonly type: 'snapshot';
  /** The fields that changed. */
  readonly patch: Partial<SnapshotStatus>;
}

const patch = (p: Partial<SnapshotStatus>): SnapshotInput => ({ type: 'snapshot', patch: p });

/**
 * The inputs of a warm start: `loading`, then the stored snapshot as a `LIST` marked `restored`
 * and `restored`; or `cold`, with why (a snapshot refused is removed, so the next save replaces it).
 * Objects are frozen as they are restored, not transformed again: they were stored transformed.
 */
export function restoreInputs<T extends KubeObject>(
  o: ResolvedSnapshotOptions,
  freeze?: boolean,
): Observable<ReflectorEvent<T> | SnapshotInput> {
  const loaded = defer(() => from(o.store.load(o.key))).pipe(
    map((text): (ReflectorEvent<T> | SnapshotInput)[] => {
      if (text === undefined) return [patch({ start: 'cold' })];
      const { resourceVersion, writtenAt, objects } = decodeSnapshot<T>(text, o.identity, o.key);
      const invalid: InvalidObjectError[] = [];
      const items = prepareItems(createPrepare<T>({ freeze }), objects, invalid);
      const list: ReflectorEvent<T> = { type: 'LIST', items, resourceVersion, restored: true, ...(invalid.length > 0 && { invalid }) };
      return [list, patch({ start: 'restored', restored: { resourceVersion, writtenAt, objects: items.length } })];
    }),
    catchError((error: unknown) => {
      if (error instanceof SnapshotRejectedError) o.store.remove(o.key).catch(() => undefined); // the next save overwrites it anyway
      return of([patch({ start: 'cold', restoreError: storeError(error, 'LoadFailed', o.key) })]);
    }),
    mergeMap((inputs) => inputs),
  );
  return concat(of(patch({ start: 'loading' })), loaded);
}

/** What a saver needs of its informer. */
export interface SnapshotSaverSources<T extends KubeObject> {
  /** The informer's state now. */
  current(): DeltaStoreState<T>;
  /** Emits after each step that changed the cache or its resource version. */
  changed$: Observable<unknown>;
  /** Whether the informer runs: saves are timed while it runs, and one is made when it stops. */
  running$: Observable<boolean>;
  /** Tells the informer's status of a save. */
  report(patch: SnapshotInput): void;
  /** Where the interval runs. */
  scheduler: SchedulerLike;
}

/** An informer's saver: its timer's subscription, and `save()` for a save now. */
export interface SnapshotSaver {
  /** Saves the current state if it changed since the last save (after any save in progress); rejects with its `SnapshotStoreError`. */
  save(): Promise<void>;
  /** The timer and stop trigger; unsubscribed when the informer is shut down. */
  readonly subscription: Subscription;
}

/**
 * The saves of one informer: `saveTimes` asks, `save` writes the state current then, one at a
 * time. A state is written only once it has synced (a restored snapshot not yet confirmed is the
 * stored one), and only when its store or resource version changed since the last save.
 */
export function snapshotSaver<T extends KubeObject>(o: ResolvedSnapshotOptions, sources: SnapshotSaverSources<T>): SnapshotSaver {
  let last: Pick<DeltaStoreState<T>, 'store' | 'resourceVersion'> | undefined;
  let saves = 0;
  let chain: Promise<void> = Promise.resolve();
  const saveNow = async (): Promise<void> => {
    const state = sources.current();
    const { store, resourceVersion } = state;
    if (!state.synced || resourceVersion === undefined || (last?.store === store && last.resourceVersion === resourceVersion)) return;
    try {
      const text = encodeSnapshot({ identity: o.identity, resourceVersion, writtenAt: new Date().toISOString(), objects: store.list() });
      await o.store.save(o.key, text);
    } catch (cause) {
      const error = storeError(cause, 'SaveFailed', o.key);
      sources.report(patch({ saveError: error }));
      throw error;
    }
    last = { store, resourceVersion };
    saves += 1;
    sources.report(patch({ saves, savedResourceVersion: resourceVersion, saveError: undefined }));
  };
  const save = (): Promise<void> => (chain = chain.catch(() => undefined).then(saveNow));
  const subscription = saveTimes(sources.changed$, sources.running$, o.intervalMs, sources.scheduler).subscribe(() => {
    save().catch(() => undefined); // reported on the status
  });
  return { save, subscription };
}

/**
 * When an informer's snapshot is saved: `intervalMs` after the first change that follows a save
 * (rxjs `auditTime`: at most one per interval, the latest state), and when the informer stops (a
 * timer pending then is dropped: the stop's save covers it).
 *
 * @example
 * saveTimes(changes$, running$, 30_000, asyncScheduler).subscribe(() => saver.save());
 */
export function saveTimes(
  changed$: Observable<unknown>,
  running$: Observable<boolean>,
  intervalMs: number,
  scheduler: SchedulerLike,
): Observable<unknown> {
  return defer(() => {
    let ran = false;
    return running$.pipe(
      switchMap((on) => {
        const stopped = ran && !on;
        ran = on;
        if (on) return changed$.pipe(auditTime(intervalMs, scheduler));
        return stopped ? of(undefined) : EMPTY;
      }),
    );
  });
}

/** `error` as a `SnapshotStoreError` (a rejection stays itself: it says more). */
function storeError(error: unknown, operation: 'LoadFailed' | 'SaveFailed', key: string): Error {
  if (error instanceof SnapshotRejectedError || error instanceof SnapshotStoreError) return error;
  const verb = operation === 'LoadFailed' ? 'could not read' : 'could not write';
  return new SnapshotStoreError(operation, withCause(`${verb} snapshot ${key}`, error), { key, cause: error });
}

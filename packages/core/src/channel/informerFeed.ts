/**
 * The feed of one shared informer, as a server's watches read it: its cache (for lists and initial
 * events), a bounded history of its changes as watch events (for watches from a resource version),
 * and those changes live. Derived from the informer's public streams only:
 *
 *   status$ ─ synced: begin the history at its resource version; a relist begins (relistCount) … ends (watching again)
 *   events$ ─ Added → ADDED, Updated → MODIFIED, Deleted → DELETED (Replaced: unchanged, nothing)
 *             a relist's deltas are its differences: held together, at the relist's resource version
 */
import { map, Observable, Subject, take, throwIfEmpty, filter } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import type { SharedInformer } from '../informer/sharedInformer.ts';
import { failureStatus } from './protocol.ts';
import { parseRevision, WatchHistory, type HistoryRetention, type Placement } from './watchHistory.ts';
import type { Delta, KubeObject, ReflectorStatus, WatchEvent } from '../types.ts';

/** What changed in a feed: new events (possibly none) and the resource version the informer is at. */
export interface FeedChange {
  /** The events, in order. */
  readonly events: readonly WatchEvent[];
  /** The informer's resource version after them. */
  readonly resourceVersion: string;
}

/** One informer as the server reads it. */
export interface InformerFeed {
  /** Emits once (then completes) when the informer has synced; errors with a 503 `KubeApiError` when it cannot. */
  readonly ready$: Observable<void>;
  /** Every change from now on, hot; completes when the informer is shut down. */
  readonly changes$: Observable<FeedChange>;
  /** The cache and its resource version, as they are now (once ready). */
  snapshot(): { items: readonly KubeObject[]; resourceVersion: string };
  /** The informer's resource version now. */
  resourceVersion(): string;
  /** Where a watch from `resourceVersion` starts (once ready). */
  place(resourceVersion: string): Placement;
  /** Stops following the informer. */
  close(): void;
}

/** A relist of the informer in progress: where it started, and its differences so far. */
interface Relist {
  readonly since: bigint | undefined;
  readonly events: WatchEvent[];
}

/**
 * Follows `informer` from now on, holding at most `historySize` events (and, with `retention`,
 * dropping those older than its age).
 *
 * @example
 * const feed = informerFeed(pods, 102_400, { ageMs: 75_000, now: Date.now, minKept: 1024 });
 * feed.ready$.subscribe(() => console.log(feed.place('1234')));
 */
export function informerFeed(informer: SharedInformer<KubeObject>, historySize: number, retention?: HistoryRetention): InformerFeed {
  const history = new WatchHistory(historySize, retention);
  const changes = new Subject<FeedChange>();
  let begun = false;
  /** The informer's resource versions are etcd revisions (else a watch resumes only from the head). */
  let placeable = true;
  let relists = 0;
  let relist: Relist | undefined;

  const rv = (): string => informer.lastSyncResourceVersion ?? '';
  const publish = (events: readonly WatchEvent[]): void => changes.next({ events, resourceVersion: rv() });
  const revision = (): bigint | undefined => {
    const at = parseRevision(rv());
    if (at === undefined) placeable = false;
    return at;
  };

  const onStatus = (s: ReflectorStatus): void => {
    if (!begun) {
      if (!informer.hasSynced()) return;
      begun = true;
      relists = s.relistCount;
      history.begin(revision() ?? 0n);
      return;
    }
    if (s.relistCount > relists) {
      relists = s.relistCount;
      relist ??= { since: placeable ? history.head : undefined, events: [] };
    }
    if (relist && (s.phase === 'listing' || s.phase === 'backingOff' || s.phase === 'stopped')) return;
    if (relist) {
      const done = relist;
      relist = undefined;
      const at = revision();
      if (at !== undefined && done.since !== undefined) history.relisted(done.since, at, done.events);
      publish(done.events);
      return;
    }
    const at = revision();
    if (at !== undefined && at > history.head) {
      history.advance(at);
      publish([]);
    }
  };

  const onDelta = (d: Delta<KubeObject>): void => {
    if (!begun) return; // the first list: the cache holds it
    const event = eventOf(d, rv());
    if (event === undefined) return;
    if (relist) {
      relist.events.push(event);
      return;
    }
    const at = revision();
    if (at !== undefined) history.append(at, event);
    publish([event]);
  };

  const following = informer.status$.subscribe({ next: onStatus, complete: () => changes.complete() });
  following.add(informer.events$.subscribe(onDelta));

  return {
    ready$: readiness(informer, () => begun),
    changes$: changes.asObservable(),
    snapshot: () => ({ items: informer.getStore().list(), resourceVersion: rv() }),
    resourceVersion: rv,
    place: (from) => {
      if (from === rv()) return { type: 'replay', events: [] };
      const at = parseRevision(from);
      return at === undefined || !placeable ? { type: 'expired', oldest: history.head } : history.place(at);
    },
    close: () => {
      following.unsubscribe();
      changes.complete();
    },
  };
}

/**
 * A delta as the watch event a client gets: `Deleted` with the object last known, which for a
 * tombstone (its deletion unseen: a relist found it gone, or it came back under a new UID) carries
 * the informer's resource version `rv`, as kube-apiserver's DELETED carries the deletion's.
 * `Replaced` (a relist found it unchanged) is no event.
 */
function eventOf(d: Delta<KubeObject>, rv: string): WatchEvent | undefined {
  switch (d.type) {
    case 'Added':
      return { type: 'ADDED', object: d.object };
    case 'Updated':
      return { type: 'MODIFIED', object: d.object };
    case 'Deleted': {
      const last = d.deleted.lastKnown ?? {};
      if (!d.deleted.finalStateUnknown) return { type: 'DELETED', object: last };
      return { type: 'DELETED', object: { ...last, metadata: { ...last.metadata, resourceVersion: rv } } };
    }
    default:
      return undefined;
  }
}

/**
 * Once `informer` has synced (and `begun()` says the feed followed it): emits and completes. An
 * informer not synced that failed (backing off), or is not running, is a 503 with its last error.
 */
function readiness(informer: SharedInformer<KubeObject>, begun: () => boolean): Observable<void> {
  return informer.status$.pipe(
    map((s): 'ready' | KubeApiError | undefined => {
      if (begun()) return 'ready';
      if (s.phase === 'stopped') return unavailable('its informer is not running');
      if (s.phase === 'backingOff' && s.lastError) return unavailable(`its informer has not synced: ${s.lastError.message}`);
      return undefined;
    }),
    filter((r) => r !== undefined),
    take(1),
    throwIfEmpty(() => unavailable('its informer was shut down')),
    map((r) => {
      if (r !== 'ready') throw r;
    }),
  );
}

const unavailable = (why: string): KubeApiError => {
  const message = `the server cannot answer from its cache: ${why}`;
  return new KubeApiError(503, { status: failureStatus(503, 'ServiceUnavailable', message) });
};

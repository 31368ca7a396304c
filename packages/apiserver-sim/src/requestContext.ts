/**
 * What the request handlers of the resource API read and act on: the server's parts (one
 * `RequestContext` per server, built by `startApiServer`) and the request (`ResourceCall`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from './faults.ts';
import type { RevisionWait } from './listPages.ts';
import type { ObjectStore } from './objects.ts';
import type { Query, ResourcePath } from './requestUrl.ts';
import type { ResourceInfo } from './resources.ts';
import type { Storage } from './storage.ts';
import type { WatchHub } from './watchHub.ts';
import type { SchedulerLike } from 'rxjs';

/** The server's watch settings (its `ApiServerOptions`), read when a watch starts. */
export interface WatchDefaults {
  /** Interval of BOOKMARK events when `allowWatchBookmarks=true` (default 60,000 ms). */
  readonly bookmarkIntervalMs?: number;
  /** Watch duration when the client sends no `timeoutSeconds`, or 0 (default 1800 s). */
  readonly defaultWatchTimeoutSeconds?: number;
  /** Unsent bytes after which a slow watcher is disconnected (default 64 MiB). */
  readonly maxWatchBufferBytes?: number;
  /** Where watch bookmarks and timeouts are timed (default: Node timers). */
  readonly scheduler?: SchedulerLike;
}

/** The server's parts the resource handlers use. */
export interface RequestContext {
  /** Object semantics: every read and write goes through it. */
  readonly objects: ObjectStore;
  /** The revisioned storage (lists, snapshots, watch history). */
  readonly storage: Storage;
  /** Open watches. */
  readonly hub: WatchHub;
  /** Fault injection and auth. */
  readonly faults: Faults;
  /** How requests for a future resourceVersion wait (a closing server cancels them). */
  readonly wait: RevisionWait;
  /** Watch settings. */
  readonly watch: WatchDefaults;
  /** KEP-5866's `ShardedListAndWatch` gate: list and watch honour `shardSelector`. */
  readonly shardedListAndWatch: boolean;
  /** The `WatchList` gate: off, a watch with `sendInitialEvents` is a 422. */
  readonly watchList: boolean;
}

/** One request of the resource API, as routed. */
export interface ResourceCall {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** What its path names. */
  readonly route: ResourcePath;
  /** The resource the path names. */
  readonly r: ResourceInfo;
  /** Its query parameters. */
  readonly q: Query;
}

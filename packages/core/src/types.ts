/**
 * The shared vocabulary of rxinformer: Kubernetes objects as the wire carries them, the ListerWatcher contract every transport implements
 * (and the resource descriptors and scopes that name what it lists), and the events that flow from the reflector into the delta store.
 * Everything here is plain data (no classes) so it crosses package and browser boundaries.
 */
import type { Observable } from 'rxjs';
import type { InvalidObjectError } from './errors.ts';
import type { DescriptorProjection } from './projectionTypes.ts';
import type { RestoredMark, SnapshotStatus } from './snapshotStatus.ts';
export type { DescriptorProjection, PartialDeep, Projected, Projection } from './projectionTypes.ts';

/**
 * Object metadata as the API server sends it. Only the common fields are typed, with no index
 * signature, so that client-node's `V1ObjectMeta` (a class) stays assignable to it.
 */
export interface ObjectMeta {
  /** Unique within a namespace (or the cluster, for cluster-scoped resources). */
  name?: string;
  /** Prefix from which the server generates `name` on create. */
  generateName?: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  /** Unique in time and space: a recreated object gets a new one. */
  uid?: string;
  /** Opaque: never compare resource versions as numbers. */
  resourceVersion?: string;
  /** Bumped by the server on every change of the desired state (`spec`). */
  generation?: number;
  /** RFC 3339 on the wire (a string); client-node types it as `Date`. */
  creationTimestamp?: string | Date;
  /** Set when a graceful deletion was requested; the object goes once its finalizers are done. */
  deletionTimestamp?: string | Date;
  /** Selectable key/value pairs (see `parseLabelSelector`). */
  labels?: Record<string, string>;
  /** Non-identifying key/value data; may be large (see the `transform` option). */
  annotations?: Record<string, string>;
  /** Server-side-apply bookkeeping: often a third of an object's JSON (see the `transform` option). */
  managedFields?: unknown[];
  /** Objects this one depends on (garbage collection). */
  ownerReferences?: unknown[];
  /** Blocks deletion until each is removed. */
  finalizers?: string[];
  /** Seconds allowed for graceful termination, once `deletionTimestamp` is set. */
  deletionGracePeriodSeconds?: number;
  /** Deprecated; not set by current servers. */
  selfLink?: string;
}

/**
 * Any Kubernetes object: `V1Pod` and friends from @kubernetes/client-node are assignable to it.
 * rxinformer only reads `metadata`; everything else is carried as is.
 */
export interface KubeObject {
  /** `v1` or `group/version`; list items may lack it. */
  apiVersion?: string;
  /** E.g. `Pod`; list items may lack it. */
  kind?: string;
  /** Name, namespace, UID, resource version, labels… */
  metadata?: ObjectMeta;
}

export type { Wire, WireValue } from './wire.ts'; // objects as decoded: timestamps stay strings

/** `metadata` of a list response. */
export interface ListMeta {
  /** The collection's resource version: watch from here (opaque). */
  resourceVersion?: string;
  /** Token for the next page; absent on the last page. */
  continue?: string;
  /** An estimate of the items after this page, when the server knows it. */
  remainingItemCount?: number;
}

/** One page of a list response, as decoded from the wire. */
export interface ListPage<T extends KubeObject = KubeObject> {
  /** E.g. `v1`. */
  apiVersion?: string;
  /** E.g. `PodList`. */
  kind?: string;
  /** Resource version and continue token. */
  metadata?: ListMeta;
  /** The objects of this page. */
  items: T[];
}

/** `meta/v1 Status`, the body of every API error and of watch ERROR events. */
export interface Status {
  /** Always `Status`. */
  kind?: 'Status';
  /** `v1`. */
  apiVersion?: string;
  /** Usually empty. */
  metadata?: ListMeta;
  /** `Failure` for errors. */
  status?: 'Success' | 'Failure';
  /** Human-readable description. */
  message?: string;
  /** Machine-readable cause, e.g. `Expired`, `NotFound`, `Conflict`. */
  reason?: string;
  /** The HTTP status code, e.g. 410. */
  code?: number;
  /** What the error is about, the field-level causes, and `retryAfterSeconds`. */
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** Options of one list request (`GET .../pods?limit=…`). */
export interface ListOptions {
  /** Page size; unset lists everything in one response. */
  limit?: number;
  /** The `metadata.continue` token of the previous page. */
  continue?: string;
  /** Unset = most recent (consistent read); `"0"` = any (served from cache). */
  resourceVersion?: string;
  /** How `resourceVersion` applies; unset for the reflector's lists. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** E.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** E.g. `status.phase=Running`. */
  fieldSelector?: string;
  /**
   * KEP-5866 (alpha, `ShardedListAndWatch` gate): `shardRange(object.metadata.uid, '0x…', '0x…') || …`.
   * A server without the gate ignores it: filter locally too (see `shardedListerWatcher`).
   */
  shardSelector?: string;
  /** Server-side timeout of the request, in seconds. */
  timeoutSeconds?: number;
  /**
   * The caller reads this page only and will not ask for the next one (the reflector's stall
   * check, which lists one object to learn the collection's resourceVersion). A transport that
   * requests the next page ahead (the HTTP ListerWatchers) then does not. Not sent to the server.
   */
  singlePage?: boolean;
}

/** Options of one watch request (`GET .../pods?watch=true&…`). */
export interface WatchOptions {
  /** Watch changes after this resource version (opaque); unset = from now. */
  resourceVersion?: string;
  /** `NotOlderThan` with `sendInitialEvents`. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Let the server send BOOKMARK events carrying newer resource versions. */
  allowWatchBookmarks?: boolean;
  /** The server closes the stream cleanly after this many seconds. */
  timeoutSeconds?: number;
  /** Streaming list: ADDED for every current object, then a BOOKMARK marked `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
  /** E.g. `app=web,tier!=db`; must equal the list's. */
  labelSelector?: string;
  /** E.g. `status.phase=Running`; must equal the list's. */
  fieldSelector?: string;
  /** KEP-5866's shard selector; must equal the list's. */
  shardSelector?: string;
}

/** The wire types of watch events. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One decoded line of a watch stream. `object` is a `Status` for ERROR events. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

/**
 * Not a wire event: the watch's response has arrived (its headers, for HTTP), so the stream is open
 * and live. A ListerWatcher emits it once, before any event; the reflector's status goes from
 * `connecting` to `watching` on it (or on the first event, from a ListerWatcher that never emits
 * it). A request still waiting for a connection (a browser's queue of HTTP/1.1 requests per
 * origin, a proxy that does not answer) has not opened.
 */
export interface WatchOpened {
  /** Always `OPENED`. */
  readonly type: 'OPENED';
}

/**
 * The one `WatchOpened` every ListerWatcher of this package emits (any `{ type: 'OPENED' }` does).
 *
 * @example
 * const watch = (options) => concat(of(WATCH_OPENED), myEvents(options)); // a custom ListerWatcher's watch, open at once
 */
export const WATCH_OPENED: WatchOpened = Object.freeze({ type: 'OPENED' });

/** What a ListerWatcher's watch emits: the wire's events, and once `WatchOpened` when the stream is open. */
export type WatchItem<T extends KubeObject = KubeObject> = WatchEvent<T> | WatchOpened;

/** The annotation on the BOOKMARK that ends the initial events of a streaming list. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * The transport contract, the equivalent of client-go's `cache.ListerWatcher`.
 *
 * Both methods return **cold** Observables: nothing is sent until subscription, and
 * unsubscribing aborts the HTTP request. Failures are `KubeApiError` (an HTTP status or a
 * Status body), `WatchDecodeError` (a malformed line) or any network error (the HTTP
 * ListerWatchers type theirs: `NetworkError`, `RequestTimeoutError`, `WatchConnectTimeoutError`,
 * `ResponseTooLargeError`), delivered as the Observable's error. A watch that the server ends
 * cleanly completes. A watch says when it is open (`WATCH_OPENED`, once, when its response has
 * arrived), so that a watch still waiting for a connection is reported `connecting`, not `watching`.
 *
 * @example
 * const lw: ListerWatcher<Wire<V1Pod>> = fetchListerWatcher({ baseUrl, path: '/api/v1/pods' });
 * lw.list({ limit: 500 }).subscribe((page) => console.log(page.items.length));
 */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  /** Lists one page. */
  list(options: ListOptions): Observable<ListPage<T>>;
  /**
   * Opens a watch stream; emits `WATCH_OPENED` once the server has answered, then one event per
   * line until the server closes it. A ListerWatcher that cannot tell when its stream opens may
   * leave `OPENED` out: its watches are `connecting` until their first event (a bookmark comes
   * about once a minute from kube-apiserver).
   */
  watch(options: WatchOptions): Observable<WatchItem<T>>;
  /**
   * True when `watch` serves streaming lists (`sendInitialEvents`: every object as `ADDED`, then
   * the `k8s.io/initial-events-end` bookmark, or the server's refusal). Reflectors stream only from
   * one that says so (HTTP, channel and client-node ListerWatchers do); others page. Default false.
   */
  readonly watchList?: boolean;
}

/** Names a resource: its group, version and plural name, and whether it lives in namespaces. */
export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group; `""` for the core group. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  /**
   * E.g. `Pod`; optional, for display and discovery. With it, the factory's informers skip objects
   * of another kind (see the reflector's `expectedType`); without it, only `apiVersion` is checked.
   */
  kind?: string;
  /** True for namespaced resources (pods), false for cluster-scoped ones (nodes). */
  namespaced: boolean;
  /**
   * True: its informers list and watch `PartialObjectMetadata` (each object's metadata only) and
   * expect that type; a factory keeps them apart from the full informers. Set by `metadataOnly()`.
   * Default false.
   */
  metadataOnly?: boolean;
  /**
   * Its informers keep each object as this projection makes it (only the field paths a view
   * shows); a factory keeps them apart from the full informers, one per projection. Set by
   * `projected()`. Default: none, whole objects.
   */
  projection?: DescriptorProjection;
  /**
   * True: its informers list and watch the server's Table rows (`as=Table`, kubectl's columns),
   * each kept as a `TableRowObject`; a factory keeps them apart. Set by `tableRows()`. Default false.
   */
  table?: boolean;
  /** Carries the object type only; never set. */
  readonly __type?: T;
}

/** Where an informer lists and watches: its namespace (namespaced resources) and selectors. */
export interface InformerScope {
  /** Only this namespace (namespaced resources). Default: all namespaces. */
  namespace?: string;
  /** Only objects matching this label selector. Default: none. */
  labelSelector?: string;
  /** Only objects matching this field selector. Default: none. */
  fieldSelector?: string;
}

/** Makes the ListerWatcher of a resource in a scope; the scope applies to both list and watch. */
export type ListerWatcherSource = <T extends KubeObject>(resource: ResourceDescriptor<T>, scope: InformerScope) => ListerWatcher<T>;

/**
 * What the reflector emits, in order, for the delta store to apply: the wire's words, with the
 * list's result in the same style.
 *
 * - `LIST`: the complete state after a list (paged or streamed), applied atomically.
 * - `ADDED` / `MODIFIED` / `DELETED`: one watch event.
 * - `BOOKMARK`: the server's resource version moved on with no object change.
 * - `STATUS`: the reflector's condition changed (phase, error, relist count); no store change.
 *
 * A reflector given a `prepare` function (the shared informer's) emits prepared objects; those it
 * could not prepare are left out of a `LIST`'s `items` and reported in its `invalid`, and an event
 * whose object could not be prepared carries the raw object and the error in `invalid`. A `LIST` marked `restored` is an informer's persisted snapshot.
 */
export type ReflectorEvent<T extends KubeObject = KubeObject> =
  | ({ type: 'LIST'; items: readonly T[]; resourceVersion: string; invalid?: readonly InvalidObjectError[] } & RestoredMark)
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T; invalid?: InvalidObjectError }
  | { type: 'BOOKMARK'; resourceVersion: string }
  | { type: 'STATUS'; status: ReflectorStatus };

/**
 * The phase of the reflector's state machine:
 * - `listing`: a list (paged, or streamed with `sendInitialEvents`) is running.
 * - `connecting`: a watch was sent and has not opened yet (no `WATCH_OPENED`, no event): no change
 *   reaches the cache. A browser page's 7th watch over HTTP/1.1 waits here for a free connection.
 * - `watching`: the watch is open; changes reach the cache as the server sends them.
 * - `backingOff`: waiting after a failure (`lastError`, `backoffMs`) to list or watch again.
 * - `stopped`: not running (the informer's status before `start()` and after `stop()`).
 *
 * Caveat: code that switches on the phase must handle every one; `connecting` came after the
 * others (treat it as "not live yet", never as a failure).
 */
export type ReflectorPhase = 'listing' | 'connecting' | 'watching' | 'backingOff' | 'stopped';

/** A snapshot of the reflector's condition, emitted on every change. */
export interface ReflectorStatus {
  /** What the reflector is doing now. */
  phase: ReflectorPhase;
  /** The last failure, kept until the next successful list or watch event. */
  lastError?: Error;
  /**
   * A standing condition that costs no data, kept while it lasts rather than until the next good
   * event: `NotPartialMetadataError`, full objects answered to a metadata-only request (reduced to
   * their metadata), kept until a list answers with metadata only. Also reported once as `lastError`.
   */
  warning?: Error;
  /** How many times the reflector has listed after its first list. */
  relistCount: number;
  /**
   * How many watches were found stalled (silent while the server moved on; see the reflector's
   * `stallCheck`) and re-established. Absent until the first.
   */
  stalledWatches?: number;
  /**
   * The resource version of the last complete list or bookmark. Watch events do not emit a status
   * (the hot path): the informer's `lastSyncResourceVersion` follows every event.
   */
  lastSyncResourceVersion?: string;
  /** True once the first complete list has been emitted (or a restored snapshot confirmed). */
  hasSynced: boolean;
  /** When backing off: the delay before the next attempt, in milliseconds. */
  backoffMs?: number;
  /** While a paged list runs: pages and objects received so far (reset when a list starts). */
  listProgress?: {
    /** Pages received so far. */
    pages: number;
    /** Objects received so far. */
    items: number;
  };
  /** With a snapshot store: how it started, its saves. */ snapshot?: SnapshotStatus;
}

/** An index function: the index values an object is filed under (e.g. its namespace). */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly string[];

/** Index functions by index name. */
export type Indexers<T extends KubeObject = KubeObject> = Record<string, IndexFunc<T>>;

/**
 * An immutable, frozen snapshot of the cache with its indexes (client-go's `Indexer`, read side).
 * A snapshot never changes: every applied event produces a new one that shares structure with
 * the old, so keeping a reference to an old snapshot is safe and cheap.
 */
export interface Store<T extends KubeObject = KubeObject> {
  /** Number of objects. */
  readonly size: number;
  /** The object stored under `key` (`namespace/name` or `name`). */
  get(key: string): T | undefined;
  /** Every object, in no particular order. */
  list(): readonly T[];
  /** Every key. */
  keys(): readonly string[];
  /** The objects filed under `value` in index `indexName`; throws `IndexerError` for an unknown index. */
  byIndex(indexName: string, value: string): readonly T[];
  /** The keys filed under `value` in index `indexName`. */
  indexKeys(indexName: string, value: string): readonly string[];
  /** Every value of index `indexName` that has at least one object. */
  listIndexValues(indexName: string): readonly string[];
  /** The index names this snapshot maintains. */
  indexNames(): readonly string[];
}

export { objectOf } from './delta.ts'; // the store's deltas (client-go's vocabulary), one shape per type
export type { AddedDelta, DeletedDelta, DeletedObject, Delta, DeltaType, SyncDelta, UpdatedDelta } from './delta.ts';

/**
 * The server side of the channel: answers each client's lists and watches from shared informers'
 * caches, never from the API server. One feed (history, live changes) per informer, shared by every
 * connection, so a client that reconnects resumes from its resource version without a resend.
 */
import { asapScheduler, asyncScheduler, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import { checkNumber, checkScheduler, InvalidOptionsError } from '../errors.ts';
import type { SharedInformer } from '../informer/sharedInformer.ts';
import { checkDuration } from '../time/duration.ts';
import type { ChannelConnection } from './connection.ts';
import { informerFeed, type InformerFeed } from './informerFeed.ts';
import { serveConnection, type ServerContext } from './serveConnection.ts';
import type { StreamRequest } from './protocol.ts';
import type { InformerScope, KubeObject, ResourceDescriptor } from '../types.ts';

/**
 * What one stream sees of an informer: the informer, and optionally which of its objects the
 * stream carries, how each is sent, and when the stream must end. What an `informerFor` returns
 * for a user who may see part of a resource (a hub's authorization).
 *
 * @example
 * // Only the pods of namespaces `allowed` has, until `revoked$` says otherwise:
 * const view: InformerView = { informer: pods, admit: (o) => allowed.has(o.metadata?.namespace ?? ''), end$: revoked$ };
 */
export interface InformerView {
  /** The informer (running) whose cache and changes the stream serves. */
  readonly informer: SharedInformer<KubeObject>;
  /**
   * Whether the stream carries `object`: the others are left out of pages, of a watch's first events,
   * of its history and of its live events (a change left out entirely sends nothing, not even a
   * BOOKMARK). Must not change over the stream's life: end it with `end$` when it would.
   */
  admit?: (object: KubeObject) => boolean;
  /**
   * The object as the stream sends it (a projection), for every object sent (pages, events). Called
   * per stream: memoize it across streams (the informer's objects are immutable: a `WeakMap` keyed
   * by the object serves).
   */
  transform?: (object: KubeObject) => KubeObject;
  /** When it emits an error value, the stream fails with it (a `KubeApiError`: 403, 410 as it is). */
  readonly end$?: Observable<unknown>;
}

/** What an `informerFor` may return: an informer, a view of one, or a promise of either. */
export type ServedInformer = SharedInformer<KubeObject> | InformerView;

/** Options of `createInformerServer`; `P` is what `serve` is told of each connection's peer (a hub's user). */
export interface InformerServerOptions<P = undefined> {
  /**
   * The informer that answers a request for `resource` in `scope`, running (an informer factory's,
   * started): e.g. `(resource, scope) => factory.informerFor(resource, scope)`, or an `InformerView`
   * of one. May return a promise (an authorization check first), and may throw or reject to refuse:
   * a `KubeApiError` is answered as it is (403 Forbidden, 429), an `InvalidOptionsError` as 400,
   * anything else as 500. `request` holds the whole request (fields a hub adds, such as a cluster
   * name, in its `extra`); `peer` is what `serve` was given with the connection. Required.
   */
  informerFor(
    resource: ResourceDescriptor,
    scope: InformerScope,
    request: StreamRequest,
    peer: P,
  ): ServedInformer | PromiseLike<ServedInformer>;
  /**
   * Most events of each informer kept for watches that resume (a client that reconnects, a watch
   * that timed out): one from further back is answered 410, and the client relists from the cache.
   * A cap on `historyMs`' window, against a burst. Default 102 400 (kube-apiserver's watch cache's
   * upper bound).
   */
  historySize?: number;
  /**
   * How long each informer's events are kept for watches that resume, in ms: every event of the
   * last `historyMs` (up to `historySize`), as kube-apiserver's watch cache keeps at least 75 s;
   * older ones are dropped, except the last 1024 of a quiet informer. Any length; `Infinity` keeps
   * events by `historySize` alone. The events hold the objects' old versions: 75 s at 180
   * writes/s of 4 KB pods is ~13,500 events, up to ~50 MB. Default 75 000.
   */
  historyMs?: number;
  /**
   * Time between the BOOKMARKs of an idle watch that allows them, in ms. Default 60 000
   * (kube-apiserver's). Every duration here is a number of any length (a timer past a JavaScript
   * timer's 24.8 days is split, not fired at once; a watch's `timeoutSeconds` too); NaN, Infinity
   * and values under the least throw `InvalidOptionsError`.
   */
  bookmarkIntervalMs?: number;
  /** How long a paged list's snapshot stays pinned after its last page, in ms (>= 1). Default 120 000. */
  continueTtlMs?: number;
  /** Paged lists one connection may hold pinned at once (the oldest goes first). Default 16. */
  maxPinnedLists?: number;
  /** How long a list or watch at a resource version the cache has not reached waits, in ms (then 410). Default 3000. */
  rvWaitMs?: number;
  /** Streams (lists and watches) one connection may have open; more are answered 429. Default 1024. */
  maxStreams?: number;
  /**
   * A connection from which nothing came for this long is closed (a tab closed without a `bye`;
   * clients ping every `heartbeatMs`, 30 s by default). Default 180 000: browsers run the timers
   * of background tabs once a minute.
   */
  idleTimeoutMs?: number;
  /** Most events in one `events` message (a streaming list of 30 000 objects goes in several). Default 1000. */
  maxEventsPerMessage?: number;
  /**
   * How long each watch gathers its events before sending them as one message, in ms, coalesced by
   * key: the latest version of each object, and nothing of one added and deleted within the batch.
   * A client then handles one message per batch however fast the cluster changes (a page: one per
   * animation frame at 16). 0 sends at the end of each task, every event. At most 60 000: a batch
   * delays every event by up to its length. Default 0 (`hostInformers`: 16).
   */
  batchMs?: number;
  /** Where time runs (bookmarks, timeouts, waits) and batches are sent. Default: `asyncScheduler`, batches at the end of the task. */
  scheduler?: SchedulerLike;
  /**
   * On a connection that reports its backlog (`ChannelConnection.backpressure`): at this many
   * bytes buffered, watch events are held for it, coalesced by key. Default 1 MiB.
   */
  highWaterBytes?: number;
  /** Past this many bytes of events held for one stream (estimated), the stream fails with 410 and its client relists. Default 8 MiB. */
  maxPendingBytes?: number;
  /** Told when events were coalesced away for a slow connection (`coalesced`, how many) and when a stream was failed with 410 (`resync`). */
  onBackpressure?: (what: 'coalesced' | 'resync', count: number) => void;
}

/** A running server: serves any number of connections. */
export interface InformerServer<P = undefined> {
  /**
   * Serves `connection` until it closes, a `bye` comes, it is idle past `idleTimeoutMs`, or the
   * returned subscription is unsubscribed (which closes it). `peer` (the connection's user, say) is
   * handed to `informerFor` with each of its requests.
   */
  serve(connection: ChannelConnection, peer?: P): Subscription;
  /** Says `bye` to every connection and closes it, and stops following every informer. Idempotent. */
  shutdown(): void;
}

/**
 * Creates a server of informers over channel connections.
 *
 * @example
 * const factory = createInformerFactory(source);
 * factory.start();
 * const server = createInformerServer({ informerFor: (resource, scope) => factory.informerFor(resource, scope) });
 * server.serve(messagePortConnection(port));
 *
 * Caveat: resource versions are compared as etcd revisions (integers), as kube-apiserver's watch
 * cache does: with a server whose are not, a watch resumes only from the newest, else 410 and relist.
 */
export function createInformerServer<P = undefined>(options: InformerServerOptions<P>): InformerServer<P> {
  const context = resolve(options);
  const feeds = new Map<SharedInformer<KubeObject>, InformerFeed>();
  const sessions = new Set<Subscription>();
  let stopped = false;
  const feedOf = (informer: SharedInformer<KubeObject>): InformerFeed => {
    let feed = feeds.get(informer);
    if (!feed) {
      const made = informerFeed(informer, context.historySize, {
        ageMs: context.historyMs,
        now: () => context.scheduler.now(),
        minKept: MIN_KEPT_EVENTS,
      });
      made.changes$.subscribe({ complete: () => feeds.delete(informer) });
      feeds.set(informer, (feed = made));
    }
    return feed;
  };
  return {
    serve: (connection, peer) => {
      if (stopped) {
        connection.send({ t: 'bye' });
        connection.close();
        return Subscription.EMPTY;
      }
      const informerFor: ServerContext['informerFor'] = (resource, scope, request) =>
        options.informerFor(resource, scope, request, peer as P);
      const session = serveConnection(connection, { ...context, feedOf, informerFor, onBackpressure: options.onBackpressure });
      sessions.add(session);
      session.add(() => sessions.delete(session));
      return session;
    },
    shutdown: () => {
      if (stopped) return;
      stopped = true;
      for (const session of [...sessions]) session.unsubscribe();
      for (const feed of [...feeds.values()]) feed.close();
    },
  };
}

/** Events of an informer kept whatever their age (`historyMs` drops older ones past these). */
const MIN_KEPT_EVENTS = 1024;

type Resolved = Omit<ServerContext, 'feedOf' | 'informerFor'> & { historySize: number; historyMs: number };

function resolve<P>(options: InformerServerOptions<P>): Resolved {
  if (options === null || typeof options !== 'object' || typeof options.informerFor !== 'function')
    throw new InvalidOptionsError('createInformerServer needs an informerFor function');
  checkScheduler(options.scheduler);
  const integer = { integer: true };
  return {
    historySize: checkNumber('historySize', options.historySize, 102_400, 1, integer),
    historyMs: checkDuration('historyMs', options.historyMs, 75_000, { infinite: true }),
    // The durations: any length, waited out by the long timers (continueTtlMs is compared with the clock).
    bookmarkIntervalMs: checkDuration('bookmarkIntervalMs', options.bookmarkIntervalMs, 60_000, { min: 1 }),
    continueTtlMs: checkDuration('continueTtlMs', options.continueTtlMs, 120_000, { min: 1 }),
    maxPinnedLists: checkNumber('maxPinnedLists', options.maxPinnedLists, 16, 1, integer),
    rvWaitMs: checkDuration('rvWaitMs', options.rvWaitMs, 3000),
    maxStreams: checkNumber('maxStreams', options.maxStreams, 1024, 1, integer),
    idleTimeoutMs: checkDuration('idleTimeoutMs', options.idleTimeoutMs, 180_000, { min: 1 }),
    maxEventsPerMessage: checkNumber('maxEventsPerMessage', options.maxEventsPerMessage, 1000, 1, integer),
    batchMs: checkDuration('batchMs', options.batchMs, 0, { max: 60_000 }),
    highWaterBytes: checkNumber('highWaterBytes', options.highWaterBytes, 1 << 20, 0),
    maxPendingBytes: checkNumber('maxPendingBytes', options.maxPendingBytes, 8 << 20, 0),
    scheduler: options.scheduler ?? asyncScheduler,
    flushScheduler: options.scheduler ?? asapScheduler,
  };
}

/**
 * The client side of the channel: a `ListerWatcherSource` whose lists and watches are streams
 * multiplexed over one connection, made by `connect()` when first needed and again (with backoff)
 * after it drops. Core's informers ride it unchanged: the reflector pages, watches from its resource
 * version, relists on 410 and backs off as over HTTP; the server answers from its informers' caches.
 */
import {
  asyncScheduler,
  AsyncSubject,
  concatMap,
  defer,
  from,
  Observable,
  of,
  throwError,
  type SchedulerLike,
  type Subscriber,
} from 'rxjs';
import { checkScheduler, InvalidOptionsError, NetworkError, RxInformerError } from '../errors.ts';
import { backoffSuccess, nextBackoff, resolveBackoff, type BackoffOptions, type BackoffState } from '../time/backoff.ts';
import { checkDuration } from '../time/duration.ts';
import { timerAfter } from '../time/longTimer.ts';
import { errorOfStatus } from './channelErrors.ts';
import { ClientSession, type SessionTiming, type StreamHandler, type StreamMessage } from './clientSession.ts';
import type { ChannelConnection } from './connection.ts';
import type { ListRequest, WatchRequest } from './protocol.ts';
import { WATCH_OPENED } from '../types.ts';
import type {
  InformerScope,
  KubeObject,
  ListerWatcher,
  ListerWatcherSource,
  ListPage,
  ResourceDescriptor,
  WatchEvent,
  WatchItem,
} from '../types.ts';

/** Makes a new connection to the server (a new MessageChannel to a worker, a WebSocket to a hub). */
export type ChannelConnect = () => ChannelConnection | PromiseLike<ChannelConnection>;

/** Options of `channelListerWatcherSource`. */
export interface ChannelClientOptions {
  /**
   * Waits between connection attempts after failures (the first after a healthy connection at
   * once). Defaults: 500 ms doubling to 30 s, jitter 0.5, reset after 2 min.
   */
  reconnectBackoff?: BackoffOptions;
  /**
   * Time between pings, in ms (the server closes a connection silent for its `idleTimeoutMs`): a
   * number >= 1 of any length; NaN, Infinity and smaller values throw `InvalidOptionsError`. Default 30 000.
   */
  heartbeatMs?: number;
  /** A connection on which the server sent nothing (not even a pong) for this long is closed, in ms: >= 1, any length, as `heartbeatMs`. Default 90 000. */
  idleTimeoutMs?: number;
  /** Where time runs (backoff, heartbeat). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Source of randomness for the backoff's jitter. Default `Math.random`. */
  random?: () => number;
}

/** A `ListerWatcherSource` over a channel, which can be closed. */
export type ChannelListerWatcherSource = ListerWatcherSource & {
  /** Closes the connection (`bye`): every stream fails, and no new one connects. Idempotent. */
  close(): void;
  /**
   * A source over the same connection whose requests carry `fields` beside the protocol's (a hub's
   * `cluster` and `projection`; the server reads them as the request's `extra`). Fields of the
   * protocol's names (`t`, `id`, `resource`, `scope`, `options`) are refused.
   *
   * @example
   * const prod = createInformerFactory(source.withFields({ cluster: 'prod' })); // same WebSocket, another cluster
   */
  withFields(fields: Readonly<Record<string, unknown>>): ListerWatcherSource;
};

/**
 * A `ListerWatcherSource` whose lists and watches go over one channel connection at a time.
 * Unsubscribing a list or watch cancels its stream on the server. A dropped connection fails every
 * stream on it with a `NetworkError` (`ConnectionReset`): each reflector backs off and resumes from
 * its resource version over the next connection, which the server serves from its history.
 *
 * @example
 * const source = channelListerWatcherSource(() => messagePortConnection(port));
 * const factory = createInformerFactory(source);
 * const pods = factory.informerFor(podsResource);
 * factory.start();
 *
 * Caveat: the server answers from its own informers: its informer's `transform` has already run on
 * what arrives, and its scope is the request's (namespace, selectors).
 */
export function channelListerWatcherSource(connect: ChannelConnect, options: ChannelClientOptions = {}): ChannelListerWatcherSource {
  if (typeof connect !== 'function') throw new InvalidOptionsError('channelListerWatcherSource needs a connect function');
  const connector = connectorOf(connect, options);
  const sourceWith = (fields: Readonly<Record<string, unknown>>): ListerWatcherSource => {
    for (const name of ['t', 'id', 'resource', 'scope', 'options'])
      if (Object.hasOwn(fields, name)) throw new InvalidOptionsError(`withFields: ${name} is the protocol's own field`);
    const extra = { ...fields };
    return <T extends KubeObject>(resource: ResourceDescriptor<T>, scope: InformerScope): ListerWatcher<T> => {
      const base = { ...extra, resource: wireDescriptor(resource), scope: wireScope(scope) };
      return {
        list: (o) => stream(connector.session, { t: 'list', ...base, options: o }, listHandler<T>),
        watch: (o) => stream(connector.session, { t: 'watch', ...base, options: o }, watchHandler<T>),
        watchList: true, // the serving side answers sendInitialEvents (serveWatch)
      };
    };
  };
  return Object.assign(sourceWith({}), { close: connector.close, withFields: sourceWith });
}

/** The connections of one client: one at a time, made on demand, with backoff after failures. */
function connectorOf(connect: ChannelConnect, options: ChannelClientOptions) {
  checkScheduler(options.scheduler);
  const scheduler = options.scheduler ?? asyncScheduler;
  // Any length: the session's timers wait them out (past a JavaScript timer's 24.8 days too).
  const heartbeatMs = checkDuration('heartbeatMs', options.heartbeatMs, 30_000, { min: 1 });
  const idleTimeoutMs = checkDuration('idleTimeoutMs', options.idleTimeoutMs, 90_000, { min: 1 });
  const policy = resolveBackoff({ initialMs: 500, ...options.reconnectBackoff });
  const random = options.random ?? Math.random;
  let current: ClientSession | undefined;
  let attempt: AsyncSubject<ClientSession> | undefined;
  let backoff: BackoffState = { failures: 0 };
  let waitMs = 0;
  let closed = false;

  const failed = (error: unknown, firstImmediate: boolean): void => {
    const next = nextBackoff(backoff, error, scheduler.now(), policy, random, { firstImmediate });
    backoff = next.state;
    waitMs = next.delayMs;
  };
  // The end of a greeted session counts as a failure after health (a failed greeting is counted below).
  const timing: SessionTiming = { scheduler, heartbeatMs, idleTimeoutMs, onClose: (e, greeted) => greeted && failed(e, true) };
  const start = (): AsyncSubject<ClientSession> => {
    const result = new AsyncSubject<ClientSession>();
    timerAfter(waitMs, scheduler)
      .pipe(
        concatMap(() => defer(() => asObservable(connect()))),
        concatMap((connection) => {
          if (!closed) return new ClientSession(connection, timing).ready$;
          connection.close();
          throw terminated();
        }),
      )
      .subscribe({
        next: (session) => {
          current = session;
          attempt = undefined;
          backoff = backoffSuccess(backoff, scheduler.now());
          result.next(session);
          result.complete();
        },
        error: (error) => {
          attempt = undefined;
          failed(error, false);
          result.error(asNetworkError(error));
        },
      });
    return result;
  };
  return {
    session: (): Observable<ClientSession> =>
      defer(() => {
        if (closed) return throwError(terminated);
        if (current?.open) return of(current);
        return (attempt ??= start());
      }),
    close: (): void => {
      if (closed) return;
      closed = true;
      current?.close(terminated(), true);
    },
  };
}

const terminated = (): NetworkError => new NetworkError('Terminated', 'the channel client was closed');

const asObservable = <T>(v: T | PromiseLike<T>): Observable<T> =>
  typeof (v as { then?: unknown } | null)?.then === 'function' ? from(v as PromiseLike<T>) : of(v as T);

/** A failure to connect as the `NetworkError` a reflector reports (typed errors of our own kept). */
function asNetworkError(error: unknown): Error {
  if (error instanceof RxInformerError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new NetworkError('NetworkFailure', `could not connect the channel: ${detail}`, { cause: error });
}

/**
 * One request as a cold Observable: sent when subscribed (over the current connection, or the next),
 * cancelled on the server when unsubscribed before its end.
 */
function stream<R>(
  session: () => Observable<ClientSession>,
  request: Omit<ListRequest, 'id'> | Omit<WatchRequest, 'id'>,
  handlerFor: (subscriber: Subscriber<R>) => StreamHandler,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    let sent: { session: ClientSession; id: string } | undefined;
    const connecting = session().subscribe({
      next: (s) => (sent = { session: s, id: s.request(request, handlerFor(subscriber)) }),
      error: (e) => subscriber.error(e),
    });
    return () => {
      connecting.unsubscribe();
      sent?.session.cancel(sent.id);
    };
  });
}

/** A list's stream: one `page`, or one `error`. */
function listHandler<T extends KubeObject>(subscriber: Subscriber<ListPage<T>>): StreamHandler {
  return {
    message: (m) => {
      if (m.t === 'page' && m.page !== null && typeof m.page === 'object') {
        subscriber.next(m.page as ListPage<T>);
        subscriber.complete();
      } else if (!ended(m, subscriber)) unexpected(m, 'list');
    },
    fail: (error) => subscriber.error(error),
  };
}

/** A watch's stream: `open` (the reflector's `connecting` ends: `WATCH_OPENED`), `events` until `end` or `error`. */
function watchHandler<T extends KubeObject>(subscriber: Subscriber<WatchItem<T>>): StreamHandler {
  return {
    message: (m) => {
      if (m.t === 'open') subscriber.next(WATCH_OPENED);
      else if (m.t === 'events' && Array.isArray(m.events)) for (const event of m.events as WatchEvent<T>[]) subscriber.next(event);
      else if (m.t === 'end') subscriber.complete();
      else if (!ended(m, subscriber)) unexpected(m, 'watch');
    },
    fail: (error) => subscriber.error(error),
  };
}

/** An `error` message ends the stream with the `KubeApiError` of its Status; false for any other message. */
function ended(m: StreamMessage, subscriber: Subscriber<never>): boolean {
  if (m.t !== 'error' || m.status === null || typeof m.status !== 'object') return false;
  subscriber.error(errorOfStatus(m.status));
  return true;
}

function unexpected(m: StreamMessage, what: string): never {
  throw new Error(`a malformed ${JSON.stringify(String(m.t).slice(0, 16))} message on a ${what}`);
}

/** The descriptor's protocol fields only (a descriptor may carry more, even functions, which a port cannot clone). */
function wireDescriptor(r: ResourceDescriptor): ResourceDescriptor {
  const { group, version, resource, kind, namespaced, metadataOnly } = r;
  return { group, version, resource, namespaced, ...(kind !== undefined && { kind }), ...(metadataOnly && { metadataOnly }) };
}

function wireScope(s: InformerScope): InformerScope {
  const { namespace, labelSelector, fieldSelector } = s;
  return {
    ...(namespace !== undefined && { namespace }),
    ...(labelSelector !== undefined && { labelSelector }),
    ...(fieldSelector !== undefined && { fieldSelector }),
  };
}

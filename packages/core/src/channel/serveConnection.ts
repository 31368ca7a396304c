/**
 * One connection of an informer server: the `hello`, then each request run as a stream of its
 * own (list or watch over the informer's feed), its answers written by a `StreamWriter`. A message
 * that is not one the protocol allows is answered with a typed `error` and changes nothing else.
 */
import { defer, from, of, switchMap, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { SharedInformer } from '../informer/sharedInformer.ts';
import { scheduleAfter } from '../time/longTimer.ts';
import { statusOfError } from './channelErrors.ts';
import { parseClientMessage } from './clientMessages.ts';
import type { ChannelConnection } from './connection.ts';
import type { InformerFeed } from './informerFeed.ts';
import { CHANNEL_PROTOCOL_VERSION, failureStatus, type ServerMessage, type StreamRequest } from './protocol.ts';
import { ListPins, serveList } from './serveList.ts';
import { serveWatch, type WatchOutput } from './serveWatch.ts';
import { streamWriter } from './streamWriter.ts';
import type { InformerScope, KubeObject, ListPage, ResourceDescriptor, WatchEvent } from '../types.ts';

/** What a connection is served with: the server's resolved options and its feeds. */
export interface ServerContext {
  readonly bookmarkIntervalMs: number;
  readonly continueTtlMs: number;
  readonly maxPinnedLists: number;
  readonly rvWaitMs: number;
  readonly maxStreams: number;
  readonly idleTimeoutMs: number;
  readonly maxEventsPerMessage: number;
  /** Timers. */
  readonly scheduler: SchedulerLike;
  /** Where gathered events are sent from (the end of the task). */
  readonly flushScheduler: SchedulerLike;
  /** The feed of an informer, shared by every connection. */
  feedOf(informer: SharedInformer<KubeObject>): InformerFeed;
  informerFor(
    resource: ResourceDescriptor,
    scope: InformerScope,
    request: StreamRequest,
  ): SharedInformer<KubeObject> | PromiseLike<SharedInformer<KubeObject>>;
}

/** What the parts of one connection share: how to answer, its streams and its pinned lists. */
interface Session {
  readonly context: ServerContext;
  readonly streams: Map<string, Subscription>;
  readonly pins: ListPins;
  /** Sends a message (throws what the transport throws). */
  reply(message: ServerMessage): void;
  /** Sends an `error` (for stream `id`, or the connection), whatever the transport says. */
  refuse(id: string | undefined, code: number, reason: string, message: string, retryAfterSeconds?: number): void;
}

/** Serves `connection` until it ends; unsubscribing the result ends it (with a `bye`). */
export function serveConnection(connection: ChannelConnection, context: ServerContext): Subscription {
  const life = new Subscription();
  let open = true;
  const reply = (message: ServerMessage): void => {
    if (open) connection.send(message);
  };
  const session: Session = {
    context,
    streams: new Map(),
    pins: new ListPins(context.maxPinnedLists, context.continueTtlMs, () => context.scheduler.now()),
    reply,
    refuse: (id, code, reason, message, retryAfterSeconds) =>
      void answered(session, {
        t: 'error',
        ...(id !== undefined && { id }),
        status: failureStatus(code, reason, message, retryAfterSeconds),
      }),
  };
  let greeted = false;
  let idle = Subscription.EMPTY;
  // Anything from the client proves it alive: the idle timer starts again.
  const rearm = () => {
    idle.unsubscribe();
    idle = scheduleAfter(context.scheduler, context.idleTimeoutMs, () => life.unsubscribe());
  };
  const onMessage = (raw: unknown): void => {
    rearm();
    const m = parseClientMessage(raw);
    if ('refused' in m) return session.refuse(m.id, 400, 'BadRequest', m.refused);
    switch (m.t) {
      case 'hello':
        if (m.v !== CHANNEL_PROTOCOL_VERSION) {
          const why = `protocol version ${m.v} is not served; this server speaks ${CHANNEL_PROTOCOL_VERSION}`;
          session.refuse(undefined, 400, 'UnsupportedVersion', why);
          return life.unsubscribe();
        }
        greeted = true;
        return void answered(session, { t: 'hello', v: CHANNEL_PROTOCOL_VERSION });
      case 'ping':
        return void answered(session, { t: 'pong' });
      case 'bye':
        return life.unsubscribe();
      case 'cancel':
        return session.streams.get(m.id)?.unsubscribe();
      default:
        if (!greeted) return session.refuse(m.id, 400, 'BadRequest', 'send hello first');
        admit(session, m);
    }
  };
  rearm();
  life.add(connection.messages$.subscribe({ next: onMessage, complete: () => life.unsubscribe() }));
  life.add(() => {
    idle.unsubscribe();
    for (const stream of [...session.streams.values()]) stream.unsubscribe();
    answered(session, { t: 'bye' });
    open = false;
    connection.close();
  });
  return life;
}

/** Sends `message`; false when the transport refused it (it is closing: its end comes next). */
function answered(session: Session, message: ServerMessage): boolean {
  try {
    session.reply(message);
    return true;
  } catch {
    return false;
  }
}

/** A request, once greeted: refused when its id is in use (both end) or too many streams are open, else run. */
function admit(session: Session, request: StreamRequest): void {
  const { streams, context } = session;
  const existing = streams.get(request.id);
  if (existing) {
    existing.unsubscribe();
    return session.refuse(request.id, 400, 'BadRequest', `stream id ${JSON.stringify(request.id)} is in use: both ended`);
  }
  if (streams.size >= context.maxStreams)
    return session.refuse(request.id, 429, 'TooManyRequests', `more than ${context.maxStreams} streams on one connection`, 1);
  runStream(session, request);
}

/** Runs one stream: its answers written as they come, its end (or failure) sent, then it leaves the session. */
function runStream(session: Session, request: StreamRequest): void {
  const { id } = request;
  const { context } = session;
  const stream = new Subscription();
  session.streams.set(id, stream);
  const fail = (error: unknown) => {
    session.refuse(id, 500, 'InternalError', `the stream could not be sent: ${(error as Error)?.message ?? String(error)}`);
    stream.unsubscribe();
  };
  const writer = streamWriter(id, (m) => session.reply(m), context.flushScheduler, context.maxEventsPerMessage, fail);
  stream.add(() => {
    session.streams.delete(id);
    writer.drop();
  });
  stream.add(
    answer(request, context, session.pins).subscribe({
      next: (out) => {
        if (request.t === 'list') writer.send({ t: 'page', id, page: out as ListPage });
        else if (out === 'open') writer.send({ t: 'open', id });
        else writer.events(out as readonly WatchEvent[]);
      },
      error: (error) => {
        writer.send({ t: 'error', id, status: statusOfError(error) });
        stream.unsubscribe();
      },
      complete: () => {
        if (request.t === 'watch') writer.send({ t: 'end', id });
        stream.unsubscribe();
      },
    }),
  );
}

/** The answers to `request`: its informer's feed, then the list's page or the watch's outputs. */
function answer(request: StreamRequest, context: ServerContext, pins: ListPins): Observable<ListPage | WatchOutput> {
  return defer(() => {
    const informer = context.informerFor(request.resource, request.scope, request);
    return isPromiseLike(informer) ? from(informer) : of(informer);
  }).pipe(
    switchMap((informer) => {
      const feed = context.feedOf(informer);
      if (request.t === 'list') return serveList(feed, request.resource, request.options, { pins, ...context });
      return serveWatch(feed, request.options, context);
    }),
  );
}

const isPromiseLike = (v: unknown): v is PromiseLike<SharedInformer<KubeObject>> =>
  typeof (v as { then?: unknown } | null)?.then === 'function';

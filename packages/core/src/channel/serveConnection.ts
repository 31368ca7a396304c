/**
 * One connection of an informer server: the `hello`, then each request run as a stream of its
 * own (list or watch over the informer's feed), its answers written by a `StreamWriter`. A message
 * that is not one the protocol allows is answered with a typed `error` and changes nothing else.
 */
import { defer, from, map, merge, of, switchMap, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import type { SharedInformer } from '../informer/sharedInformer.ts';
import { scheduleAfter } from '../time/longTimer.ts';
import { statusOfError } from './channelErrors.ts';
import { parseClientMessage } from './clientMessages.ts';
import type { ChannelConnection, ConnectionBackpressure } from './connection.ts';
import type { InformerView, ServedInformer } from './informerServer.ts';
import type { InformerFeed } from './informerFeed.ts';
import { CHANNEL_PROTOCOL_VERSION, failureStatus, type ServerMessage, type StreamRequest } from './protocol.ts';
import { ListPins, serveList } from './serveList.ts';
import { serveWatch, type WatchOutput } from './serveWatch.ts';
import { streamWriter, type WriterFlow } from './streamWriter.ts';
import { viewFeed } from './viewFeed.ts';
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
  /** How long a stream gathers watch events (coalesced) before sending them, in ms; 0: until the end of the task. */
  readonly batchMs: number;
  readonly highWaterBytes: number;
  readonly maxPendingBytes: number;
  onBackpressure?: (what: 'coalesced' | 'resync', count: number) => void;
  /** Timers. */
  readonly scheduler: SchedulerLike;
  /** Where gathered events are sent from (the end of the task). */
  readonly flushScheduler: SchedulerLike;
  /** The feed of an informer, shared by every connection. */
  feedOf(informer: SharedInformer<KubeObject>): InformerFeed;
  informerFor(resource: ResourceDescriptor, scope: InformerScope, request: StreamRequest): ServedInformer | PromiseLike<ServedInformer>;
}

/** What the parts of one connection share: how to answer, its streams and its pinned lists. */
interface Session {
  readonly context: ServerContext;
  readonly streams: Map<string, Subscription>;
  readonly pins: ListPins;
  /** The connection's backlog, when its transport reports one. */
  readonly backpressure?: ConnectionBackpressure;
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
    backpressure: connection.backpressure,
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
    if (error instanceof KubeApiError) answered(session, { t: 'error', id, status: statusOfError(error) });
    else session.refuse(id, 500, 'InternalError', `the stream could not be sent: ${(error as Error)?.message ?? String(error)}`);
    stream.unsubscribe();
  };
  const flow: WriterFlow | undefined = session.backpressure && {
    backpressure: session.backpressure,
    highWaterBytes: context.highWaterBytes,
    maxPendingBytes: context.maxPendingBytes,
    report: context.onBackpressure,
  };
  const batching = {
    scheduler: context.batchMs > 0 ? context.scheduler : context.flushScheduler,
    delayMs: context.batchMs,
    maxEvents: context.maxEventsPerMessage,
  };
  const writer = streamWriter(id, (m) => session.reply(m), batching, fail, flow);
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

/**
 * The answers to `request`: its informer's feed (as the view `informerFor` gave sees it), then the
 * list's page or the watch's outputs, until the view's `end$` fails the stream.
 */
function answer(request: StreamRequest, context: ServerContext, pins: ListPins): Observable<ListPage | WatchOutput> {
  return defer(() => {
    const served = context.informerFor(request.resource, request.scope, request);
    return isPromiseLike(served) ? from(served) : of(served);
  }).pipe(
    switchMap((served) => {
      const view: InformerView = isView(served) ? served : { informer: served };
      const feed = viewFeed(context.feedOf(view.informer), view);
      const answers: Observable<ListPage | WatchOutput> =
        request.t === 'list'
          ? serveList(feed, request.resource, request.options, { pins, ...context })
          : serveWatch(feed, request.options, context);
      if (!view.end$) return answers;
      const ended = view.end$.pipe(
        map((error): never => {
          throw error;
        }),
      );
      return merge(answers, ended);
    }),
  );
}

const isPromiseLike = (v: unknown): v is PromiseLike<ServedInformer> => typeof (v as { then?: unknown } | null)?.then === 'function';
const isView = (v: ServedInformer): v is InformerView => 'informer' in v && !('getStore' in v);

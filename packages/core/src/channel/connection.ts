/**
 * The transport under the channel: a `ChannelConnection` sends a message and receives messages
 * until it closes. Adapters here: a `MessagePort` (what a Worker or SharedWorker hands over) and an
 * in-process pair (tests, and a server in the same thread). A WebSocket's is as short (see
 * `ChannelConnection`).
 */
import { asyncScheduler, Observable, Subject, takeUntil, share, type SchedulerLike } from 'rxjs';
import type { ChannelMessage } from './protocol.ts';
import type { WatchEvent } from '../types.ts';

/**
 * One connection between a channel client and a server: messages in order, both ways.
 *
 * @example
 * // A WebSocket as a connection (JSON frames):
 * function webSocketConnection(ws: WebSocket): ChannelConnection {
 *   const messages$ = new Observable<unknown>((s) => {
 *     ws.onmessage = (e) => { try { s.next(JSON.parse(String(e.data))); } catch { s.next(undefined); } };
 *     ws.onclose = () => s.complete();
 *   }).pipe(share());
 *   return { send: (m) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m)), messages$, close: () => ws.close() };
 * }
 *
 * Caveat: what arrives is untrusted: the client and the server check every message (a value that
 * is not one is refused with a typed error, the other streams go on).
 */
export interface ChannelConnection {
  /** Sends one message (after `close()`, or once closed by the other side, nothing). May throw for a value the transport cannot carry. */
  send(message: ChannelMessage): void;
  /** The messages received, as they come; completes when the connection closes. Subscribe once. */
  readonly messages$: Observable<unknown>;
  /** Closes the connection (a transport that can tells the other side). Idempotent. */
  close(): void;
  /**
   * The transport's backlog, for a server's backpressure (a WebSocket's `bufferedAmount`): absent,
   * the server sends as events come. Present, a congested connection's watch events are held,
   * coalesced by key, and a stream that holds too much is answered 410.
   */
  readonly backpressure?: ConnectionBackpressure;
}

/**
 * What a server reads of a transport's backlog.
 *
 * @example
 * const backpressure: ConnectionBackpressure = { buffered: () => ws.bufferedAmount, drained$ };
 */
export interface ConnectionBackpressure {
  /** Bytes sent but not yet written out. */
  buffered(): number;
  /** Emits when the backlog has been written out (or fell low). */
  readonly drained$: Observable<void>;
  /** The estimated bytes of an event once sent (default: 1024 each). */
  sizeOf?: (event: WatchEvent) => number;
}

/** Options of `messagePortConnection`. */
export interface MessagePortConnectionOptions {
  /**
   * How messages are sent: `clone` posts them as they are (structured clone), `json` posts each as
   * one JSON string, which the other side parses (one `JSON.parse` of a batch can cost its main
   * thread less than cloning many small objects). Either side receives both. Default `clone`.
   */
  encoding?: 'clone' | 'json';
}

/**
 * A `MessagePort` as a connection: `postMessage` both ways (structured clone, or JSON strings with
 * `encoding: 'json'`; a string received is parsed, whatever this side sends). A `close` event
 * (sent by browsers that have it when the other side's port goes away) closes it too; elsewhere
 * the protocol's `bye` and the heartbeat find a side that went away (a tab closed, a worker crashed).
 *
 * @example
 * const { port1, port2 } = new MessageChannel();
 * worker.postMessage({ t: 'connect' }, [port2]);
 * const connection = messagePortConnection(port1);
 */
export function messagePortConnection(port: MessagePort, options: MessagePortConnectionOptions = {}): ChannelConnection {
  const json = options.encoding === 'json';
  const closed = new Subject<void>();
  let open = true;
  const messages$ = new Observable<unknown>((subscriber) => {
    const onMessage = (e: MessageEvent) => subscriber.next(decoded(e.data));
    // A message the port could not deserialize: refused as what it is, nothing.
    const onMessageError = () => subscriber.next(undefined);
    const onClose = () => {
      open = false;
      subscriber.complete();
    };
    port.addEventListener('message', onMessage);
    port.addEventListener('messageerror', onMessageError);
    port.addEventListener('close', onClose);
    port.start();
    return () => {
      port.removeEventListener('message', onMessage);
      port.removeEventListener('messageerror', onMessageError);
      port.removeEventListener('close', onClose);
    };
  }).pipe(takeUntil(closed), share());
  return {
    send: (message) => {
      if (open) port.postMessage(json ? JSON.stringify(message) : message);
    },
    messages$,
    close: () => {
      if (!open) return;
      open = false;
      port.close();
      closed.next();
      closed.complete();
    },
  };
}

/** A message as received: a string is the JSON of one (not JSON: undefined, refused as what it is). */
function decoded(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** Options of `inProcessConnections`. */
export interface InProcessConnectionOptions {
  /** Where messages are delivered (each send arrives in a later task, in order). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Deliver a `structuredClone` of each message, as `postMessage` does (false: the same object). Default true. */
  clone?: boolean;
}

/**
 * Two connected ends in one thread, `[client, server]`: what one sends, the other receives in a
 * later task; closing either closes both, after what was sent before (a WebSocket's close).
 *
 * @example
 * const [client, server] = inProcessConnections();
 * informerServer.serve(server);
 * const source = channelListerWatcherSource(() => client);
 */
export function inProcessConnections(options: InProcessConnectionOptions = {}): [ChannelConnection, ChannelConnection] {
  const scheduler = options.scheduler ?? asyncScheduler;
  const clone = options.clone ?? true;
  const a = pipe(scheduler, clone);
  const b = pipe(scheduler, clone);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    a.end();
    b.end();
  };
  const end = (inbox: ReturnType<typeof pipe>, outbox: ReturnType<typeof pipe>): ChannelConnection => ({
    send: (message) => {
      if (open) outbox.put(message);
    },
    messages$: inbox.messages$,
    close,
  });
  return [end(a, b), end(b, a)];
}

/** One direction of an in-process pair: messages queued, delivered in order on `scheduler`. */
function pipe(scheduler: SchedulerLike, clone: boolean) {
  const subject = new Subject<unknown>();
  const queue: ({ message: unknown } | 'end')[] = [];
  let scheduled = false;
  const deliver = () => {
    scheduled = false;
    for (const item of queue.splice(0)) {
      if (item === 'end') subject.complete();
      else subject.next(item.message);
    }
  };
  const enqueue = (item: { message: unknown } | 'end') => {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      scheduler.schedule(deliver);
    }
  };
  return {
    messages$: subject.asObservable(),
    put: (message: unknown) => enqueue({ message: clone ? structuredClone(message) : message }),
    end: () => enqueue('end'),
  };
}

/**
 * A `ws` WebSocket as the server's end of a channel connection: JSON text frames (objects'
 * JSON shared through the `MessageEncoder`), the socket's `bufferedAmount` as the backpressure the
 * channel server coalesces on, a hard cap past which the connection is closed, an incoming message
 * rate limit, and the counts a replica's metrics read.
 */
import type { ChannelConnection, ChannelMessage } from '@rxinformer/core/channel';
import { Observable, share, Subject } from 'rxjs';
import type { WebSocket } from 'ws';
import type { MessageEncoder } from './encoder.ts';
import type { ClosedFor, MetricCounters } from './metrics.ts';

/** The limits of one connection. */
export interface SocketLimits {
  /** Messages a client may send per second, on average. */
  readonly maxMessagesPerSecond: number;
  /** Messages a client may send at once, above the average. */
  readonly messageBurst: number;
  /** Past this many bytes buffered for the client, the connection is closed (code 1013). */
  readonly maxBufferedBytes: number;
  /** At or below this many bytes buffered, the connection has drained: held events go out. */
  readonly lowWaterBytes: number;
}

/** Told when the hub closes a connection for a violation (never with what the client sent). */
export type ViolationHandler = (why: ClosedFor, detail: string) => void;

/**
 * The channel connection over `ws`.
 *
 * @example
 * server.serve(socketConnection(ws, encoder, counters, limits, (why) => log('warn', `closed: ${why}`)), user);
 */
export function socketConnection(
  ws: WebSocket,
  encoder: MessageEncoder,
  counters: MetricCounters,
  limits: SocketLimits,
  onViolation: ViolationHandler,
): ChannelConnection {
  const drained$ = new Subject<void>();
  const streams = new Set<string>();
  const track = (delta: number) => (counters.subscriptions += delta);
  let tokens = limits.messageBurst;
  let refilled = Date.now();
  const allowMessage = (): boolean => {
    const now = Date.now();
    tokens = Math.min(limits.messageBurst, tokens + ((now - refilled) / 1000) * limits.maxMessagesPerSecond);
    refilled = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  let violated = false;
  const violation = (why: ClosedFor, code: number, detail: string) => {
    if (violated) return;
    violated = true;
    counters.connectionsClosed[why]++;
    onViolation(why, detail);
    ws.close(code, detail.slice(0, 120));
  };
  const messages$ = new Observable<unknown>((subscriber) => {
    ws.on('message', (data, isBinary) => {
      if (violated) return; // closing: nothing more is read
      if (!allowMessage()) return violation('rate', 1008, `more than ${limits.maxMessagesPerSecond} messages a second`);
      // A binary frame, or text that is not JSON: refused as what it is (the server answers 400).
      let message: unknown;
      try {
        message = isBinary ? undefined : JSON.parse((data as Buffer).toString('utf8'));
      } catch {
        message = undefined;
      }
      noteIncoming(message, streams, track);
      subscriber.next(message);
    });
    ws.on('close', () => {
      track(-streams.size);
      streams.clear();
      drained$.complete();
      subscriber.complete();
    });
    // A message past maxPayload: ws closes the connection (1009); a 'close' follows every error.
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') violation('messageSize', 1009, 'a message larger than the hub accepts');
    });
  }).pipe(share());
  const written = () => {
    if (ws.bufferedAmount <= limits.lowWaterBytes) drained$.next();
  };
  return {
    send: (message: ChannelMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      const text = encoder.encode(message as never);
      counters.bytesSent += text.length;
      counters.messagesSent++;
      noteOutgoing(message, streams, track);
      ws.send(text, written);
      if (ws.bufferedAmount > limits.maxBufferedBytes)
        violation('slowReader', 1013, `more than ${limits.maxBufferedBytes} bytes buffered for a client that does not read`);
    },
    messages$,
    close: () => ws.close(1000),
    backpressure: { buffered: () => ws.bufferedAmount, drained$, sizeOf: (e) => encoder.sizeOf(e) },
  };
}

/** A request opens a stream, a cancel ends it. */
function noteIncoming(m: unknown, streams: Set<string>, track: (delta: number) => void): void {
  const o = m as { t?: unknown; id?: unknown } | undefined;
  if (typeof o?.id !== 'string') return;
  if ((o.t === 'list' || o.t === 'watch') && !streams.has(o.id)) {
    streams.add(o.id);
    track(1);
  } else if (o.t === 'cancel' && streams.delete(o.id)) track(-1);
}

/** A page, an end or an error ends a stream. */
function noteOutgoing(m: ChannelMessage, streams: Set<string>, track: (delta: number) => void): void {
  if ((m.t === 'page' || m.t === 'end' || m.t === 'error') && m.id !== undefined && streams.delete(m.id)) track(-1);
}

/**
 * The sending side of one server stream: watch events gathered until the end of the task (or
 * `maxEvents`) and sent as one `events` message, so a burst costs one `postMessage` (or WebSocket
 * frame) per stream, not one per event; any other message sends what was gathered first. With a
 * batch interval, events are gathered for that long instead and coalesced by key (`coalesce`): a
 * page then handles one message per interval, however many events came.
 *
 * Over a connection that reports its backlog (a WebSocket's `bufferedAmount`), a congested
 * connection's events are held, coalesced by key (`PendingEvents`), and sent when it drains; past
 * `maxPendingBytes` held, the stream fails with a 410 (its client relists from the server's cache)
 * instead of holding more.
 */
import { take, type SchedulerLike, type Subscription } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import type { ConnectionBackpressure } from './connection.ts';
import { coalesce, PendingEvents } from './pendingEvents.ts';
import { failureStatus, type ServerMessage } from './protocol.ts';
import type { WatchEvent } from '../types.ts';

/** One stream's sender. */
export interface StreamWriter {
  /** Gathers events: sent at the end of the task, or at once when `maxEvents` are waiting. */
  events(batch: readonly WatchEvent[]): void;
  /** Sends what was gathered, then `message`. */
  send(message: ServerMessage): void;
  /** Drops what was gathered and sends nothing more (the stream was cancelled). */
  drop(): void;
}

/** When a writer sends what it gathered. */
export interface WriterBatching {
  /** Where the flush is scheduled. */
  readonly scheduler: SchedulerLike;
  /** Gather events this long, in ms, and coalesce them by key; 0: until the end of the task, as they came. */
  readonly delayMs: number;
  /** Most events in one message: that many gathered are sent at once. */
  readonly maxEvents: number;
}

/** How a writer behaves on a congested connection. */
export interface WriterFlow {
  /** The connection's backlog and its drain. */
  readonly backpressure: ConnectionBackpressure;
  /** A connection with at least this many bytes buffered is congested: events are held, coalesced. */
  readonly highWaterBytes: number;
  /** Past this many bytes held (estimated), the stream fails with 410. */
  readonly maxPendingBytes: number;
  /** Told of events coalesced away (`coalesced`, with how many) and of a stream failed with 410 (`resync`). */
  report?: (what: 'coalesced' | 'resync', count: number) => void;
}

/**
 * A writer of stream `id` over `send`, flushing as `batching` says. A send that throws (a value the
 * transport cannot carry) is handed to `onFailure`, which ends the stream; so is the 410 of a
 * stream that held more than its budget.
 *
 * @example
 * const w = streamWriter('7', (m) => connection.send(m), { scheduler: asapScheduler, delayMs: 0, maxEvents: 1000 }, fail);
 * w.events([{ type: 'ADDED', object: pod }]); // sent at the end of this task, with any others
 */
export function streamWriter(
  id: string,
  send: (message: ServerMessage) => void,
  batching: WriterBatching,
  onFailure: (error: unknown) => void,
  flow?: WriterFlow,
): StreamWriter {
  const { scheduler, delayMs, maxEvents } = batching;
  let pending: WatchEvent[] = [];
  let held: PendingEvents | undefined;
  let flushing: Subscription | undefined;
  let draining: Subscription | undefined;
  let dropped = false;
  const congested = (): boolean => flow !== undefined && flow.backpressure.buffered() >= flow.highWaterBytes;
  /** Holds what is pending (coalescing it), waiting for the drain; false when over budget (the stream failed). */
  const hold = (): boolean => {
    held ??= new PendingEvents(flow!.backpressure.sizeOf ?? (() => 1024));
    for (const event of pending) held.add(event);
    pending = [];
    const coalesced = held.takeCoalesced();
    if (coalesced > 0) flow!.report?.('coalesced', coalesced);
    if (held.bytes > flow!.maxPendingBytes) {
      flow!.report?.('resync', 1);
      dropped = true;
      held = undefined;
      onFailure(tooSlow(flow!.maxPendingBytes));
      return false;
    }
    draining ??= flow!.backpressure.drained$.pipe(take(1)).subscribe(() => {
      draining = undefined;
      flush();
    });
    return true;
  };
  const flush = (): boolean => {
    flushing?.unsubscribe();
    flushing = undefined;
    if (dropped || (pending.length === 0 && !held)) return true;
    if (congested()) return hold();
    const gathered = held ? [...held.take(), ...pending] : pending;
    const events = delayMs > 0 ? coalesce(gathered) : gathered;
    held = undefined;
    pending = [];
    for (let at = 0; at < events.length; at += maxEvents)
      if (!attempt({ t: 'events', id, events: events.slice(at, at + maxEvents) })) return false;
    return true;
  };
  const attempt = (message: ServerMessage): boolean => {
    try {
      send(message);
      return true;
    } catch (error) {
      dropped = true;
      onFailure(error);
      return false;
    }
  };
  return {
    events: (batch) => {
      for (const event of batch) {
        pending.push(event);
        if (pending.length >= maxEvents && !flush()) return;
      }
      if (pending.length > 0 && !flushing) flushing = scheduler.schedule(() => void flush(), delayMs);
    },
    send: (message) => {
      if (dropped) return;
      // A message other than events goes out at once: what is held first, unless still congested
      // (an `end` or `error` then waits behind nothing: the client relists or watches again).
      if (!congested()) flush();
      else held?.take();
      if (!dropped) attempt(message);
    },
    drop: () => {
      dropped = true;
      pending = [];
      held = undefined;
      flushing?.unsubscribe();
      draining?.unsubscribe();
    },
  };
}

/** The 410 of a stream whose client reads too slowly. */
function tooSlow(maxPendingBytes: number): KubeApiError {
  const message = `the client reads too slowly: more than ${maxPendingBytes} bytes of events were held for it; list again`;
  return new KubeApiError(410, { status: failureStatus(410, 'Expired', message) });
}

/**
 * The sending side of one server stream: watch events gathered until the end of the task (or
 * `maxEvents`) and sent as one `events` message, so a burst costs one `postMessage` (or WebSocket
 * frame) per stream, not one per event; any other message sends what was gathered first.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { ServerMessage } from './protocol.ts';
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

/**
 * A writer of stream `id` over `send`, flushing on `scheduler`. A send that throws (a value the
 * transport cannot carry) is handed to `onFailure`, which ends the stream.
 *
 * @example
 * const w = streamWriter('7', (m) => connection.send(m), asapScheduler, 1000, fail);
 * w.events([{ type: 'ADDED', object: pod }]); // sent at the end of this task, with any others
 */
export function streamWriter(
  id: string,
  send: (message: ServerMessage) => void,
  scheduler: SchedulerLike,
  maxEvents: number,
  onFailure: (error: unknown) => void,
): StreamWriter {
  let pending: WatchEvent[] = [];
  let flushing: Subscription | undefined;
  let dropped = false;
  const flush = (): boolean => {
    flushing?.unsubscribe();
    flushing = undefined;
    if (pending.length === 0 || dropped) return true;
    const events = pending;
    pending = [];
    return attempt({ t: 'events', id, events });
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
      if (pending.length > 0 && !flushing) flushing = scheduler.schedule(() => void flush());
    },
    send: (message) => {
      if (!dropped && flush()) attempt(message);
    },
    drop: () => {
      dropped = true;
      pending = [];
      flushing?.unsubscribe();
    },
  };
}

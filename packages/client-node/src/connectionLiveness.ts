/**
 * The health check of one HTTP/2 connection, as golang.org/x/net/http2 runs it for client-go: when
 * nothing has been read from the server for `readIdleTimeoutMs`, a PING goes out; no ack within
 * `pingTimeoutMs` and the connection is declared unresponsive, so its streams fail (and watches are
 * made again on a new connection) instead of waiting on a network that silently dropped the flow.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

/** What the check needs of a connection. */
export interface LivenessTarget {
  /** Bytes read from the server so far (any frame counts: data, headers, a PING ack, SETTINGS…). */
  bytesRead(): number;
  /** Sends a PING; `onAck` gets `null` once the ack is read, an error if the PING could not go out. */
  ping(onAck: (error: Error | null) => void): void;
  /** Called once when no ack came in time: drop the connection with `error`. */
  unresponsive(error: ConnectionUnresponsiveError): void;
}

/** When to ping and how long to wait for the ack. */
export interface LivenessTimes {
  /** Ping after this long without reading a byte (client-go's `ReadIdleTimeout`). 0 turns the check off. */
  readIdleTimeoutMs: number;
  /** Drop the connection when the ack takes longer (client-go's `PingTimeout`). */
  pingTimeoutMs: number;
}

/**
 * The error an unresponsive connection's streams fail with. It is no `RxInformerError`: core's
 * `networkErrorFrom` types it as a `NetworkError` (code `ERR_HTTP2_PING_TIMEOUT`), so a watch on it
 * ends as the network cut it and the reflector watches again from its last resource version.
 *
 * @example
 * if (error.code === 'ERR_HTTP2_PING_TIMEOUT') console.warn('the connection to the API server died');
 */
export class ConnectionUnresponsiveError extends Error {
  /** Always `ConnectionUnresponsiveError`: set as a string, so it survives minification. */
  override readonly name: string = 'ConnectionUnresponsiveError';
  /** The code core's `networkErrorFrom` reports on the `NetworkError`. */
  readonly code = 'ERR_HTTP2_PING_TIMEOUT';
  /** How long the ack was waited for, in ms. */
  readonly pingTimeoutMs: number;

  constructor(pingTimeoutMs: number) {
    super(`the HTTP/2 connection is unresponsive: no PING ack within ${pingTimeoutMs} ms`);
    this.pingTimeoutMs = pingTimeoutMs;
  }
}

/** A running check; `stop()` cancels its timer (the connection closed). */
export interface Liveness {
  stop(): void;
}

/** The byte count is looked at this many times per `readIdleTimeoutMs`: a PING goes out within a quarter of it after the silence began to count. */
const CHECKS_PER_IDLE = 4;

/**
 * Starts the check of `target` on `scheduler`'s clock. The byte count is looked at every quarter
 * of `readIdleTimeoutMs`; once it has not moved for `readIdleTimeoutMs` (so after that long to a
 * quarter more of silence), a PING goes out. An ack in time starts the wait for silence again, so
 * a quiet connection is pinged about every `readIdleTimeoutMs`; no ack within `pingTimeoutMs` and
 * the target is told it is `unresponsive`, once.
 *
 * @example
 * const liveness = watchLiveness(target, { readIdleTimeoutMs: 30_000, pingTimeoutMs: 15_000 }, asyncScheduler);
 * session.once('close', () => liveness.stop());
 *
 * Caveat: a ping waits for its own ack; other frames read meanwhile do not save a connection whose
 * ack is late, as in Go (a healthy server answers a PING before anything it queued after it).
 */
export function watchLiveness(target: LivenessTarget, times: LivenessTimes, scheduler: SchedulerLike): Liveness {
  const step = Math.max(1, Math.ceil(times.readIdleTimeoutMs / CHECKS_PER_IDLE));
  let timer: Subscription | undefined;
  let stopped = times.readIdleTimeoutMs === 0;
  let seen = target.bytesRead();
  let progressAt = scheduler.now();
  const after = (ms: number, then: () => void) => {
    timer?.unsubscribe();
    timer = stopped ? undefined : scheduler.schedule(then, ms);
  };
  const check = () => {
    const read = target.bytesRead();
    if (read !== seen) {
      seen = read;
      progressAt = scheduler.now();
    }
    if (scheduler.now() - progressAt < times.readIdleTimeoutMs) return after(step, check);
    let acked = false;
    after(times.pingTimeoutMs, () => {
      if (acked || stopped) return;
      stopped = true;
      target.unresponsive(new ConnectionUnresponsiveError(times.pingTimeoutMs));
    });
    target.ping((error) => {
      if (stopped) return;
      if (error !== null) return stop(); // the PING was cancelled: the connection is going away
      acked = true;
      seen = target.bytesRead();
      progressAt = scheduler.now();
      after(step, check);
    });
  };
  const stop = () => {
    stopped = true;
    timer?.unsubscribe();
  };
  after(step, check);
  return { stop };
}

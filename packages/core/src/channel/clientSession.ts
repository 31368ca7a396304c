/**
 * One connection of a channel client, from its `hello` to its end: the streams open on it by id,
 * each server message handed to its stream, a ping every `heartbeatMs` and an end when the server
 * stays silent past `idleTimeoutMs`. When it ends, every stream on it fails (the reflectors resume
 * from their resource versions over the next connection).
 */
import { AsyncSubject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { NetworkError } from '../errors.ts';
import { intervalEvery, scheduleAfter } from '../time/longTimer.ts';
import { ChannelProtocolError, errorOfStatus } from './channelErrors.ts';
import type { ChannelConnection } from './connection.ts';
import { CHANNEL_PROTOCOL_VERSION, type ClientMessage, type ServerMessage } from './protocol.ts';
import type { Status } from '../types.ts';

/** A server message about one stream. */
export type StreamMessage = Extract<ServerMessage, { id?: string }> & { id: string };

/** What a stream does with the messages about it. */
export interface StreamHandler {
  /** A message about the stream (a `page`, `end` or `error` ends it); throws for one it cannot take. */
  message(m: StreamMessage): void;
  /** The stream cannot go on (the connection ended, a malformed message). */
  fail(error: Error): void;
}

/** The timing of a session, and who hears of its end. */
export interface SessionTiming {
  readonly scheduler: SchedulerLike;
  readonly heartbeatMs: number;
  readonly idleTimeoutMs: number;
  /** Told once when the session ends, and whether the server had greeted it. */
  readonly onClose?: (error: Error, greeted: boolean) => void;
}

/** One connection, greeted; `ready$` emits itself once the server's `hello` came. */
export class ClientSession {
  readonly #streams = new Map<string, StreamHandler>();
  readonly #ready = new AsyncSubject<ClientSession>();
  readonly #connection: ChannelConnection;
  readonly #timing: SessionTiming;
  readonly #life: Subscription;
  #idle: Subscription | undefined;
  /** When the server was last heard from, on the scheduler's clock. */
  #heard = 0;
  #serial = 0;
  #greeted = false;
  #closed = false;

  constructor(connection: ChannelConnection, timing: SessionTiming) {
    this.#connection = connection;
    this.#timing = timing;
    this.#life = connection.messages$.subscribe({
      next: (m) => this.#receive(m),
      complete: () => this.close(new NetworkError('ConnectionReset', 'the channel connection closed')),
    });
    this.#life.add(intervalEvery(timing.heartbeatMs, timing.scheduler).subscribe(() => this.#send({ t: 'ping' })));
    this.#heard = timing.scheduler.now();
    this.#armIdle(timing.idleTimeoutMs);
    this.#send({ t: 'hello', v: CHANNEL_PROTOCOL_VERSION });
  }

  /** Emits this session and completes once the server greeted it; errors if it ended first. */
  get ready$(): Observable<ClientSession> {
    return this.#ready;
  }

  /** True until the session ended. */
  get open(): boolean {
    return !this.#closed;
  }

  /** Sends a request with a new id, its answers to `handler`; the id. */
  request(request: Omit<Extract<ClientMessage, { t: 'list' | 'watch' }>, 'id'>, handler: StreamHandler): string {
    const id = String(++this.#serial);
    this.#streams.set(id, handler);
    this.#send({ ...request, id } as ClientMessage);
    return id;
  }

  /** The client no longer wants stream `id`. */
  cancel(id: string): void {
    if (this.#streams.delete(id)) this.#send({ t: 'cancel', id });
  }

  /** Ends the session: every stream fails with `error`; the server is told (`bye`) when `polite`. */
  close(error: Error, polite = false): void {
    if (this.#closed) return;
    if (polite) this.#send({ t: 'bye' });
    this.#closed = true;
    this.#life.unsubscribe();
    this.#idle?.unsubscribe();
    this.#connection.close();
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    for (const stream of streams) stream.fail(error);
    this.#ready.error(error);
    this.#timing.onClose?.(error, this.#greeted);
  }

  #send(message: ClientMessage): void {
    if (this.#closed) return;
    try {
      this.#connection.send(message);
    } catch (error) {
      this.close(new NetworkError('NetworkFailure', 'the channel could not send a message', { cause: error }));
    }
  }

  /**
   * The idle timer, due in `ms`: when it fires, it ends the session if nothing came from the server
   * for `idleTimeoutMs`, else waits out the rest. Anything from the server proves it alive by
   * setting `#heard` only: a page that receives a message a frame does not re-arm a timer each time.
   */
  #armIdle(ms: number): void {
    const { idleTimeoutMs, scheduler } = this.#timing;
    this.#idle = scheduleAfter(scheduler, ms, () => {
      const quiet = scheduler.now() - this.#heard;
      if (quiet < idleTimeoutMs) return this.#armIdle(idleTimeoutMs - quiet);
      this.close(new NetworkError('ConnectionReset', `no message from the channel's server for ${idleTimeoutMs} ms`));
    });
  }

  #receive(raw: unknown): void {
    if (this.#closed) return;
    this.#heard = this.#timing.scheduler.now();
    const m = raw as Partial<Record<string, unknown>> | null;
    if (m === null || typeof m !== 'object') return; // nothing to tell it by: dropped
    if (m.t === 'hello') return this.#greet(m.v);
    if (m.t === 'bye') return this.close(new NetworkError('ConnectionReset', 'the server closed the channel'));
    if (m.t === 'error' && m.id === undefined) return this.close(refusal(m.status as Status | undefined));
    if (typeof m.id !== 'string') return;
    const stream = this.#streams.get(m.id);
    if (!stream) return; // a stream that ended, or was cancelled: its late answers
    if (!this.#greeted) return this.#failStream(m.id, stream, 'a stream message before hello');
    // Its end first: whatever the stream's subscriber does on it (leave, at once) sends no cancel.
    if (m.t === 'page' || m.t === 'end' || m.t === 'error') this.#streams.delete(m.id);
    try {
      stream.message(m as unknown as StreamMessage);
    } catch (error) {
      this.#failStream(m.id, stream, (error as Error).message);
    }
  }

  #greet(v: unknown): void {
    if (this.#greeted) return;
    if (v !== CHANNEL_PROTOCOL_VERSION) {
      const message = `the server speaks protocol version ${String(v)}, this client ${CHANNEL_PROTOCOL_VERSION}`;
      return this.close(new ChannelProtocolError('UnsupportedVersion', message));
    }
    this.#greeted = true;
    this.#ready.next(this);
    this.#ready.complete();
  }

  #failStream(id: string, stream: StreamHandler, why: string): void {
    this.#streams.delete(id);
    this.#send({ t: 'cancel', id });
    stream.fail(new ChannelProtocolError('MalformedMessage', `the channel's server sent ${why}`));
  }
}

/** The error of a connection the server refused (an `error` that names no stream). */
function refusal(status: Status | undefined): Error {
  const message = typeof status?.message === 'string' ? status.message : 'the server refused the connection';
  if (status?.reason === 'UnsupportedVersion') return new ChannelProtocolError('UnsupportedVersion', message);
  return new ChannelProtocolError('ConnectionRefused', message, { cause: status ? errorOfStatus(status) : undefined });
}

/**
 * One HTTP/2 connection of a pool: its session over a TLS socket, how many streams it may carry
 * (the server's SETTINGS_MAX_CONCURRENT_STREAMS, capped), the requests it carries, its health check
 * (`connectionLiveness.ts`), its GOAWAY (no new streams, those in flight finish) and its idle close.
 */
import { connect as connectHttp2, constants, type ClientHttp2Session, type Settings } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { HttpResponse } from '@rxinformer/core/http';
import { watchLiveness, type Liveness, type LivenessTimes } from './connectionLiveness.ts';
import { sendOnStream, type StreamRequest, type Unanswered } from './http2Stream.ts';

/** What a pool hands back for a server found to speak HTTP/1.1 only: send the request that way. */
export const USE_HTTP1 = Symbol('use HTTP/1.1');

/** A connection without streams for this long is closed (client-go's `IdleConnTimeout`). */
const IDLE_CLOSE_MS = 90_000;
/** Receive windows: 4 MiB a stream, 32 MiB the connection, so a large list is not held back by acks. */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 32 << 20;

/** What the transport knows of its server's protocol, shared by its pools (remembered across TLS rotations). */
export interface ProtocolMemory {
  protocol?: 'h2' | 'http/1.1';
}

/** Counters shared by the connections of a transport. */
export interface Http2Counters {
  /** HTTP/2 connections opened. */
  opened: number;
  /** PINGs sent by the health check, and acks read. */
  pings: number;
  pingAcks: number;
  /** Connections dropped for a PING without ack. */
  unresponsive: number;
  /** GOAWAY frames received. */
  goaways: number;
  /** Streams refused unprocessed and sent again. */
  retried: number;
}

/** A request waiting for, or carried by, a connection. */
export interface Pending {
  r: StreamRequest;
  settle(answer: HttpResponse | typeof USE_HTTP1 | Error): void;
  retries: number;
}

/** What a connection needs of its pool. */
export interface ConnectionContext extends LivenessTimes {
  origin: string;
  maxStreamsPerConnection: number;
  scheduler: SchedulerLike;
  memory: ProtocolMemory;
  counters: Http2Counters;
  /** Something changed (a stream closed, SETTINGS or a GOAWAY arrived, the connection closed): match requests to connections again. */
  changed(): void;
  /** A stream ended without an answer. */
  unanswered(p: Pending, how: Unanswered): void;
  /** The connection closed: take it out of the pool. */
  closed(c: Http2Connection): void;
  /** The pool is closing: idle connections close at once. */
  closing(): boolean;
}

/** One connection: `connecting` until the server's first SETTINGS, `ready` to take streams, `draining` after a GOAWAY or when closing. */
export class Http2Connection {
  state: 'connecting' | 'ready' | 'draining' = 'connecting';
  /** Streams it may carry (assumed until the server's SETTINGS arrive). */
  cap: number;
  /** Streams open on it. */
  active = 0;
  /** Requests bound to it while it connects. */
  readonly waiting: Pending[];
  session?: ClientHttp2Session;
  #liveness?: Liveness;
  #idle?: Subscription;
  #error?: Error;
  readonly #context: ConnectionContext;

  constructor(context: ConnectionContext, cap: number, waiting: Pending[]) {
    this.#context = context;
    this.cap = cap;
    this.waiting = waiting;
  }

  /** Starts HTTP/2 over `socket`, whose ALPN chose `h2`. */
  attach(socket: TLSSocket): void {
    const context = this.#context;
    context.counters.opened++;
    const session = connectHttp2(context.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      peerMaxConcurrentStreams: context.maxStreamsPerConnection,
    });
    this.session = session;
    session.on('error', (error: Error) => {
      this.#error ??= error;
    });
    session.once('connect', () => session.setLocalWindowSize(CONNECTION_WINDOW));
    session.on('remoteSettings', (settings: Settings) => this.#settings(settings));
    session.on('goaway', (code: number) => {
      context.counters.goaways++;
      this.state = 'draining';
      if (code === constants.NGHTTP2_HTTP_1_1_REQUIRED) context.memory.protocol = 'http/1.1';
      context.changed();
    });
    session.once('close', () => this.#closed());
    this.#liveness = watchLiveness(
      {
        bytesRead: () => socket.bytesRead,
        ping: (onAck) => {
          context.counters.pings++;
          session.ping((error) => {
            if (error === null) context.counters.pingAcks++;
            onAck(error);
          });
        },
        unresponsive: (error) => {
          context.counters.unresponsive++;
          session.destroy(error);
        },
      },
      context,
      context.scheduler,
    );
  }

  /** Sends `p` on a new stream; a session closing meanwhile sends it back to the pool's queue (`false`). */
  start(p: Pending): boolean {
    this.active++;
    this.#idle?.unsubscribe();
    this.#idle = undefined;
    this.session!.ref();
    try {
      sendOnStream(this.session!, p.r, {
        answered: (response) => p.settle(response),
        unanswered: (how) => this.#context.unanswered(p, how),
        closed: () => {
          this.active--;
          this.#context.changed();
        },
      });
      return true;
    } catch {
      this.active--;
      this.state = 'draining';
      return false;
    }
  }

  /** Without streams, the connection lets the process exit, and closes after a while (at once when it drains or the pool closes). */
  idleCheck(): void {
    const session = this.session;
    if (!session || this.active > 0 || session.closed) return;
    session.unref();
    if (this.#context.closing() || this.state === 'draining') return void session.close();
    this.#idle ??= this.#context.scheduler.schedule(() => {
      this.state = 'draining';
      session.close();
    }, IDLE_CLOSE_MS);
  }

  #settings(settings: Settings): void {
    this.cap = Math.min(this.#context.maxStreamsPerConnection, settings.maxConcurrentStreams ?? Infinity);
    if (this.state === 'connecting') this.state = 'ready';
    this.#context.changed();
  }

  #closed(): void {
    this.#liveness?.stop();
    this.#idle?.unsubscribe();
    const error = this.#error ?? new Error('the HTTP/2 connection closed before its SETTINGS arrived');
    for (const p of this.waiting.splice(0)) p.settle(error);
    this.#context.closed(this);
  }
}

/**
 * The HTTP/2 connections of one TLS material to one API server: requests are streams, filling a
 * connection up to its cap (the lower of `maxStreamsPerConnection` and the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS) before another is opened; each connection is health-checked with
 * PINGs, and a GOAWAY lets its streams finish while new ones go to another (`http2Connection.ts`);
 * a server that does not choose `h2` by ALPN (or asks for HTTP/1.1) is remembered as an HTTP/1.1
 * server, and its requests are handed back to the caller to send that way.
 */
import type { TLSSocket } from 'node:tls';
import type { SchedulerLike } from 'rxjs';
import type { HttpResponse } from '@rxinformer/core/http';
import type { LivenessTimes } from './connectionLiveness.ts';
import {
  Http2Connection,
  USE_HTTP1,
  type ConnectionContext,
  type Http2Counters,
  type Pending,
  type ProtocolMemory,
} from './http2Connection.ts';
import { asError } from './errors.ts';
import type { StreamRequest, Unanswered } from './http2Stream.ts';

export { USE_HTTP1, type Http2Counters, type ProtocolMemory } from './http2Connection.ts';

/** Streams a new connection is assumed to take until the server's SETTINGS say (Go's assumption too). */
const ASSUMED_STREAMS = 100;
/** A refused stream is sent again at most this often. */
const MAX_RETRIES = 3;

/** Options of `createHttp2Pool`. */
export interface Http2PoolOptions extends LivenessTimes {
  /** `https://host:port` of the server. */
  origin: string;
  /** Opens a TLS connection offering `h2` and `http/1.1` by ALPN. */
  connect(): Promise<TLSSocket>;
  maxStreamsPerConnection: number;
  scheduler: SchedulerLike;
  memory: ProtocolMemory;
  counters: Http2Counters;
}

/** A pool of HTTP/2 connections. */
export interface Http2Pool {
  /** Sends `r`: its answer once the headers arrive, or `USE_HTTP1` for a server that speaks HTTP/1.1. */
  request(r: StreamRequest): Promise<HttpResponse | typeof USE_HTTP1>;
  /** Connections open and streams on them. */
  stats(): { connections: number; streams: number };
  /** Takes no new request; closes each connection once its streams end; resolves when all are closed. */
  close(): Promise<void>;
}

/**
 * Creates the pool. Requests wait in order for a connection with a free stream.
 *
 * @example
 * const pool = createHttp2Pool({ origin, connect, maxStreamsPerConnection: 1000, readIdleTimeoutMs: 30_000, pingTimeoutMs: 15_000, scheduler, memory, counters });
 * const answer = await pool.request({ method: 'GET', pathAndQuery: '/version', headers, signal, idleTimeoutMs: 300_000, watch: false });
 */
export function createHttp2Pool(options: Http2PoolOptions): Http2Pool {
  const connections = new Set<Http2Connection>();
  const queue: Pending[] = [];
  let closing: (() => void) | undefined;
  let closed: Promise<void> | undefined;
  const expectedCap = () => Math.min(options.maxStreamsPerConnection, ASSUMED_STREAMS);

  const context: ConnectionContext = {
    ...options,
    changed: () => pump(),
    unanswered: (p, how) => unanswered(p, how),
    closed: (c) => {
      connections.delete(c);
      pump();
    },
    closing: () => closing !== undefined,
  };

  /** Matches waiting requests to connections with a free stream, opening connections for the rest. */
  const pump = () => {
    if (options.memory.protocol === 'http/1.1') toHttp1(connections, queue);
    for (const c of connections) if (c.state !== 'connecting') queue.unshift(...c.waiting.splice(0));
    for (const c of connections) {
      while (queue.length > 0 && c.state === 'ready' && c.active < c.cap) {
        const p = queue.shift()!;
        if (p.r.signal.aborted) p.settle(abortError(p.r.signal));
        else if (!c.start(p)) queue.unshift(p);
      }
      while (queue.length > 0 && c.state === 'connecting' && c.waiting.length < c.cap) c.waiting.push(queue.shift()!);
    }
    while (queue.length > 0) open(queue.splice(0, expectedCap()));
    for (const c of connections) if (c.state !== 'connecting') c.idleCheck();
    if (closing && connections.size === 0 && queue.length === 0) closing();
  };

  const unanswered = (p: Pending, how: Unanswered) => {
    if (how.kind === 'http1' || (how.kind === 'failed' && options.memory.protocol === 'http/1.1')) {
      options.memory.protocol = 'http/1.1';
      return p.settle(USE_HTTP1);
    }
    if (how.kind === 'refused' && p.retries < MAX_RETRIES && !p.r.signal.aborted) {
      p.retries++;
      options.counters.retried++;
      queue.unshift(p);
      return; // the stream's close pumps
    }
    p.settle(how.kind === 'failed' ? asError(how.error) : new Error('the server refused the HTTP/2 stream (REFUSED_STREAM) every time'));
  };

  const open = (waiting: Pending[]) => {
    const c = new Http2Connection(context, expectedCap(), waiting);
    connections.add(c);
    options.connect().then(
      (socket) => {
        if (socket.alpnProtocol === 'h2') {
          options.memory.protocol = 'h2';
          return c.attach(socket);
        }
        socket.destroy();
        options.memory.protocol = 'http/1.1';
        for (const p of c.waiting.splice(0)) p.settle(USE_HTTP1);
        context.closed(c);
      },
      (error: unknown) => {
        for (const p of c.waiting.splice(0)) p.settle(asError(error));
        context.closed(c);
      },
    );
  };

  return {
    request: (r) => request(r, { closing: () => closing !== undefined, memory: options.memory, queue, pump, connections }),
    stats: () => statsOf(connections),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = resolve;
        pump();
      });
      return closed;
    },
  };
}

function statsOf(connections: Set<Http2Connection>): { connections: number; streams: number } {
  let streams = 0;
  let open = 0;
  for (const c of connections) {
    if (c.session) open++;
    streams += c.active;
  }
  return { connections: open, streams };
}

/** Every waiting request goes HTTP/1.1 (the server said so). */
function toHttp1(connections: Set<Http2Connection>, queue: Pending[]): void {
  for (const c of connections) for (const p of c.waiting.splice(0)) p.settle(USE_HTTP1);
  for (const p of queue.splice(0)) p.settle(USE_HTTP1);
}

/** A request into the pool's queue; aborted while it waits for a connection, it leaves the queue. */
function request(
  r: StreamRequest,
  pool: { closing(): boolean; memory: ProtocolMemory; queue: Pending[]; pump(): void; connections: Set<Http2Connection> },
): Promise<HttpResponse | typeof USE_HTTP1> {
  if (pool.closing()) return Promise.reject(new Error('the HTTP/2 connection pool is closed'));
  if (pool.memory.protocol === 'http/1.1') return Promise.resolve(USE_HTTP1);
  if (r.signal.aborted) return Promise.reject(abortError(r.signal));
  return new Promise((resolve, reject) => {
    const p: Pending = {
      r,
      retries: 0,
      settle: (answer) => {
        r.signal.removeEventListener('abort', onAbort);
        // Errors may come from another realm (Node's internals seen from a VM context): tell them by what a response has.
        if (answer === USE_HTTP1 || isResponse(answer)) resolve(answer);
        else reject(answer);
      },
    };
    // A started stream is aborted by the signal itself.
    const onAbort = () => {
      const at = pool.queue.indexOf(p);
      if (at >= 0) pool.queue.splice(at, 1);
      for (const c of pool.connections) if (c.waiting.includes(p)) c.waiting.splice(c.waiting.indexOf(p), 1);
      p.settle(abortError(r.signal));
      pool.pump();
    };
    r.signal.addEventListener('abort', onAbort, { once: true });
    pool.queue.push(p);
    pool.pump();
  });
}

function abortError(signal: AbortSignal): Error {
  const { reason } = signal as { reason: unknown };
  return typeof reason === 'object' && reason !== null ? (reason as Error) : new DOMException('This operation was aborted', 'AbortError');
}

function isResponse(answer: HttpResponse | Error): answer is HttpResponse {
  return typeof (answer as Partial<HttpResponse>).chunks === 'function';
}

/**
 * The channel protocol, version 1: the messages a tab (the client) and whatever serves its informers
 * (a Worker, a SharedWorker, a hub server: the server) exchange over one connection. Plain data,
 * JSON- and structured-clone-safe; docs/channel-protocol.md is the reference.
 *
 *   client ─ hello ─────────────────────────────▶ server      (then, any number at once:)
 *   client ─ list {id, resource, scope, options} ▶ server ─ page {id, page} | error {id, status}
 *   client ─ watch {id, …}                      ▶ server ─ open {id}, events {id, events[]}…, end {id} | error {id, status}
 *   client ─ cancel {id} · ping · bye           ▶ server ─ pong · bye
 *
 * A receiver ignores fields it does not know: a later version, or a hub, adds fields to a request
 * (a projection, a cluster) without a break; it changes the meaning of a field only with a new `v`.
 */
import type { InformerScope, ListOptions, ListPage, ResourceDescriptor, Status, WatchEvent, WatchOptions } from '../types.ts';

/** The protocol version this code speaks: a `hello` with another `v` is refused with `UnsupportedVersion`. */
export const CHANNEL_PROTOCOL_VERSION = 1;

/** The first message each side sends: the protocol version it speaks. */
export interface HelloMessage {
  /** Always `hello`. */
  t: 'hello';
  /** The protocol version (`CHANNEL_PROTOCOL_VERSION`). */
  v: number;
}

/** What a `list` and a `watch` request share: the stream's id, the resource and the scope. */
export interface StreamRequestBase {
  /** Chosen by the client, unique among its open streams on this connection (1 to 64 characters). */
  id: string;
  /** The resource, as the client's informer factory names it. */
  resource: ResourceDescriptor;
  /** Where: namespace and selectors (the server's informer of that resource and scope answers). */
  scope: InformerScope;
  /**
   * The request's other top-level fields, as received (a hub's `cluster` and `projection`): what a
   * server's `informerFor` reads beyond the protocol. Absent when there were none. Untrusted: the
   * server checks what it reads. A client sends them with `withFields`.
   */
  extra?: Readonly<Record<string, unknown>>;
}

/** A list request: one page, answered by one `page` or one `error`. */
export interface ListRequest extends StreamRequestBase {
  /** Always `list`. */
  t: 'list';
  /** Page size, continue token, resource version (the wire's `ListOptions`). */
  options: ListOptions;
}

/** A watch request: answered by `open`, then `events` until `end` or `error`. */
export interface WatchRequest extends StreamRequestBase {
  /** Always `watch`. */
  t: 'watch';
  /** Resource version, bookmarks, timeout, `sendInitialEvents` (the wire's `WatchOptions`). */
  options: WatchOptions;
}

/** A list or watch request. */
export type StreamRequest = ListRequest | WatchRequest;

/** The client no longer wants stream `id` (its subscriber left). Unknown ids are ignored. */
export interface CancelMessage {
  /** Always `cancel`. */
  t: 'cancel';
  /** The stream's id. */
  id: string;
}

/** The client is alive; the server answers `pong`. */
export interface PingMessage {
  /** Always `ping`. */
  t: 'ping';
}

/** The server's answer to `ping`. */
export interface PongMessage {
  /** Always `pong`. */
  t: 'pong';
}

/** The sender closes the connection: every stream on it ends. */
export interface ByeMessage {
  /** Always `bye`. */
  t: 'bye';
}

/** The answer to a `list`: the page; the stream is over. */
export interface PageMessage {
  /** Always `page`. */
  t: 'page';
  /** The request's id. */
  id: string;
  /** The page, as the API server would send it (`metadata.continue` for the next one). */
  page: ListPage;
}

/** The watch is open: its resource version was placed, events follow (the equivalent of response headers). */
export interface OpenMessage {
  /** Always `open`. */
  t: 'open';
  /** The request's id. */
  id: string;
}

/** Watch events, in order: all those of one task in one message. */
export interface EventsMessage {
  /** Always `events`. */
  t: 'events';
  /** The request's id. */
  id: string;
  /** ADDED, MODIFIED, DELETED and BOOKMARK events, as the API server sends them (never ERROR: see `error`). */
  events: WatchEvent[];
}

/** The watch ended cleanly (its `timeoutSeconds`, or the server's informer went away): watch again. */
export interface EndMessage {
  /** Always `end`. */
  t: 'end';
  /** The request's id. */
  id: string;
}

/**
 * A failure, as the API server's `Status`. With an `id`, that stream failed and is over (the
 * client's ListerWatcher errors with a `KubeApiError`); without one, the connection is refused (a
 * `hello` of another version) and the server closes it.
 */
export interface ErrorMessage {
  /** Always `error`. */
  t: 'error';
  /** The stream that failed; absent for the connection. */
  id?: string;
  /** Code, reason, message and `details.retryAfterSeconds`, as kube-apiserver words them. */
  status: Status;
}

/** Every message a client sends. */
export type ClientMessage = HelloMessage | ListRequest | WatchRequest | CancelMessage | PingMessage | ByeMessage;

/** Every message a server sends. */
export type ServerMessage = HelloMessage | PageMessage | OpenMessage | EventsMessage | EndMessage | ErrorMessage | PongMessage | ByeMessage;

/** Any message of the protocol. */
export type ChannelMessage = ClientMessage | ServerMessage;

/** A `meta/v1` Status of a failure (`code`, `reason`, `message`, and `details.retryAfterSeconds` when given). */
export function failureStatus(code: number, reason: string, message: string, retryAfterSeconds?: number): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    ...(retryAfterSeconds !== undefined && { details: { retryAfterSeconds } }),
  };
}

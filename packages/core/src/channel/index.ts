/**
 * Informers served over a message channel: a server answers lists and watches from shared
 * informers' caches, a client's `ListerWatcherSource` carries them over one connection. The same
 * code runs a tab's informers in a Worker or SharedWorker (`hostInformers`,
 * `connectInformerWorker`) and in a hub server (over a WebSocket connection). The protocol is
 * docs/channel-protocol.md.
 *
 * @module @rxinformer/core/channel
 */

// Client and server
export { channelListerWatcherSource } from './channelListerWatcher.ts';
export type { ChannelClientOptions, ChannelConnect, ChannelListerWatcherSource } from './channelListerWatcher.ts';
export { createInformerServer } from './informerServer.ts';
export type { InformerServer, InformerServerOptions, InformerView, ServedInformer } from './informerServer.ts';

// Workers
export { CHANNEL_CONNECT, connectInformerWorker, hostInformers } from './workers.ts';
export type { ConnectInformerWorkerOptions, HostInformersOptions, InformerWorker, WorkerScopeLike } from './workers.ts';

// Connections
export { inProcessConnections, messagePortConnection } from './connection.ts';
export type { ChannelConnection, ConnectionBackpressure, InProcessConnectionOptions, MessagePortConnectionOptions } from './connection.ts';

// The protocol
export { CHANNEL_PROTOCOL_VERSION } from './protocol.ts';
export type {
  ByeMessage,
  CancelMessage,
  ChannelMessage,
  ClientMessage,
  EndMessage,
  ErrorMessage,
  EventsMessage,
  HelloMessage,
  ListRequest,
  OpenMessage,
  PageMessage,
  PingMessage,
  PongMessage,
  ServerMessage,
  StreamRequest,
  StreamRequestBase,
  WatchRequest,
} from './protocol.ts';
export { ChannelProtocolError } from './channelErrors.ts';
export type { ChannelProtocolErrorReason } from './channelErrors.ts';

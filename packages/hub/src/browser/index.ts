/**
 * The tab's side of the hub: a `ListerWatcherSource` over one WebSocket to a hub, so that core's
 * informers, `@rxinformer/react`'s hooks and `@rxinformer/angular` run over it unchanged. Browser
 * only (the global `WebSocket`; Node 22 has one too): nothing here imports Node.
 *
 * @module @rxinformer/hub/browser
 */
export { hubListerWatcherSource, webSocketConnection } from './hubClient.ts';
export type { HubClientOptions, WebSocketConstructor, WebSocketLike } from './hubClient.ts';

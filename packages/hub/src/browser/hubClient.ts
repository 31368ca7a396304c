/**
 * The channel client over a browser `WebSocket`: a connection adapter (JSON text frames) and the
 * source that makes one connection per tab, again after each drop, each reflector resuming from its
 * resource version.
 */
import { NetworkError, type ListerWatcherSource } from '@rxinformer/core';
import {
  channelListerWatcherSource,
  type ChannelClientOptions,
  type ChannelConnection,
  type ChannelListerWatcherSource,
} from '@rxinformer/core/channel';
import { Observable, share } from 'rxjs';

/** The subprotocol the hub speaks. */
const SUBPROTOCOL = 'rxinformer.channel.v1';
/** kube-apiserver's way to carry a bearer token where a WebSocket cannot set a header. */
const TOKEN_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** What the adapter uses of a WebSocket (the browser's, or Node 22's global one). */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** The subprotocol the server selected. */
  readonly protocol: string;
  /** How binary frames arrive (the adapter refuses them). */
  binaryType: string;
  /** Called once open. */
  onopen: ((e: unknown) => void) | null;
  /** Called with each frame. */
  onmessage: ((e: { data: unknown }) => void) | null;
  /** Called once closed, with the close code. */
  onclose: ((e: { code: number; reason: string }) => void) | null;
  /** Called on an error (a close follows). */
  onerror: ((e: unknown) => void) | null;
  /** Sends a text frame. */
  send(data: string): void;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor: the browser's, Node 22's global one, or `ws`'s. */
export type WebSocketConstructor = new (url: string, protocols?: string[]) => WebSocketLike;

/** Options of `hubListerWatcherSource`: the channel client's, and how to reach the hub. */
export interface HubClientOptions extends ChannelClientOptions {
  /**
   * The bearer token of each connection, read at each (re)connection; sent as the subprotocol
   * `base64url.bearer.authorization.k8s.io.<token>` (a browser cannot set an `Authorization` header
   * on a WebSocket). Absent: none (cookies, or an authenticating proxy, name the user).
   */
  token?: () => string | undefined | PromiseLike<string | undefined>;
  /** The WebSocket constructor. Default `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructor;
}

/**
 * A source of lists and watches over one WebSocket to the hub at `url` (`ws:`/`wss:`, or
 * `http:`/`https:` or a path, taken relative to the page). `withFields({ cluster })` gives the
 * source of another cluster over the same connection.
 *
 * @example
 * const source = hubListerWatcherSource('/hub');
 * const factory = createInformerFactory(source);
 * const pods = factory.informerFor(podsResource);
 * factory.start();
 *
 * A `projected(pods, paths)` descriptor is sent as it is kept: the hub projects each object before
 * sending it; a `tableRows(pods)` one gets the server's Table rows from the hub's shared Table
 * informer (their column definitions stay on the hub: read the cells by name).
 *
 * Caveat: the hub shows the user only what they may list: a cluster-wide informer holds the objects
 * of the namespaces allowed, and relists (a 410) when that set changes.
 */
export function hubListerWatcherSource(url: string | URL, options: HubClientOptions = {}): ChannelListerWatcherSource {
  const target = webSocketUrl(url);
  const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: HubClientOptions['WebSocket'] }).WebSocket;
  if (!Ctor) throw new NetworkError('NetworkFailure', 'hubListerWatcherSource needs a WebSocket (a browser, or Node 22)');
  const source = channelListerWatcherSource(async () => {
    const token = await options.token?.();
    const protocols = token ? [SUBPROTOCOL, TOKEN_PREFIX + base64url(token)] : [SUBPROTOCOL];
    return webSocketConnection(new Ctor(target, protocols));
  }, options);
  return projecting(source);
}

/**
 * `source`, asking the hub for each descriptor's form: a `projected()` descriptor's paths as
 * `projection: { paths }`, a `tableRows()` descriptor's as `projection: { table: true }`, so the hub
 * sends only what the tab keeps.
 */
function projecting(source: ChannelListerWatcherSource): ChannelListerWatcherSource {
  const withFields = (fields: Readonly<Record<string, unknown>>): ListerWatcherSource => {
    const plain = source.withFields(fields);
    return (resource, scope) => {
      const projection = resource.table === true ? { table: true } : resource.projection && { paths: resource.projection.paths };
      return projection ? source.withFields({ ...fields, projection })(resource, scope) : plain(resource, scope);
    };
  };
  return Object.assign(withFields({}), { close: () => source.close(), withFields });
}

/** The URL as a WebSocket URL. */
function webSocketUrl(url: string | URL): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  const u = new URL(String(url), base);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  return u.toString();
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * A WebSocket as a channel connection, once open: JSON text frames both ways; a frame that is not
 * JSON arrives as `undefined` (the client refuses it as malformed). Rejects when the socket closes
 * before it opens (a refused upgrade: the browser tells no status).
 *
 * @example
 * const connection = await webSocketConnection(new WebSocket('wss://hub.example/hub', ['rxinformer.channel.v1']));
 */
export function webSocketConnection(ws: WebSocketLike): Promise<ChannelConnection> {
  return new Promise((resolve, reject) => {
    let next: ((m: unknown) => void) | undefined;
    let complete: (() => void) | undefined;
    const early: unknown[] = [];
    let ended = false;
    ws.onmessage = (e) => {
      let m: unknown;
      try {
        m = typeof e.data === 'string' ? JSON.parse(e.data) : undefined;
      } catch {
        m = undefined;
      }
      if (next) next(m);
      else early.push(m);
    };
    ws.onclose = (e) => {
      ended = true;
      complete?.();
      reject(
        new NetworkError('NetworkFailure', `the hub's WebSocket closed before it opened (${e.code}${e.reason ? `: ${e.reason}` : ''})`),
      );
    };
    ws.onerror = () => undefined; // a close follows
    const messages$ = new Observable<unknown>((subscriber) => {
      next = (m) => subscriber.next(m);
      complete = () => subscriber.complete();
      for (const m of early.splice(0)) subscriber.next(m);
      if (ended) subscriber.complete();
    }).pipe(share());
    ws.onopen = () =>
      resolve({
        send: (message) => {
          if (ws.readyState === 1) ws.send(JSON.stringify(message));
        },
        messages$,
        close: () => ws.close(1000),
      });
  });
}

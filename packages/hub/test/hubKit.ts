/**
 * The hub's test kit: a hub attached to a real HTTP server on the loopback, over a factory of the
 * server under test; tabs (`hubListerWatcherSource` over `ws`'s WebSocket) that count what they
 * receive; a static-token authenticator, the package's SubjectAccessReview authorizer without a
 * cache, and an allow-all authorizer named as such for tests not about authorization.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createInformerFactory,
  fetchListerWatcher,
  type InformerFactory,
  type KubeObject,
  type ListerWatcherSource,
} from '@rxinformer/core';
import { WebSocket } from 'ws';
import type { Authenticator, Authorizer, HubUser } from '../src/auth.ts';
import { subjectAccessReviewAuthorizer, type ReviewClient, type SubjectAccessReviewAuthorizer } from '../src/auth/index.ts';
import { hubListerWatcherSource, type HubClientOptions, type WebSocketLike } from '../src/browser/index.ts';
import { createHub, type Hub } from '../src/hub.ts';
import type { HubOptions } from '../src/options.ts';
import type { TestApi, TestServer } from '@rxinformer/testing/servers';

const TOKEN_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** Authenticates the bearer token (header or subprotocol) of a fixed table: a static token file, for tests. */
export function tokenTableAuthenticatorForTests(users: Readonly<Record<string, HubUser>>): Authenticator {
  return {
    authenticate: async (request: IncomingMessage) => {
      const token = bearerOf(request);
      const user = token === undefined ? undefined : users[token];
      return user ? { user } : { refused: 401, message: 'the bearer token does not authenticate' };
    },
  };
}

/** The bearer token of a request: its Authorization header, or kube-apiserver's subprotocol. */
export function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7);
  for (const p of String(request.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const t = p.trim();
    if (t.startsWith(TOKEN_PREFIX)) return Buffer.from(t.slice(TOKEN_PREFIX.length), 'base64url').toString();
  }
  return undefined;
}

/** Allows everything: only for tests that are not about authorization. */
export const allowAllAuthorizerForTests: Authorizer = { authorize: async () => ({ allowed: true, reason: 'allow-all (tests)' }) };

/** A `ReviewClient` over the test kit's API client (the server's admin token): TokenReviews and SubjectAccessReviews. */
export const reviewClient = (api: TestApi): ReviewClient => ({
  request: async <T>(r: { path: string; body: unknown }) => (await api.create(r.path, r.body)) as T,
});

/**
 * The package's SubjectAccessReview authorizer without a cache: one review per decision; the test
 * calls `invalidate()` after an RBAC change it made.
 */
export const uncachedReviewAuthorizer = (api: TestApi): SubjectAccessReviewAuthorizer =>
  subjectAccessReviewAuthorizer(reviewClient(api), { allowTtlMs: 0, denyTtlMs: 0 });

/** A hub on the loopback over `server`. */
export interface TestHub {
  readonly hub: Hub;
  readonly factory: InformerFactory;
  readonly http: Server;
  /** `ws://127.0.0.1:port/hub`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The source of a factory over the server under test's HTTP API (through its fault proxy). */
export function serverSource(server: TestServer): ListerWatcherSource {
  const http = server.fetchOptions();
  return (resource, scope) => fetchListerWatcher({ ...http, resource, ...scope });
}

/** Starts a hub over one factory of `server` (the `default` cluster) on a loopback HTTP server. */
export async function startTestHub(
  server: TestServer,
  options: Partial<HubOptions> & Pick<HubOptions, 'authenticator' | 'authorizer'>,
): Promise<TestHub> {
  const factory = createInformerFactory(serverSource(server));
  const hub = createHub({ clusters: { default: factory }, ...options });
  const http = createServer((_req, res) => res.writeHead(404).end());
  hub.attach(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/hub`;
  return {
    hub,
    factory,
    http,
    url,
    close: async () => {
      await hub.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** What a tab received: objects (page items and non-BOOKMARK events), messages, and its sockets. */
export interface TabWire {
  objects: number;
  messages: number;
  /** Bytes of the frames received. */
  bytes: number;
  /** Every object received, as `namespace/name`. */
  readonly seen: string[];
  /** The sockets the tab opened, in order. */
  readonly sockets: WebSocket[];
}

/** A tab's source over `ws`'s WebSocket, counting what arrives. */
export function tabSource(url: string, token: string | undefined, options: HubClientOptions = {}) {
  const wire: TabWire = { objects: 0, messages: 0, bytes: 0, seen: [], sockets: [] };
  const Counting = class extends WebSocket {
    constructor(target: string, protocols?: string[]) {
      super(target, protocols);
      wire.sockets.push(this);
      this.on('message', (data) => {
        wire.messages++;
        wire.bytes += (data as Buffer).length;
        const m = JSON.parse((data as Buffer).toString('utf8')) as {
          t: string;
          page?: { items: KubeObject[] };
          events?: { type: string; object: KubeObject }[];
        };
        const objects =
          m.t === 'page' ? m.page!.items : m.t === 'events' ? m.events!.filter((e) => e.type !== 'BOOKMARK').map((e) => e.object) : [];
        wire.objects += objects.length;
        for (const o of objects) wire.seen.push(`${o.metadata?.namespace ?? ''}/${o.metadata?.name}`);
      });
    }
  };
  const source = hubListerWatcherSource(url, {
    token: () => token,
    WebSocket: Counting as unknown as new (url: string, protocols?: string[]) => WebSocketLike,
    reconnectBackoff: { initialMs: 50, maxMs: 1000 },
    ...options,
  });
  return { source, wire };
}

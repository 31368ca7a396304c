import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { virtualClock } from '@rxinformer/testing';
import {
  makePki,
  serverKinds,
  serviceAccountToken,
  START_TIMEOUT_MS,
  startTestServer,
  type Pki,
  type TestServer,
} from '@rxinformer/testing/servers';
import { createInformerFactory } from '@rxinformer/core';
import { interval, NEVER } from 'rxjs';
import { WebSocket } from 'ws';
import { createHub } from '../src/hub.ts';
import { HUB_SUBPROTOCOL } from '../src/upgrade.ts';
import type { Authenticator, HubUser } from '../src/auth.ts';
import { BEARER_PROTOCOL_PREFIX, requestHeaderAuthenticator, tokenReviewAuthenticator, type ReviewClient } from '../src/auth/index.ts';
import { reviewClient } from './hubKit.ts';

/** What a server answered after authenticating a request: the result, or the error's name and reason. */
type Outcome = {
  user?: HubUser;
  expiresAt?: number;
  refused?: number;
  error?: string;
  reason?: string;
  left?: string[];
};

/** Serves `authenticator`'s outcome for each request (and each WebSocket upgrade) as JSON; `left`: our headers still on the request after. */
function outcomeServer(authenticator: Authenticator, server: Server = createServer()): Server {
  const answer = async (req: IncomingMessage): Promise<string> => {
    const outcome: Outcome = await authenticator
      .authenticate(req)
      .catch((e: { name: string; reason?: string }) => ({ error: e.name, reason: e.reason }));
    return JSON.stringify({ ...outcome, left: Object.keys(req.headers).filter((h) => h.startsWith('x-remote-')) });
  };
  server.on('request', (req, res) => void answer(req).then((body) => res.writeHead(200).end(body)));
  server.on(
    'upgrade',
    (req, socket) =>
      void answer(req).then((body) =>
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`),
      ),
  );
  return server;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Sends one request (an upgrade when `headers` ask one) and parses the outcome. */
function ask(port: number, headers: OutgoingHttpHeaders, tls?: { ca: string; cert?: string; key?: string }): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path: '/hub', headers, ...(tls && { ...tls, servername: undefined }) };
    const req = (tls ? httpsRequest : httpRequest)(options);
    const read = (res: IncomingMessage) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body) as Outcome));
    };
    req.on('response', read);
    req.on('upgrade', (res) => read(res));
    req.on('error', reject);
    req.end();
  });
}

const upgrade = (protocols: string[]) => ({ connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-protocol': protocols.join(', ') });
const carrier = (token: string) => `${BEARER_PROTOCOL_PREFIX}${Buffer.from(token).toString('base64url')}`;

describe.each(serverKinds())('tokenReviewAuthenticator on the %s server', (kind) => {
  let server: TestServer;
  let http: Server;
  let port: number;
  let reviews = 0;
  let user: { token: string; username: string };
  let authenticator: ReturnType<typeof tokenReviewAuthenticator>;
  beforeAll(async () => {
    server = await startTestServer(kind, { sim: { auth: { token: 'authn-admin' } } });
    user = await serviceAccountToken(server, await server.namespace('authn'), 'alice');
    const client = reviewClient(server.api);
    const counting: ReviewClient = { request: (r) => (reviews++, client.request(r)) };
    authenticator = tokenReviewAuthenticator(counting, { cookie: 'hub-token' });
    http = outcomeServer(authenticator);
    port = await listen(http);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    http?.closeAllConnections();
    await new Promise((r) => http?.close(r));
    await server?.close();
  });

  it('should authenticate a token from the Authorization header, the subprotocol or the cookie, asking once', async () => {
    const want = { username: user.username, groups: expect.arrayContaining(['system:authenticated', 'system:serviceaccounts']) };
    const byHeader = await ask(port, { authorization: `Bearer ${user.token}` });
    expect(byHeader.user).toMatchObject(want);
    // a ServiceAccount token of kube-apiserver is a JWT: the connection ends at its exp (the simulator's are not)
    if (kind === 'real') expect(byHeader.expiresAt).toBeGreaterThan(Date.now());
    expect(await ask(port, upgrade([carrier(user.token), 'rxinformer.channel.v1']))).toMatchObject({ user: want });
    expect(await ask(port, { cookie: `other=1; hub-token=${encodeURIComponent(user.token)}` })).toMatchObject({ user: want });
    expect(reviews).toBe(1);
    const key = createHash('sha256').update(user.token).digest('base64url');
    expect(authenticator.cachedKeys()).toEqual([key]);
    expect(JSON.stringify(authenticator.cachedKeys())).not.toContain(user.token);
  });

  it('should refuse (401) a missing, unknown or malformed token, and a token for other audiences', async () => {
    expect(await ask(port, {})).toMatchObject({ refused: 401 });
    expect(await ask(port, { authorization: 'Bearer not-a-token' })).toMatchObject({ refused: 401 });
    expect(await ask(port, upgrade([`${carrier(user.token)}=`, 'rxinformer.channel.v1']))).toMatchObject({ refused: 401 }); // padded
    expect(await ask(port, upgrade([carrier(user.token)]))).toMatchObject({ refused: 401 }); // nothing else to select
    expect(await ask(port, upgrade([carrier(user.token), carrier('x'), 'rxinformer.channel.v1']))).toMatchObject({ refused: 401 });
    expect(await ask(port, { 'sec-websocket-protocol': `${carrier(user.token)}, rxinformer.channel.v1` })).toMatchObject({ refused: 401 }); // not an upgrade
    const other = tokenReviewAuthenticator(reviewClient(server.api), { audiences: ['https://not-this-server.example'] });
    const otherServer = outcomeServer(other);
    const otherPort = await listen(otherServer);
    expect(await ask(otherPort, { authorization: `Bearer ${user.token}` })).toMatchObject({ refused: 401 });
    otherServer.close();
  });

  it('should reject with a ReviewFailedError (a 503 for the hub, not a 401) when TokenReview itself fails', async () => {
    // the hub's own credential without RBAC: the API server refuses the TokenReview
    const failing: ReviewClient = {
      request: async (r) => {
        const answer = await server.api.call('POST', r.path, r.body, { authorization: `Bearer ${user.token}` });
        if (answer.status >= 400) throw new Error(`HTTP ${answer.status}`);
        return answer.body;
      },
    };
    const failingServer = outcomeServer(tokenReviewAuthenticator(failing));
    const failingPort = await listen(failingServer);
    expect(await ask(failingPort, { authorization: `Bearer ${user.token}` })).toMatchObject({
      error: 'ReviewFailedError',
      reason: 'TokenReviewFailed',
    });
    failingServer.close();
  });
});

describe('tokenReviewAuthenticator cache', () => {
  it('should remember a token no longer than its exp, in virtual time', async () => {
    const { ts, advance } = virtualClock(100);
    interval(100, ts).subscribe(); // the clock at every step
    let reviews = 0;
    const client: ReviewClient = {
      request: async <T>() => (reviews++, { status: { authenticated: true, user: { username: 'alice', groups: [] } } }) as T,
    };
    const jwt = ['{"alg":"none"}', '{"exp":2}', ''].map((p) => Buffer.from(p).toString('base64url')).join('.'); // exp: 2 s past the epoch
    const authenticator = tokenReviewAuthenticator(client, { successTtlMs: 10_000, scheduler: ts });
    const req = { headers: { authorization: `Bearer ${jwt}` } } as IncomingMessage;
    expect(await authenticator.authenticate(req)).toEqual({ user: { username: 'alice', groups: [] }, expiresAt: 2000 });
    await advance(1900);
    await authenticator.authenticate(req);
    expect(reviews).toBe(1);
    await advance(2000);
    await authenticator.authenticate(req);
    expect(reviews).toBe(2);
  });
});

describe('requestHeaderAuthenticator over TLS', () => {
  let pki: Pki;
  let dir: string;
  let port: number;
  let server: Server;
  const proxyHeaders = { 'x-remote-user': 'alice', 'x-remote-group': ['team-a', 'team,b'], 'x-remote-extra-scopes': 'view' };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hub-pki-'));
    pki = makePki(dir);
    const fallback: Authenticator = { authenticate: async () => ({ user: { username: 'from-otherwise', groups: [] } }) };
    const authenticator = requestHeaderAuthenticator({ clientCA: pki.ca, allowedNames: ['rxinformer-test'], otherwise: fallback });
    server = outcomeServer(
      authenticator,
      createHttpsServer({ key: pki.key, cert: pki.cert, requestCert: true, rejectUnauthorized: false }) as unknown as Server,
    );
    port = await listen(server);
  });
  afterAll(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should read the user from the headers of a proxy whose certificate the CA signed with an allowed name, and remove them', async () => {
    const outcome = await ask(port, proxyHeaders, { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey });
    expect(outcome).toEqual({ user: { username: 'alice', groups: ['team-a', 'team,b'], extra: { scopes: ['view'] } }, left: [] });
  });

  it('should refuse the headers of a certificate with another name, of another CA, or of no certificate, and never pass them on', async () => {
    const refused = { refused: 401, left: [] };
    expect(await ask(port, proxyHeaders, { ca: pki.ca, cert: pki.client2Cert, key: pki.client2Key })).toMatchObject(refused);
    expect(await ask(port, proxyHeaders, { ca: pki.ca, cert: pki.otherCa, key: pki.otherKey })).toMatchObject(refused);
    expect(await ask(port, proxyHeaders, { ca: pki.ca })).toMatchObject(refused);
  });

  it('should hand a request without the headers from an untrusted peer to the other authenticator', async () => {
    expect(await ask(port, {}, { ca: pki.ca })).toMatchObject({ user: { username: 'from-otherwise' } });
  });

  it("should open a hub's WebSocket for a proxy's user over TLS, and refuse the upgrade of an untrusted certificate with 401", async () => {
    const seen: string[] = [];
    const https = createHttpsServer({ key: pki.key, cert: pki.cert, requestCert: true, rejectUnauthorized: false });
    const hub = createHub({
      clusters: { default: createInformerFactory(() => ({ list: () => NEVER, watch: () => NEVER })) },
      authenticator: requestHeaderAuthenticator({ clientCA: pki.ca, allowedNames: ['rxinformer-test'] }),
      authorizer: { authorize: async (user) => (seen.push(user.username), { allowed: false }) },
    });
    hub.attach(https);
    const hubPort = await listen(https as unknown as Server);
    const open = (cert: string, key: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`wss://127.0.0.1:${hubPort}/hub`, [HUB_SUBPROTOCOL], {
          ca: pki.ca,
          cert,
          key,
          headers: { 'x-remote-user': 'alice' },
        });
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      });
    expect(await open(pki.clientCert, pki.clientKey)).toBe(101);
    expect(await open(pki.client2Cert, pki.client2Key)).toBe(401);
    expect(hub.metrics().upgradesRefused.unauthenticated).toBe(1);
    await hub.close();
    https.closeAllConnections();
    https.close();
  });

  it('should trust a configured address without a certificate, and pass its requests without the headers to otherwise', async () => {
    const fallback: Authenticator = { authenticate: async () => ({ user: { username: 'from-otherwise', groups: [] } }) };
    const plain = outcomeServer(requestHeaderAuthenticator({ trustedAddresses: ['127.0.0.1'], otherwise: fallback }));
    const plainPort = await listen(plain);
    expect(await ask(plainPort, proxyHeaders)).toMatchObject({ user: { username: 'alice' } });
    // as kube-apiserver's: no user header is no request-header authentication, not a refusal
    expect(await ask(plainPort, {})).toMatchObject({ user: { username: 'from-otherwise' } });
    plain.close();
  });
});

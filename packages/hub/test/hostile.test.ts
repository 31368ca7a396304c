import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { until } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { WebSocket } from 'ws';
import type { HubLogFields } from '../src/log.ts';
import { allowAllAuthorizerForTests, startTestHub, tokenTableAuthenticatorForTests, type TestHub } from './hubKit.ts';

const SECRET = 'sekret-token-7f3a9c';
const COOKIE = 'session=cookie-value-51bd';
const PODS = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

// Hostile clients against one hub (the server under test does not matter here: the simulator).
describe.each(serverKinds().filter((k) => k === 'sim'))('the hub against hostile clients (%s server)', (kind) => {
  let server: TestServer;
  let hub: TestHub;
  const logs: [string, string, HubLogFields][] = [];
  beforeAll(async () => {
    server = await startTestServer(kind);
    hub = await startTestHub(server, {
      authenticator: tokenTableAuthenticatorForTests({ [SECRET]: { username: 'mallory', groups: [] } }),
      authorizer: allowAllAuthorizerForTests,
      limits: { maxMessageBytes: 4096, maxMessagesPerSecond: 20, messageBurst: 50, maxConnectionsPerUser: 3 },
      log: (level, message, fields) => logs.push([level, message, fields]),
    });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await hub?.close();
    await server?.close();
  });

  const open = (headers: Record<string, string> = {}) => {
    const ws = new WebSocket(hub.url, ['rxinformer.channel.v1'], {
      headers: { authorization: `Bearer ${SECRET}`, cookie: COOKIE, origin: new URL(hub.url.replace('ws:', 'http:')).origin, ...headers },
    });
    const received: { t: string; id?: string; status?: { code: number } }[] = [];
    const outcome = new Promise<{ status?: number; code?: number }>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
      ws.on('close', (code) => resolve({ code }));
      ws.on('error', () => undefined);
    });
    ws.on('message', (data) => received.push(JSON.parse((data as Buffer).toString('utf8'))));
    const opened = new Promise<boolean>((resolve) => {
      ws.on('open', () => resolve(true));
      void outcome.then(() => resolve(false));
    });
    return { ws, received, outcome, opened };
  };

  it('should refuse upgrades from another origin, without credentials, and past the connections of one user', async () => {
    expect(await open({ origin: 'https://evil.example' }).outcome).toEqual({ status: 403 });
    expect(await open({ authorization: 'Bearer wrong-token' }).outcome).toEqual({ status: 401 });
    expect(await open({ authorization: '' }).outcome).toEqual({ status: 401 });
    const held = [open(), open(), open()];
    expect(await Promise.all(held.map((c) => c.opened))).toEqual([true, true, true]);
    expect(await open().outcome).toEqual({ status: 429 });
    for (const c of held) c.ws.close();
    await until(() => hub.hub.metrics().clients === 0, { what: 'the connections closed' });
    expect(hub.hub.metrics().upgradesRefused).toMatchObject({ origin: 1, unauthenticated: 2, tooManyConnections: 1 });
  });

  it('should answer malformed messages with 400 and serve the next request, and close on an oversized message or a flood', async () => {
    const c = open();
    expect(await c.opened).toBe(true);
    const send = (text: string) => c.ws.send(text);
    send(JSON.stringify({ t: 'hello', v: 1 }));
    send('{not json');
    c.ws.send(Buffer.from([1, 2, 3]));
    send(JSON.stringify({ t: 'watch', id: 'a', resource: 'pods', scope: {}, options: {} }));
    send(JSON.stringify({ t: 'watch', id: 'b', resource: PODS, scope: { namespace: 7 }, options: {} }));
    send(JSON.stringify({ t: 'watch', id: 'c', resource: PODS, scope: {}, options: {}, ['__proto__']: { polluted: true } }));
    send(JSON.stringify({ t: 'watch', id: 'd', resource: PODS, scope: {}, options: {}, cluster: 'elsewhere' }));
    send(JSON.stringify({ t: 'watch', id: 'e', resource: PODS, scope: {}, options: {}, projection: { fields: ['metadata.name'] } }));
    send(JSON.stringify({ t: 'watch', id: 'f', resource: PODS, scope: {}, options: {}, projection: { paths: ['spec..nodeName'] } }));
    send(JSON.stringify({ t: 'watch', id: 'g', resource: PODS, scope: {}, options: {}, projection: { table: true, paths: ['spec'] } }));
    send(JSON.stringify({ t: 'watch', id: 'ok', resource: PODS, scope: { namespace: 'default' }, options: {} }));
    await until(() => c.received.some((m) => m.t === 'open' && m.id === 'ok'), { what: 'the valid watch open' });
    const codes = Object.fromEntries(c.received.filter((m) => m.t === 'error').map((m) => [m.id ?? '-', m.status?.code]));
    expect(codes).toMatchObject({ a: 400, b: 400, c: 400, d: 404, e: 400, f: 400, g: 400 });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();

    send(JSON.stringify({ t: 'ping', pad: 'x'.repeat(5000) }));
    expect(await c.outcome).toEqual({ code: 1009 });

    const f = open();
    expect(await f.opened).toBe(true);
    for (let i = 0; i < 2000 && f.ws.readyState === WebSocket.OPEN; i++) f.ws.send(JSON.stringify({ t: 'ping' }));
    expect(await f.outcome).toEqual({ code: 1008 });
    expect(hub.hub.metrics().connectionsClosed).toMatchObject({ rate: 1, messageSize: 1 });
  });

  it('should never log a token, an Authorization header or a cookie', () => {
    expect(logs.length).toBeGreaterThan(5);
    const text = JSON.stringify(logs);
    for (const secret of [SECRET, 'wrong-token', COOKIE, 'cookie-value', 'Bearer', 'evil.example']) expect(text).not.toContain(secret);
  });
});

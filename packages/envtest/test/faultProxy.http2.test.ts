import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidOptionsError, selfSignedCertificate, startFaultProxy, type FaultProxy } from '../src/index.ts';

// The fault proxy speaking HTTP/2 (TLS, ALPN) to its clients, in front of a node:http server that
// answers lists at once and keeps watches open, writing a line every 20 ms.
describe('startFaultProxy with http2', () => {
  const tls = selfSignedCertificate();
  let upstream: Server;
  let proxy: FaultProxy;
  const watches = new Set<ServerResponse>();
  const sessions: ClientHttp2Session[] = [];
  const session = () => {
    const s = connect(proxy.url, { ca: tls.cert });
    s.on('error', () => undefined);
    sessions.push(s);
    return s;
  };
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (!req.url!.includes('watch=true')) return void res.end(JSON.stringify({ kind: 'PodList', items: [], protocol: req.httpVersion }));
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' });
      watches.add(res);
      const tick = setInterval(() => res.write('{"type":"BOOKMARK"}\n'), 20);
      res.on('close', () => {
        clearInterval(tick);
        watches.delete(res);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    proxy = await startFaultProxy({ target, tls, http2: { maxConcurrentStreams: 3 } });
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await proxy.close();
    upstream.closeAllConnections();
    upstream.close();
  });

  it('should speak HTTP/2 to a client that offers it and HTTP/1.1 to one that does not, and count both', async () => {
    const before = { ...proxy.counts };
    const s = session();
    const settings = await new Promise<{ maxConcurrentStreams?: number }>((resolve) => s.once('remoteSettings', resolve));
    expect(settings.maxConcurrentStreams).toBe(3);
    const list = await get(s, '/api/v1/pods');
    expect([list.status, JSON.parse(list.body)]).toEqual([200, { kind: 'PodList', items: [], protocol: '1.1' }]); // HTTP/1.1 to the target
    const h1 = await new Promise<number>((resolve, reject) =>
      httpsRequest(proxy.url + '/api/v1/pods', { ca: tls.cert }, (res) => resolve(res.resume().statusCode!))
        .on('error', reject)
        .end(),
    );
    expect(h1).toBe(200);
    expect(proxy.counts.connections - before.connections).toBe(2);
    expect(proxy.counts.http2Sessions - before.http2Sessions).toBe(1);
    s.close();
  });

  it('should cut watches by resetting their streams, leaving their connection, and reset the whole connection on reset', async () => {
    const s = session();
    const one = watch(s, '/api/v1/pods?watch=true&a=1');
    const two = watch(s, '/api/v1/pods?watch=true&a=2');
    await until(() => one.lines() >= 2 && two.lines() >= 2);
    expect(proxy.cut()).toBe(2);
    expect(await one.ended).toMatch(/NGHTTP2_INTERNAL_ERROR/);
    expect(await two.ended).toMatch(/NGHTTP2_INTERNAL_ERROR/);
    await until(() => watches.size === 0); // the upstream watches are closed too
    expect(s.closed || s.destroyed).toBe(false); // the connection stays
    expect((await get(s, '/api/v1/pods')).status).toBe(200);
    const third = watch(s, '/api/v1/pods?watch=true&a=3');
    await until(() => third.lines() >= 1);
    expect(proxy.reset()).toBe(1);
    expect(await third.ended).toMatch(/ECONNRESET|NGHTTP2|closed|aborted/);
    await until(() => s.destroyed || s.closed);
  });

  it('should blackhole the open connections: no byte passes, a PING goes unanswered, a new connection works', async () => {
    const s = session();
    const w = watch(s, '/api/v1/pods?watch=true&b=1');
    await until(() => w.lines() >= 2);
    const pings = proxy.counts.pings;
    expect(await ping(s)).toBe('ack');
    expect(proxy.counts.pings).toBe(pings + 1);
    expect(proxy.blackhole()).toBeGreaterThanOrEqual(1);
    await sleep(100);
    const frozen = w.lines();
    const unanswered = ping(s);
    expect(await Promise.race([unanswered, sleep(500).then(() => 'no ack')])).toBe('no ack');
    expect(w.lines()).toBe(frozen);
    expect(s.destroyed).toBe(false); // open, and silent
    const fresh = session();
    expect((await get(fresh, '/api/v1/pods')).status).toBe(200);
    s.destroy();
    await until(() => proxy.openConnections() === 1); // the client's end closes the relay's
  });

  it('should send a GOAWAY that lets the stream in flight finish and refuses new streams on that connection', async () => {
    const s = session();
    const w = watch(s, '/api/v1/pods?watch=true&c=1');
    await until(() => w.lines() >= 1);
    const goaway = new Promise<number>((resolve) => s.once('goaway', resolve));
    expect(proxy.goaway()).toBeGreaterThanOrEqual(1);
    expect(await goaway).toBe(0); // NO_ERROR
    const at = w.lines();
    await until(() => w.lines() >= at + 3); // still delivering
    expect(() => s.request({ ':path': '/api/v1/pods' })).toThrow(/GOAWAY|closed|destroyed/i);
    expect((await get(session(), '/api/v1/pods')).status).toBe(200);
    proxy.cut();
    await w.ended;
  });

  it('should refuse HTTP/2 without TLS', async () => {
    await expect(startFaultProxy({ target: 'http://127.0.0.1:1', http2: true })).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

function get(s: ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':path': path });
    let status = 0;
    let body = '';
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
    req.end();
  });
}

/** A watch on an HTTP/2 connection: lines so far, and how it ended (the error's message, or 'end'). */
function watch(s: ClientHttp2Session, path: string) {
  let text = '';
  const req: ClientHttp2Stream = s.request({ ':path': path });
  const ended = new Promise<string>((resolve) => {
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => resolve('end'));
    req.on('error', (e) => resolve(e.message));
  });
  req.end();
  return { lines: () => text.split('\n').length - 1, ended };
}

function ping(s: ClientHttp2Session): Promise<string> {
  return new Promise((resolve) => s.ping((error) => resolve(error ? error.message : 'ack')));
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await sleep(20);
  expect(check()).toBe(true);
}

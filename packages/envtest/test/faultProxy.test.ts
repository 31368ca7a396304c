import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidOptionsError, startFaultProxy, type FaultProxy } from '../src/index.ts';

// The fault proxy in front of a node:http server that answers lists at once and keeps watches open,
// writing a line every 20 ms.
describe('startFaultProxy', () => {
  let upstream: Server;
  let proxy: FaultProxy;
  const seen: string[] = [];
  const watches = new Set<ServerResponse>();
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.url!);
      if (req.url!.includes('quiet=1')) {
        // A watch with nothing to say yet: the server sends its headers at once, as kube-apiserver does.
        res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
        watches.add(res);
        res.on('close', () => watches.delete(res));
      } else if (req.url!.includes('watch=true')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        watches.add(res);
        const tick = setInterval(() => res.write('{"type":"BOOKMARK"}\n'), 20);
        res.on('close', () => {
          clearInterval(tick);
          watches.delete(res);
        });
      } else res.end(JSON.stringify({ kind: 'PodList', items: [], path: req.url, auth: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await startFaultProxy({
      target: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`,
      rewrite: (path) => path.replace(/&dropme=1/, ''),
    });
  });
  afterAll(async () => {
    await proxy.close();
    upstream.closeAllConnections();
    upstream.close();
  });

  it('should forward requests with their headers, rewritten as asked', async () => {
    const answer = await get(proxy.url + '/api/v1/pods?limit=5&dropme=1', { authorization: 'Bearer t' });
    expect([answer.status, JSON.parse(answer.body)]).toEqual([
      200,
      { kind: 'PodList', items: [], path: '/api/v1/pods?limit=5', auth: 'Bearer t' },
    ]);
  });

  it('should cut, reset and stall open watches, and leave other requests alone', async () => {
    for (const fault of ['cut', 'reset'] as const) {
      const watch = stream(proxy.url + '/api/v1/pods?watch=true');
      await until(() => watch.lines() >= 2);
      expect(proxy.open()).toBe(1);
      expect(proxy[fault]()).toBe(1);
      expect(await watch.ended).toMatch(fault === 'cut' ? /aborted|socket hang up|ECONNRESET/ : /ECONNRESET|aborted/);
      await until(() => watches.size === 0); // the upstream watch is closed too
    }
    const stalled = stream(proxy.url + '/api/v1/pods?watch=true');
    await until(() => stalled.lines() >= 2);
    expect(proxy.stall()).toBe(1);
    await sleep(50);
    const frozen = stalled.lines();
    await sleep(200);
    expect(stalled.lines()).toBe(frozen); // open and silent
    expect(proxy.open()).toBe(1);
    expect((await get(proxy.url + '/api/v1/pods')).status).toBe(200); // lists still pass
    proxy.cut();
    await stalled.ended;
  });

  it('should end a client stream whose server died mid-response', async () => {
    const watch = stream(proxy.url + '/api/v1/pods?watch=true');
    await until(() => watch.lines() >= 1 && watches.size === 1);
    for (const res of watches) res.socket!.destroy(); // the server process goes away
    expect(await watch.ended).toMatch(/aborted|socket hang up|ECONNRESET|terminated/);
  });

  it("should pass a quiet watch's headers on at once, before any event", async () => {
    let status = 0;
    const req = request(proxy.url + '/api/v1/pods?watch=true&quiet=1', (res) => (status = res.statusCode!));
    req.on('error', () => {}).end();
    await until(() => status === 200); // held until the first event (never) before
    req.destroy();
    await until(() => watches.size === 0);
  });

  it('should answer the next requests with an injected failure, and delay requests', async () => {
    proxy.failNext(1, { code: 429, on: 'list', retryAfterSeconds: 2 });
    const refused = await get(proxy.url + '/api/v1/pods');
    expect([refused.status, refused.headers['retry-after'], JSON.parse(refused.body).reason]).toEqual([429, '2', 'TooManyRequests']);
    expect((await get(proxy.url + '/api/v1/pods')).status).toBe(200);
    proxy.setLatency(300);
    const started = performance.now();
    await get(proxy.url + '/api/v1/pods');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290); // a lower bound only: the delay is the proxy's own timer
    proxy.clear();
    expect(proxy.counts.failed).toBe(1);
  });

  it("should end the next watches of a user agent at once: the server's headers, then an empty body", async () => {
    proxy.endNextWatches(1, { userAgentContains: 'peer-b' });
    const other = stream(proxy.url + '/api/v1/pods?watch=true', { 'user-agent': 'peer-a/1' });
    await until(() => other.lines() >= 2); // another agent's watch passes
    expect((await get(proxy.url + '/api/v1/pods', { 'user-agent': 'peer-b/1' })).body).toContain('PodList'); // a list is no watch
    const before = seen.length;
    const ended = await get(proxy.url + '/api/v1/pods?watch=true&ended=1', { 'user-agent': 'peer-b/1' });
    expect([ended.status, ended.headers['content-type'], ended.body]).toEqual([200, 'application/json', '']);
    expect(seen.slice(before)).toEqual(['/api/v1/pods?watch=true&ended=1']); // the server did answer it
    const next = stream(proxy.url + '/api/v1/pods?watch=true', { 'user-agent': 'peer-b/1' });
    await until(() => next.lines() >= 2); // the next one passes
    expect(proxy.counts.ended).toBe(1);
    expect(proxy.cut()).toBe(2);
    await Promise.all([other.ended, next.ended]);
  });

  it('should fail only the writes to a path, until cleared', async () => {
    proxy.failNext(1000, { code: 500, on: 'write', pathContains: '/leases/' });
    const lease = proxy.url + '/apis/coordination.k8s.io/v1/namespaces/a/leases/l';
    expect((await send('PUT', lease)).status).toBe(500);
    expect((await send('POST', proxy.url + '/apis/coordination.k8s.io/v1/namespaces/a/leases/')).status).toBe(500);
    expect((await get(lease)).status).toBe(200); // reads pass
    expect((await send('PATCH', proxy.url + '/api/v1/namespaces/a/configmaps/c')).status).toBe(200); // other paths pass
    expect((await send('PUT', proxy.url + '/api/v1/namespaces/a/configmaps/c?x=/leases/')).status).toBe(200); // the path, not the query
    proxy.clear();
    expect((await send('PUT', lease)).status).toBe(200);
  });

  it('should refuse absurd settings', async () => {
    expect(() => proxy.setLatency(-1)).toThrow(InvalidOptionsError);
    expect(() => proxy.failNext(1, { code: 200 })).toThrow(InvalidOptionsError);
    expect(() => proxy.failNext(Infinity, { code: 500 })).toThrow(InvalidOptionsError);
    expect(() => proxy.endNextWatches(-1)).toThrow(InvalidOptionsError);
    // A misspelt target (it matched lists before) is refused, not taken for another.
    expect(() => proxy.failNext(1, { code: 500, on: 'watches' as 'watch' })).toThrow(
      /on must be one of watch, list, write, any, not watches/,
    );
    await expect(startFaultProxy({ target: 'ftp://x' })).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

function send(method: string, url: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    request(url, { method }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode! }));
    })
      .on('error', reject)
      .end('{}');
  });
}

/** A streaming GET: lines received so far, and how it ended (the error's message, or 'end'). */
function stream(url: string, headers: Record<string, string> = {}) {
  let text = '';
  let resolveEnded!: (how: string) => void;
  const ended = new Promise<string>((resolve) => (resolveEnded = resolve));
  request(url, { headers }, (res) => {
    res.on('data', (d: Buffer) => (text += d.toString()));
    res.on('end', () => resolveEnded('end'));
    res.on('error', (e) => resolveEnded(e.message));
    res.on('aborted', () => resolveEnded('aborted'));
  })
    .on('error', (e) => resolveEnded(e.message))
    .end();
  return { lines: () => text.split('\n').length - 1, ended };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await sleep(20);
  expect(check()).toBe(true);
}

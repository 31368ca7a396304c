import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, get as httpGet } from 'node:http';
import { connect, constants } from 'node:http2';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { devCertificate, type DevCertificate } from './devCertificate.ts';
import { forwardableHeaders, isApiPath, startPageServer, type PageServer } from './pageServer.ts';
import { until } from '@rxinformer/testing';

const page = { html: '<!doctype html><script type="module" src="/app.js"></script>', js: 'export const page = 1;\n' };

/** A development certificate made once for this file, in a folder of its own. */
let certDir: string;
let cert: DevCertificate;
beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'page-server-tls-'));
  cert = await devCertificate(certDir);
});
afterAll(async () => {
  await rm(certDir, { recursive: true, force: true });
});

/**
 * How a test talks to the server: over plain HTTP/1.1 (Node's fetch), or over TLS offering HTTP/2
 * (undici with h2 allowed, trusting the development CA).
 */
interface Mode {
  name: string;
  tls: boolean;
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** GETs `path` as written (fetch would normalise it); resolves with the status code. */
  rawGet(url: string, path: string): Promise<number>;
}

const modes: Mode[] = [
  {
    name: 'plain HTTP/1.1',
    tls: false,
    fetch: (url, init) => fetch(url, init),
    rawGet: (url, path) =>
      new Promise((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port: new URL(url).port, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      }),
  },
  {
    name: 'HTTP/2 over TLS',
    tls: true,
    fetch: (url, init) => {
      const dispatcher = new Agent({ allowH2: true, connect: { ca: cert.ca } });
      return undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
    },
    rawGet: (url, path) =>
      new Promise((resolve, reject) => {
        const session = connect(url, { ca: cert.ca });
        session.on('error', reject);
        const req = session.request({ ':path': path });
        req.on('response', (headers) => {
          req.resume();
          resolve(Number(headers[':status']));
          session.close();
        });
        req.on('error', reject);
      }),
  },
];

/** Reads a streamed body until one whole line has arrived. */
async function firstLine(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a line: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text.slice(0, text.indexOf('\n'));
}

describe('isApiPath', () => {
  it('should match the API paths and nothing that only starts like them', () => {
    expect(['/api', '/api/v1/pods', '/apis', '/apis/apps/v1/deployments', '/version', '/version/'].every(isApiPath)).toBe(true);
    expect(['/', '/app.js', '/apix', '/apiserver/x', '/versions', '/index.html'].some(isApiPath)).toBe(false);
  });
});

describe('forwardableHeaders', () => {
  it('should drop hop-by-hop headers and those the Connection header names', () => {
    expect(
      forwardableHeaders({
        connection: 'keep-alive, X-Trace',
        'keep-alive': 'timeout=5',
        'x-trace': '1',
        'transfer-encoding': 'chunked',
        accept: 'application/json',
        authorization: 'Bearer t',
      }),
    ).toEqual({ accept: 'application/json', authorization: 'Bearer t' });
  });

  it("should drop HTTP/2's pseudo-headers and the headers HTTP/2 forbids", () => {
    expect(
      forwardableHeaders({ ':method': 'GET', ':path': '/api', ':authority': 'x', 'proxy-connection': 'keep-alive', accept: '*/*' }),
    ).toEqual({ accept: '*/*' });
  });
});

describe.each(modes)('startPageServer, $name', (mode) => {
  const { fetch, rawGet } = mode;
  let sim: ApiServer;
  let server: PageServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 3 });
    server = await startPageServer({ upstream: sim.url, page, ...(mode.tls && { tls: cert }) });
    expect(server.url).toMatch(mode.tls ? /^https:/ : /^http:/);
  });
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });
  const currentRv = async (): Promise<string> =>
    ((await (await globalThis.fetch(`${sim.url}/api/v1/pods?limit=1`)).json()) as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;

  it('should serve the page at / and its script at /app.js, and nothing else', async () => {
    const html = await fetch(`${server.url}/`);
    expect([html.status, html.headers.get('content-type'), await html.text()]).toEqual([200, 'text/html; charset=utf-8', page.html]);
    const js = await fetch(`${server.url}/app.js`);
    expect([js.status, js.headers.get('content-type'), await js.text()]).toEqual([200, 'text/javascript; charset=utf-8', page.js]);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/`, { method: 'POST', body: 'x' })).status).toBe(405);
  });

  it('should forward lists with their query, and API errors with their Status, unchanged', async () => {
    sim.storage.create('pods', { metadata: { name: 'one' } }, 'default');
    sim.storage.create('pods', { metadata: { name: 'two' } }, 'default');
    const through = await fetch(`${server.url}/api/v1/namespaces/default/pods?limit=1`);
    const direct = await globalThis.fetch(`${sim.url}/api/v1/namespaces/default/pods?limit=1`);
    const [a, b] = [await through.json(), await direct.json()] as { items: unknown[]; metadata: { continue?: string } }[];
    expect(through.status).toBe(200);
    expect(a.items).toHaveLength(1);
    expect(a).toEqual(b);
    const missing = await fetch(`${server.url}/api/v1/namespaces/default/pods/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    expect(await (await fetch(`${server.url}/version`)).json()).toMatchObject({ major: '1' });
  });

  it('should forward writes with their body', async () => {
    const created = await fetch(`${server.url}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'posted' } }),
    });
    expect(created.status).toBe(201);
    expect(sim.storage.find('pods', 'default', 'posted')?.metadata?.name).toBe('posted');
  });

  it('should stream watch events as they happen, and abort the upstream watch when the client leaves', async () => {
    const watches = sim.watches.sessions().length;
    const ac = new AbortController();
    const r = await fetch(`${server.url}/api/v1/namespaces/default/pods?watch=true&resourceVersion=${await currentRv()}`, {
      signal: ac.signal,
    });
    expect(r.status).toBe(200);
    const reader = r.body!.getReader();
    // The response is open and nothing is buffered: an object created now arrives while it stays open.
    const line = firstLine(reader);
    sim.storage.create('pods', { metadata: { name: 'live' } }, 'default');
    expect(JSON.parse(await line)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'live' } } });
    await until(() => sim.watches.sessions().length === watches + 1);
    ac.abort();
    await until(() => sim.watches.sessions().length === watches);
  });

  it('should end the client response abruptly when the API server drops the watch', async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces/default/pods?watch=true&resourceVersion=${await currentRv()}`);
    const reader = r.body!.getReader();
    const line = firstLine(reader);
    sim.storage.create('pods', { metadata: { name: 'before-drop' } }, 'default');
    expect(JSON.parse(await line)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'before-drop' } } });
    sim.faults.dropWatches('all');
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'clean end';
      })(),
    ).rejects.toThrow();
  });

  it('should answer a request target that is not a URL with 400, and keep serving', async () => {
    const thrown: unknown[] = [];
    const record = (e: unknown) => thrown.push(e);
    process.on('uncaughtException', record);
    try {
      // `new URL('//[', base)` threw out of the request listener: uncaught, it ended the process.
      expect(await rawGet(server.url, '//[')).toBe(400);
      expect(await rawGet(server.url, '/')).toBe(200);
      expect(thrown).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it('should answer 502 with a Status when the API server is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const orphan = await startPageServer({ upstream: `http://127.0.0.1:${port}`, page, ...(mode.tls && { tls: cert }) });
    try {
      const r = await fetch(`${orphan.url}/api/v1/pods`);
      expect(r.status).toBe(502);
      expect(await r.json()).toMatchObject({ kind: 'Status', status: 'Failure', code: 502, reason: 'ServiceUnavailable' });
      expect((await fetch(`${orphan.url}/`)).status).toBe(200);
    } finally {
      await orphan.close();
    }
  });
});

describe('startPageServer with tls', () => {
  let sim: ApiServer;
  let server: PageServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 4 });
    server = await startPageServer({ upstream: sim.url, page, tls: cert });
  });
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('should speak HTTP/2 to a client that offers it, and HTTP/1.1 over TLS to one that does not', async () => {
    expect(server.protocol).toBe('h2');
    const session = connect(server.url, { ca: cert.ca });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = session.request({ ':path': '/version' });
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
        req.resume();
      });
      expect([session.alpnProtocol, status]).toEqual(['h2', 200]);
    } finally {
      session.close();
    }
    const version = await new Promise<string>((resolve, reject) => {
      httpsGet(`${server.url}/version`, { ca: cert.ca }, (res) => {
        res.resume();
        resolve(`${res.httpVersion} ${res.statusCode}`);
      }).on('error', reject);
    });
    expect(version).toBe('1.1 200');
  });

  it('should carry many watches on one connection, each live, each aborted upstream by an RST_STREAM', async () => {
    const before = sim.watches.sessions().length;
    const session = connect(server.url, { ca: cert.ca });
    const rv = ((await (await fetch(`${sim.url}/api/v1/pods?limit=1`)).json()) as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;
    const streams = Array.from({ length: 12 }, () =>
      session.request({ ':path': `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}` }),
    );
    const received = streams.map(() => '');
    streams.forEach((stream, i) => stream.on('data', (chunk: Buffer) => (received[i] += chunk.toString())));
    try {
      await until(() => sim.watches.sessions().length === before + 12); // more than a browser's 6 HTTP/1.1 connections
      sim.storage.create('pods', { metadata: { name: 'to-all' } }, 'default');
      await until(() => received.every((text) => text.includes('"to-all"')));
      for (const stream of streams) stream.close(constants.NGHTTP2_CANCEL); // what a browser sends when a fetch is aborted
      await until(() => sim.watches.sessions().length === before);
    } finally {
      session.close();
    }
  });

  it("should reset the page's stream when the API server drops the watch", async () => {
    const session = connect(server.url, { ca: cert.ca });
    try {
      const stream = session.request({ ':path': '/api/v1/namespaces/default/pods?watch=true' });
      stream.resume();
      const outcome = new Promise<string>((resolve) => {
        stream.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        stream.on('end', () => resolve('clean end'));
      });
      await new Promise((resolve) => stream.once('response', resolve));
      await until(() => sim.watches.sessions().length > 0);
      sim.faults.dropWatches('all');
      expect(await outcome).toBe('ERR_HTTP2_STREAM_ERROR');
    } finally {
      session.close();
    }
  });
});

/**
 * The HTTP/2 side of the transport against node:http2 servers of the test's own: client
 * certificates (and their rotation) on HTTP/2 connections, a server that asks for HTTP/1.1
 * (HTTP_1_1_REQUIRED), the cluster's proxy-url as a CONNECT tunnel, and the `http2` option.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { constants, createSecureServer, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidOptionsError, NetworkError } from '@rxinformer/core';
import { createKubeTransport, type KubeTransport, type KubeTransportOptions } from '../src/index.ts';
import { makePki, type Pki } from '@rxinformer/testing/servers';

let dir: string;
let pki: Pki;
let server: Http2SecureServer;
let url: string;
/** What the server saw: each request's protocol and client certificate, each TLS connection. */
const seen: { protocol: string; who: string; path: string }[] = [];
let connections = 0;
/** Streams held open by `/watch`, written to by the test. */
const watches = new Set<ServerHttp2Stream>();
/** A path prefix the server refuses over HTTP/2 with HTTP_1_1_REQUIRED. */
const H1_ONLY = '/h1-only';
/** A path whose first `refusals` streams the server refuses unprocessed (REFUSED_STREAM), as past a GOAWAY. */
const REFUSED = '/refused-at-first';
let refusals = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxinformer-h2-'));
  pki = makePki(dir);
  server = createSecureServer(
    { cert: pki.cert, key: pki.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true, allowHTTP1: true },
    (req, res) => {
      const who = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
      seen.push({ protocol: req.httpVersion, who, path: req.url });
      if (req.httpVersion === '2.0' && req.url.startsWith(H1_ONLY)) return req.stream.close(constants.NGHTTP2_HTTP_1_1_REQUIRED);
      if (req.url.startsWith(REFUSED) && refusals-- > 0) return req.stream.close(constants.NGHTTP2_REFUSED_STREAM);
      if (req.url.startsWith('/watch')) {
        req.stream.respond({ ':status': 200, 'content-type': 'application/json' });
        watches.add(req.stream);
        req.stream.once('close', () => watches.delete(req.stream));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Who', who, protocol: req.httpVersion }));
    },
  );
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A KubeConfig for the server, with the CA and a client certificate (inline, or as files), through `proxyUrl`. */
function kubeConfig(user: { certFile?: string; keyFile?: string } = {}, proxyUrl?: string): KubeConfig {
  const kc = new KubeConfig();
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, caData: b64(pki.ca), ...(proxyUrl && { proxyUrl }) }],
    users: [{ name: 'u', ...(user.certFile ? user : { certData: b64(pki.clientCert), keyData: b64(pki.clientKey) }) }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

async function using<T>(kc: KubeConfig, options: KubeTransportOptions, use: (t: KubeTransport) => Promise<T>): Promise<T> {
  const transport = createKubeTransport(kc, options);
  try {
    return await use(transport);
  } finally {
    await transport.close();
  }
}

describe('createKubeTransport over HTTP/2', () => {
  it("should authenticate with the kubeconfig's client certificate, and open a connection with a rotated one, leaving the old one's watch", async () => {
    const certFile = join(dir, 'rotating.crt');
    const keyFile = join(dir, 'rotating.key');
    const install = (cert: string, key: string) => (writeFileSync(certFile, cert), writeFileSync(keyFile, key));
    install(pki.clientCert, pki.clientKey);
    await using(kubeConfig({ certFile, keyFile }), {}, async (transport) => {
      const who = () => transport.getJson<{ who: string; protocol: string }>('/who');
      expect(await who()).toEqual({ kind: 'Who', who: 'rxinformer-test', protocol: '2.0' });
      const abort = new AbortController();
      const watch = await transport.get('/watch', abort.signal, 'watch');
      expect(watch.status).toBe(200);
      const before = connections;
      install(pki.client2Cert, pki.client2Key);
      expect(await who()).toMatchObject({ who: 'rxinformer-test-2', protocol: '2.0' });
      expect(connections).toBe(before + 1);
      for (const stream of watches) stream.write('{"type":"BOOKMARK"}\n');
      const first = await watch.chunks()[Symbol.asyncIterator]().next();
      expect(Buffer.from(first.value as Uint8Array).toString()).toContain('BOOKMARK'); // the old connection's watch goes on
      expect(transport.connections!()).toMatchObject({ protocol: 'h2', http2Connections: 2, opened: 2 });
      abort.abort();
    });
  });

  it('should send again over HTTP/1.1 a request the server refuses with HTTP_1_1_REQUIRED, and use HTTP/1.1 from then on', async () => {
    seen.length = 0;
    await using(kubeConfig(), {}, async (transport) => {
      expect(await transport.getJson(`${H1_ONLY}/a`)).toMatchObject({ protocol: '1.1' });
      expect(await transport.getJson('/b')).toMatchObject({ protocol: '1.1' });
      expect(seen.map((s) => `${s.protocol} ${s.path}`)).toEqual([`2.0 ${H1_ONLY}/a`, `1.1 ${H1_ONLY}/a`, '1.1 /b']);
      expect(transport.connections!().protocol).toBe('http/1.1');
    });
  });

  it('should send a request the server refused unprocessed (REFUSED_STREAM) again, a few times at most', async () => {
    await using(kubeConfig(), {}, async (transport) => {
      seen.length = 0;
      refusals = 2;
      expect(await transport.getJson(`${REFUSED}/a`)).toMatchObject({ protocol: '2.0' });
      expect(seen.map((s) => s.path)).toEqual(Array(3).fill(`${REFUSED}/a`));
      expect(transport.connections!().retried).toBe(2);
      refusals = 10;
      const error = await transport.getJson(`${REFUSED}/b`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(String((error as Error).message)).toMatch(/REFUSED_STREAM/);
      expect(transport.connections!().retried).toBe(5);
    });
  });

  it("should reach the server over HTTP/2 through the cluster's proxy-url, a CONNECT tunnel with the proxy's credentials", async () => {
    const connects: { authority?: string; auth?: string }[] = [];
    const proxy: Server = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, socket, head) => {
      connects.push({ authority: req.url, auth: req.headers['proxy-authorization'] });
      if (req.headers['proxy-authorization'] === undefined) return socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      const [host, port] = req.url!.split(':');
      const upstream = netConnect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyAt = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      await using(kubeConfig({}, `http://user:p%40ss@${proxyAt}`), {}, async (transport) => {
        expect(await transport.getJson('/tunnelled')).toMatchObject({ protocol: '2.0', who: 'rxinformer-test' });
        expect(transport.connections!()).toMatchObject({ protocol: 'h2', opened: 1 });
      });
      expect(connects).toEqual([{ authority: new URL(url).host, auth: `Basic ${Buffer.from('user:p@ss').toString('base64')}` }]);
      const refused = await using(kubeConfig({}, `http://${proxyAt}`), {}, (t) => t.getJson('/refused').catch((e: unknown) => e));
      expect(refused).toBeInstanceOf(NetworkError);
      expect(refused).toMatchObject({ code: 'ERR_PROXY_TUNNEL' });
      expect(String((refused as Error).message)).toContain('407');
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('should speak HTTP/1.1 with http2: false, and refuse HTTP/2 options out of range', async () => {
    await using(kubeConfig(), { http2: false }, async (transport) => {
      expect(await transport.getJson('/plain')).toMatchObject({ protocol: '1.1' });
      expect(transport.connections!()).toMatchObject({ protocol: undefined, opened: 0, http1Connections: 1 });
    });
    for (const http2 of [{ maxStreamsPerConnection: 0 }, { pingTimeoutMs: 0 }, { readIdleTimeoutMs: -1 }, { connectTimeoutMs: 1.5 }, 'yes'])
      expect(() => createKubeTransport(kubeConfig(), { http2: http2 as never })).toThrow(InvalidOptionsError);
    expect(() => createKubeTransport(kubeConfig(), { http2: { readIdleTimeoutMs: 0 } })).not.toThrow();
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import type { ReflectorStatus } from '@rxinformer/core';
import { configMaps, createKubeInformerFactory, createKubeTransport, CredentialError, ResponseDecodeError, sharedKubeTransport, type KubeTransport } from '../src/index.ts';
import { waitFor } from './simHarness.ts';

// The transport's binding to one context and user, and its typed failures, against the simulator
// with bearer-token auth over real HTTP.

let sim: ApiServer;
const transports: KubeTransport[] = [];
const track = (t: KubeTransport) => { transports.push(t); return t; };

beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 5, auth: { token: 'token-of-a' } });
});
afterEach(async () => { await Promise.all(transports.splice(0).map((t) => t.close())); });
afterAll(async () => { await sim?.close(); });

/** Context `a` (the simulator, its token) and `b` (another server, another user's secret token). */
function twoContexts(bServer = 'http://127.0.0.1:1'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'a', server: sim.url, skipTLSVerify: true }, { name: 'b', server: bServer, skipTLSVerify: true }],
    users: [{ name: 'ua', token: 'token-of-a' }, { name: 'ub', token: 'secret-of-b' }],
    contexts: [{ name: 'a', cluster: 'a', user: 'ua' }, { name: 'b', cluster: 'b', user: 'ub' }],
    currentContext: 'a',
  });
  return kc;
}

describe('createKubeTransport', () => {
  it('should keep the server and the user of the context current at creation when the KubeConfig switches context', async () => {
    const seen: string[] = [];
    const b = createServer((req, res) => { seen.push(req.headers.authorization ?? ''); res.end('{}'); });
    await new Promise<void>((r) => b.listen(0, '127.0.0.1', r));
    try {
      const kc = twoContexts(`http://127.0.0.1:${(b.address() as AddressInfo).port}`);
      const transport = track(createKubeTransport(kc));
      await transport.getJson('/api/v1/namespaces');
      kc.setCurrentContext('b');
      // Still a's server with a's token: the simulator answers 401 to any other token.
      const list = await transport.getJson<{ kind: string }>('/api/v1/namespaces');
      expect(list.kind).toBe('NamespaceList');
      expect(transport.server).toBe(sim.url);
      // And b's transport carries b's token to b only.
      await track(createKubeTransport(kc)).getJson('/x');
      expect(seen).toEqual(['Bearer secret-of-b']);
    } finally {
      b.close();
    }
  });

  it('should fail with a CredentialError, the cause attached, when an exec plugin fails or a certificate file is missing', async () => {
    const exec = new KubeConfig();
    exec.loadFromOptions({
      clusters: [{ name: 'a', server: sim.url, skipTLSVerify: true }],
      users: [{ name: 'plugin', exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/nonexistent/credential-plugin', args: [], env: [] } }],
      contexts: [{ name: 'a', cluster: 'a', user: 'plugin' }],
      currentContext: 'a',
    });
    const e1 = await track(createKubeTransport(exec)).getJson('/api/v1/namespaces').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(CredentialError);
    expect((e1 as CredentialError).reason).toBe('CredentialUnavailable');
    expect((e1 as CredentialError).user).toBe('plugin');
    expect((e1 as CredentialError).cause).toMatchObject({ message: expect.any(String) });

    const files = new KubeConfig();
    files.loadFromOptions({
      clusters: [{ name: 'a', server: sim.url, skipTLSVerify: true }],
      users: [{ name: 'certs', certFile: '/nonexistent/client.crt', keyFile: '/nonexistent/client.key' }],
      contexts: [{ name: 'a', cluster: 'a', user: 'certs' }],
      currentContext: 'a',
    });
    const factory = createKubeInformerFactory(files, { namespace: 'default' });
    const statuses: ReflectorStatus[] = [];
    const informer = factory.informerFor(configMaps, { reflector: { backoff: { initialMs: 50, maxMs: 100 } } });
    informer.status$.subscribe((s) => statuses.push(s));
    factory.start();
    try {
      expect(await waitFor(() => statuses.some((s) => s.lastError !== undefined))).toBe(true);
      const error = statuses.find((s) => s.lastError)!.lastError;
      expect(error).toBeInstanceOf(CredentialError);
      expect((error as CredentialError).cause).toMatchObject({ code: 'ENOENT' });
    } finally {
      await factory.close();
    }
  });

  it('should answer a 200 that is not JSON (a gateway page) with a ResponseDecodeError', async () => {
    const gateway = createServer((_req, res) => { res.setHeader('content-type', 'text/html'); res.end('<html><body>Please sign in</body></html>'); });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    try {
      const kc = twoContexts(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
      kc.setCurrentContext('b');
      const e = await track(createKubeTransport(kc)).getJson('/api/v1').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ResponseDecodeError);
      expect((e as ResponseDecodeError).body).toMatch(/^<html>/);
      expect((e as ResponseDecodeError).cause).toBeInstanceOf(SyntaxError);
    } finally {
      gateway.close();
    }
  });

  it('should give the connection to an HTTP proxy the same 30 s keep-alive probes as a direct one', async () => {
    const proxied: string[] = [];
    const proxy: Server = createServer((req, res) => {
      proxied.push(req.url ?? '');
      const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers, agent: false }, (r) => { res.writeHead(r.statusCode ?? 502, r.headers); r.pipe(res); });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const original = Socket.prototype.setKeepAlive;
    const delays: (number | undefined)[] = [];
    Socket.prototype.setKeepAlive = function (this: Socket, enable?: boolean, delay?: number) {
      if (enable) delays.push(delay);
      return original.call(this, enable, delay);
    };
    try {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'a', server: sim.url, skipTLSVerify: true, proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }],
        users: [{ name: 'ua', token: 'token-of-a' }],
        contexts: [{ name: 'a', cluster: 'a', user: 'ua' }],
        currentContext: 'a',
      });
      const list = await track(createKubeTransport(kc)).getJson<{ kind: string }>('/api/v1/namespaces');
      expect(list.kind).toBe('NamespaceList');
      expect(proxied).toEqual([`${sim.url}/api/v1/namespaces`]);
      expect(delays.length).toBeGreaterThanOrEqual(1);
      expect(delays).toEqual([30_000]);
    } finally {
      Socket.prototype.setKeepAlive = original;
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

describe('sharedKubeTransport', () => {
  it('should hand out one transport per context, each staying on its own server and user', async () => {
    const kc = twoContexts();
    const a = sharedKubeTransport(kc);
    expect(sharedKubeTransport(kc)).toBe(a);
    kc.setCurrentContext('b');
    const b = sharedKubeTransport(kc);
    expect(b).not.toBe(a);
    expect(b.server).toBe('http://127.0.0.1:1');
    // a, used while b is current, still authenticates as a.
    expect((await a.getJson<{ kind: string }>('/api/v1/namespaces')).kind).toBe('NamespaceList');
    kc.setCurrentContext('a');
    expect(sharedKubeTransport(kc)).toBe(a);
    // A reload under the same names with another token is a new transport with the new token.
    kc.loadFromOptions({ ...JSON.parse(JSON.stringify({ clusters: kc.getClusters(), contexts: kc.getContexts() })), users: [{ name: 'ua', token: 'rotated' }, { name: 'ub', token: 'x' }], currentContext: 'a' });
    const reloaded = track(sharedKubeTransport(kc));
    expect(reloaded).not.toBe(a);
    await expect(reloaded.getJson('/api/v1/namespaces')).rejects.toMatchObject({ code: 401 });
    await a.close();
  });
});


import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { FactoryShutdownError, type ReflectorStatus } from '@rxinformer/core';
import {
  configMaps,
  createKubeInformerFactory,
  createKubeTransport,
  CredentialError,
  RequestTimeoutError,
  ResponseDecodeError,
  sharedKubeTransport,
  type KubeTransport,
} from '../src/index.ts';
import { waitFor } from './simHarness.ts';
import { deferred, settle, until } from '@rxinformer/testing';

// The transport's binding to one context and user, and its typed failures, against the simulator
// with bearer-token auth over real HTTP.

let sim: ApiServer;
const transports: KubeTransport[] = [];
const track = (t: KubeTransport) => {
  transports.push(t);
  return t;
};

beforeAll(async () => {
  sim = await startApiServer({ port: 0, seed: 5, auth: { token: 'token-of-a' } });
});
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});
afterAll(async () => {
  await sim?.close();
});

/** Context `a` (the simulator, its token) and `b` (another server, another user's secret token). */
function twoContexts(bServer = 'http://127.0.0.1:1'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'a', server: sim.url, skipTLSVerify: true },
      { name: 'b', server: bServer, skipTLSVerify: true },
    ],
    users: [
      { name: 'ua', token: 'token-of-a' },
      { name: 'ub', token: 'secret-of-b' },
    ],
    contexts: [
      { name: 'a', cluster: 'a', user: 'ua' },
      { name: 'b', cluster: 'b', user: 'ub' },
    ],
    currentContext: 'a',
  });
  return kc;
}

describe('createKubeTransport', () => {
  it('should keep the server and the user of the context current at creation when the KubeConfig switches context', async () => {
    const seen: string[] = [];
    const b = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.end('{}');
    });
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
      users: [
        {
          name: 'plugin',
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/nonexistent/credential-plugin', args: [], env: [] },
        },
      ],
      contexts: [{ name: 'a', cluster: 'a', user: 'plugin' }],
      currentContext: 'a',
    });
    const e1 = await track(createKubeTransport(exec))
      .getJson('/api/v1/namespaces')
      .catch((e: unknown) => e);
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
    const gateway = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>Please sign in</body></html>');
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    try {
      const kc = twoContexts(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
      kc.setCurrentContext('b');
      const e = await track(createKubeTransport(kc))
        .getJson('/api/v1')
        .catch((x: unknown) => x);
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
      const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers, agent: false }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
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
        clusters: [
          { name: 'a', server: sim.url, skipTLSVerify: true, proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
        ],
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
    kc.loadFromOptions({
      ...JSON.parse(JSON.stringify({ clusters: kc.getClusters(), contexts: kc.getContexts() })),
      users: [
        { name: 'ua', token: 'rotated' },
        { name: 'ub', token: 'x' },
      ],
      currentContext: 'a',
    });
    const reloaded = track(sharedKubeTransport(kc));
    expect(reloaded).not.toBe(a);
    await expect(reloaded.getJson('/api/v1/namespaces')).rejects.toMatchObject({ code: 401 });
    await a.close();
  });
});

describe('createKubeTransport credentials and close', () => {
  /** A plain HTTP server that answers `{}` and keeps idle connections for a minute; counts them. */
  async function countingServer() {
    let opened = 0;
    const open = new Set<Socket>();
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s: Socket) => {
      opened++;
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      opened: () => opened,
      open: () => open.size,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }
  /** A KubeConfig for `url` whose user's credentials come from `apply` (an exec plugin's stand-in). */
  function withAuthenticator(
    url: string,
    apply: (opts: { cert?: Buffer; key?: Buffer; headers?: Record<string, string> }) => Promise<void>,
  ): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
      users: [{ name: 'plugin' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'plugin' }],
      currentContext: 'c',
    });
    kc.addAuthenticator({
      isAuthProvider: (u: { name: string }) => u.name === 'plugin',
      applyAuthentication: (_u: unknown, opts: never) => apply(opts),
    } as never);
    return kc;
  }

  it('should finish every concurrent request when the client certificate rotates in their midst', async () => {
    const server = await countingServer();
    try {
      let calls = 0;
      const gate = deferred();
      const kc = withAuthenticator(server.url, async (opts) => {
        const n = ++calls;
        await gate.promise;
        opts.cert = Buffer.from(n <= 2 ? 'cert-1' : 'cert-2');
        opts.key = Buffer.from('k');
      });
      const transport = track(createKubeTransport(kc));
      const all = Promise.allSettled(Array.from({ length: 6 }, (_, i) => transport.getJson(`/p${i}`)));
      await until(() => calls === 6, { what: 'six credential reads at once' });
      gate.resolve();
      const results = await all;
      expect(results.map((r) => r.status)).toEqual(Array(6).fill('fulfilled'));
    } finally {
      server.close();
    }
  });

  it('should not switch back to an older certificate that a slow credential read returns after a newer one', async () => {
    const server = await countingServer();
    try {
      let calls = 0;
      const firstRead = deferred();
      const kc = withAuthenticator(server.url, async (opts) => {
        const n = ++calls;
        if (n === 1) await firstRead.promise; // started first, answers last, with the certificate of before
        opts.cert = Buffer.from(n === 1 ? 'cert-1' : 'cert-2');
        opts.key = Buffer.from('k');
      });
      const transport = track(createKubeTransport(kc));
      const slow = transport.getJson('/slow');
      await until(() => calls === 1, { what: "the slow request's credential read" });
      await transport.getJson('/fast'); // cert-2: a new pool, one connection
      const afterFast = server.opened();
      await settle(); // the fast request's connection back in its pool, idle
      firstRead.resolve();
      await slow; // cert-1, read before cert-2 was adopted: the cert-2 pool, its idle connection
      expect([afterFast, server.opened()]).toEqual([1, 1]); // a switch back would have opened a second
    } finally {
      server.close();
    }
  });

  it('should dispatch a request still reading credentials before close() closes the pool, leaving no connection', async () => {
    const server = await countingServer();
    try {
      let reading = false;
      const read = deferred();
      const kc = withAuthenticator(server.url, async () => {
        reading = true;
        await read.promise;
      });
      const transport = createKubeTransport(kc);
      const answer = transport.getJson('/version');
      await until(() => reading, { what: 'the credential read' });
      const closed = transport.close(); // while the request still reads its credentials
      read.resolve();
      await closed;
      await expect(answer).resolves.toEqual({});
      expect(await waitFor(() => server.open() === 0, 2000)).toBe(true);
      expect(server.opened()).toBe(1);
    } finally {
      server.close();
    }
  });

  it('should stop waiting for credentials at once on abort, the discovery timeout and the factory close', async () => {
    // Credentials that never come while the test runs: each wait below can only end by its abort.
    let release!: () => void;
    const never = new Promise<void>((r) => {
      release = r;
    });
    const kc = withAuthenticator(sim.url, async () => {
      await never;
    });
    const transport = track(createKubeTransport(kc));
    try {
      const ac = new AbortController();
      const aborted = transport.getJson('/version', ac.signal);
      setTimeout(() => ac.abort(), 20);
      await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });

      const factory = createKubeInformerFactory(kc, { transport, discoveryTimeoutMs: 100 });
      await expect(factory.informerForRef({ apiVersion: 'v1', kind: 'ConfigMap' })).rejects.toBeInstanceOf(RequestTimeoutError);

      const pending = factory.informerForRef({ apiVersion: 'apps/v1', kind: 'Deployment' });
      setTimeout(() => void factory.close(), 20);
      await expect(pending).rejects.toBeInstanceOf(FactoryShutdownError);
    } finally {
      release();
    }
  });
});

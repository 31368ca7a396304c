import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  InvalidObjectError,
  InvalidOptionsError,
  KubeApiError,
  WATCH_OPENED,
  WatchDecodeError,
  type WatchEvent,
  type WatchItem,
} from '@rxinformer/core';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { createKubeTransport, kubeConfigListerWatcher, pods, type KubeTransport } from '../src/index.ts';
import { until } from '@rxinformer/testing';
import { listerWatcherMakers, plainKubeConfig, startRawServer, type RawServer } from './rawServer.ts';

// Both HTTP ListerWatchers (fetch, browser-safe; KubeConfig over undici) against one small
// node:http server on 127.0.0.1: the same wire behaviour is expected of each.
let server: RawServer;
const requests = () => server.requests;
const closedRequests = () => server.closedRequests;

beforeAll(async () => {
  server = await startRawServer();
});
afterAll(async () => {
  await server.close();
});

const kubeConfig = (token?: string) => plainKubeConfig(server.url, token);
const transports: KubeTransport[] = [];
const makers = listerWatcherMakers(() => server.url, transports);
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
});

const line = (e: WatchEvent) => JSON.stringify(e) + '\n';

describe.each(makers)('%s', (_name, make) => {
  it('should list with the scope and the token, and parse the page into plain objects', async () => {
    server.handler = (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        '{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","creationTimestamp":"2025-01-01T00:00:00Z"}}]}',
      );
    };
    requests().length = 0;
    const page = await firstValueFrom(make({ namespace: 'ns', labelSelector: 'app=web' }).list({ limit: 2, labelSelector: 'tier=fe' }));
    expect(page.items[0]).toEqual({ metadata: { name: 'a', creationTimestamp: '2025-01-01T00:00:00Z' } });
    expect(Object.getPrototypeOf(page.items[0])).toBe(Object.prototype);
    expect(requests()[0].url).toBe('/api/v1/namespaces/ns/pods?limit=2&labelSelector=app%3Dweb%2Ctier%3Dfe');
    expect(requests()[0].auth).toBe('Bearer t');
  });

  it('should put the scope on the watch as on the list', async () => {
    server.handler = (_req, res) => res.end();
    requests().length = 0;
    await lastValueFrom(make({ namespace: 'ns', labelSelector: 'app=web' }).watch({ resourceVersion: '5', allowWatchBookmarks: true }), {
      defaultValue: undefined,
    });
    expect(requests()[0].url).toBe(
      '/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5&allowWatchBookmarks=true&labelSelector=app%3Dweb',
    );
  });

  it('should answer a Status error and a plain-text 429 with KubeApiErrors', async () => {
    server.handler = (req, res) => {
      if (req.url?.includes('limit=1')) {
        res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': '3' });
        res.end('Too many requests, please try again later.\n');
      } else {
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Forbidden',
            code: 403,
            message: 'pods is forbidden: User "x" cannot list resource "pods"',
          }),
        );
      }
    };
    const limited = (await firstValueFrom(make({}).list({ limit: 1 })).catch((e: unknown) => e)) as KubeApiError;
    expect(limited).toBeInstanceOf(KubeApiError);
    expect([limited.code, limited.reason, limited.retryAfterSeconds]).toEqual([429, 'TooManyRequests', 3]);
    const forbidden = (await firstValueFrom(make({}).watch({})).catch((e: unknown) => e)) as KubeApiError;
    expect([forbidden.code, forbidden.reason, forbidden.message]).toEqual([
      403,
      'Forbidden',
      'pods is forbidden: User "x" cannot list resource "pods"',
    ]);
  });

  it('should refuse a list body that is not a list', async () => {
    server.handler = (_req, res) => res.end('<html>proxy error</html>');
    await expect(firstValueFrom(make({}).list({}))).rejects.toBeInstanceOf(InvalidObjectError);
  });

  it('should decode watch lines and characters split across TCP writes', async () => {
    const events: WatchEvent[] = [
      { type: 'ADDED', object: { metadata: { name: 'crème-☃', resourceVersion: '6' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } },
      { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (7)' } },
    ];
    const bytes = Buffer.from(events.map(line).join(''));
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      let at = 0;
      const next = () => {
        if (at >= bytes.length) {
          res.end();
          return;
        }
        res.write(bytes.subarray(at, at + 7)); // cuts inside lines and inside multi-byte characters
        at += 7;
        setTimeout(next, 1);
      };
      next();
    };
    expect(await lastValueFrom(make({}).watch({}).pipe(toArray()))).toEqual([WATCH_OPENED, ...events]);
  });

  it('should report a malformed line as a WatchDecodeError, never drop it', async () => {
    server.handler = (_req, res) => {
      res.write(line({ type: 'ADDED', object: { metadata: { name: 'a' } } }));
      res.end('{"type":"MODIFIED","object":{"metadata":\n');
    };
    const seen: WatchItem[] = [];
    const error = await new Promise((resolve) =>
      make({})
        .watch({})
        .subscribe({ next: (e) => seen.push(e), error: resolve, complete: () => resolve('completed') }),
    );
    expect(seen.map((e) => e.type)).toEqual(['OPENED', 'ADDED']);
    expect(error).toBeInstanceOf(WatchDecodeError);
  });

  it('should abort the request when unsubscribed', async () => {
    server.handler = (req, res) => {
      res.writeHead(200);
      res.write(line({ type: 'ADDED', object: { metadata: { name: 'a' } } }));
      void req;
    };
    closedRequests().length = 0;
    await firstValueFrom(make({}).watch({ resourceVersion: 'abort-me' }).pipe(take(1)));
    await until(() => closedRequests().some((u) => u.includes('abort-me')));
    expect(closedRequests().some((u) => u.includes('abort-me'))).toBe(true);
  });
});

describe('kubeConfigListerWatcher connections', () => {
  it('should reuse keep-alive connections for successive requests', async () => {
    server.handler = (_req, res) => res.end('{"items":[]}');
    requests().length = 0;
    const transport = createKubeTransport(kubeConfig());
    const lw = kubeConfigListerWatcher(kubeConfig(), { resource: pods, transport });
    for (let i = 0; i < 20; i++) await firstValueFrom(lw.list({ limit: 1 }));
    await transport.close();
    expect(requests()).toHaveLength(20);
    // undici's pool may open a second socket while the first is being released; never one per request.
    expect(new Set(requests().map((r) => r.socket)).size).toBeLessThanOrEqual(2);
  });

  it.each(['http', 'HTTP', 'Http'])('should refuse a %s:// server without insecure-skip-tls-verify, before any token is sent', (scheme) => {
    requests().length = 0;
    const kc = plainKubeConfig(server.url.replace(/^http/, scheme), 'secret-token', false);
    expect(() => createKubeTransport(kc)).toThrow(InvalidOptionsError);
    expect(() => kubeConfigListerWatcher(kc, { resource: pods })).toThrow(/insecure-skip-tls-verify/);
    expect(requests()).toHaveLength(0);
  });

  it('should accept HTTPS:// in any case, and refuse a server or proxy that is not an http(s) URL', () => {
    const withCluster = (cluster: { server: string; proxyUrl?: string }) => {
      const kc = plainKubeConfig(cluster.server, 't', false);
      if (cluster.proxyUrl) kc.clusters[0] = { ...kc.clusters[0], proxyUrl: cluster.proxyUrl };
      return () => createKubeTransport(kc);
    };
    expect(withCluster({ server: 'HTTPS://127.0.0.1:1' })().server).toBe('HTTPS://127.0.0.1:1');
    expect(withCluster({ server: 'ftp://127.0.0.1:1' })).toThrow(InvalidOptionsError);
    expect(withCluster({ server: 'localhost:6443' })).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    expect(withCluster({ server: 'not a url' })).toThrow(/not a URL/);
    expect(withCluster({ server: 'https://127.0.0.1:1', proxyUrl: 'SOCKS5://127.0.0.1:1080' })).toThrow(/SOCKS proxies/);
  });
});

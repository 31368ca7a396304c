import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createInformerFactory, type ResourceDescriptor } from '@rxinformer/core';
import { until } from '@rxinformer/testing';
import { serverKinds, START_TIMEOUT_MS, startTestServer, type TestServer } from '@rxinformer/testing/servers';
import { startHub, type StartedHub } from '../src/startHub.ts';
import { allowAllAuthorizerForTests, serverSource, tabSource, tokenTableAuthenticatorForTests } from './hubKit.ts';

const NAMESPACES: ResourceDescriptor = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };

/** GET `path` as written (no URL normalization): the status and body. */
const get = (base: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(base);
    const req = request({ host: u.hostname, port: u.port, path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

describe.each(serverKinds().filter((k) => k === 'sim'))('startHub against the %s server', (kind) => {
  let server: TestServer;
  let started: StartedHub;
  let root: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    root = await mkdtemp(join(tmpdir(), 'hub-page-'));
    await mkdir(join(root, 'page'));
    await writeFile(join(root, 'page', 'index.html'), '<!doctype html><title>dashboard</title>');
    await writeFile(join(root, 'secret.txt'), 'not served');
    started = await startHub({
      clusters: { default: createInformerFactory(serverSource(server)) },
      authenticator: tokenTableAuthenticatorForTests({ t: { username: 'u', groups: [] } }),
      authorizer: allowAllAuthorizerForTests,
      staticDir: join(root, 'page'),
      port: 0,
    });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await started?.close();
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('should serve the page and the hub on one origin, and nothing outside the page folder', async () => {
    expect(await get(started.url, '/')).toEqual({ status: 200, body: '<!doctype html><title>dashboard</title>' });
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/missing.js'])
      expect((await get(started.url, path)).status).toBe(404);
    const { source } = tabSource(`${started.url}/hub`, 't');
    const factory = createInformerFactory(source);
    const namespaces = factory.informerFor(NAMESPACES);
    factory.start();
    await until(() => namespaces.hasSynced() && namespaces.getStore().list().length > 0, { what: 'namespaces through the hub' });
    factory.shutdown();
  });
});

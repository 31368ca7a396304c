import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { startPageServer, type PageServer } from './pageServer.ts';
import { contentType } from './staticSite.ts';

/** A GET of `path` sent as is (fetch would normalize `..` away). */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.path = path;
    req.on('error', reject);
    req.end();
  });
}

describe('startPageServer with a built site (a directory)', () => {
  let dir: string;
  let sim: ApiServer;
  let server: PageServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxinformer-site-'));
    mkdirSync(join(dir, 'browser'));
    writeFileSync(join(dir, 'browser/index.html'), '<app-root></app-root>');
    writeFileSync(join(dir, 'browser/main-ABC.js'), 'console.log(1);');
    writeFileSync(join(dir, 'browser/styles.css'), 'body{}');
    writeFileSync(join(dir, 'secret.txt'), 'outside the site');
    sim = await startApiServer({ port: 0, seed: 2 });
    server = await startPageServer({ upstream: sim.url, page: { root: join(dir, 'browser') } });
  });
  afterAll(async () => {
    await server?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should serve its files with their content types, and index.html at / and for the routes of the app', async () => {
    const js = await fetch(`${server.url}/main-ABC.js`);
    expect([js.status, js.headers.get('content-type'), await js.text()]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'console.log(1);',
    ]);
    expect((await fetch(`${server.url}/styles.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of ['/', '/pods/web', '/index.html']) {
      const page = await fetch(`${server.url}${path}`);
      expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
        200,
        'text/html; charset=utf-8',
        '<app-root></app-root>',
      ]);
    }
    const head = await fetch(`${server.url}/main-ABC.js`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '15', '']);
  });

  it('should answer 404 for a missing file, 204 for a missing favicon, and never serve a file outside the directory', async () => {
    expect((await fetch(`${server.url}/missing.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/favicon.ico`)).status).toBe(204);
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/%00.js']) {
      const res = await rawGet(server.url, path);
      expect(res.body).not.toContain('outside the site');
      expect(res.status).toBe(404);
    }
    expect((await fetch(`${server.url}/main-ABC.js`, { method: 'POST' })).status).toBe(405);
  });

  it('should still forward the API paths', async () => {
    const list = (await (await fetch(`${server.url}/api/v1/namespaces`)).json()) as { kind: string };
    expect(list.kind).toBe('NamespaceList');
  });
});

describe('contentType', () => {
  it('should know the files a build holds, and fall back to octet-stream', () => {
    expect(['a.html', 'a.MJS', 'a.map', 'x.woff2', 'x.bin'].map(contentType)).toEqual([
      'text/html; charset=utf-8',
      'text/javascript; charset=utf-8',
      'application/json',
      'font/woff2',
      'application/octet-stream',
    ]);
  });
});

/** The `/_sim` control endpoints over real HTTP: auth, content type, and the `controlEndpoints` option. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as getHttp } from 'node:http';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/index.ts';
import { req } from './helpers.ts';

const TOKEN = { Authorization: 'Bearer s3cret' };

/** A self-signed certificate for 127.0.0.1 (its own CA). */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sim-control-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    return { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The status of an HTTPS GET trusting `ca`. */
function httpsStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { ca, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('control endpoints', () => {
  const sims: ApiServer[] = [];
  const start = async (options: ApiServerOptions) => {
    const sim = await startApiServer({ port: 0, ...options });
    sims.push(sim);
    return sim;
  };
  afterEach(async () => {
    for (const s of sims.splice(0)) await s.close();
  });
  /** A POST of `body` as `contentType` (none when undefined), as a cross-site form or fetch can send it. */
  const post = (url: string, body: string, contentType: string | undefined, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...headers, ...(contentType !== undefined && { 'Content-Type': contentType }) }, body }).then(
      (r) => r.status,
    );

  it('should answer a request target that is not a URL with 400 BadRequest, not 500', async () => {
    const sim = await start({});
    const { port } = new URL(sim.url);
    const answer = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      getHttp({ host: '127.0.0.1', port, path: '//[' }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      }).on('error', reject);
    });
    expect(answer.code).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  it('should require the bearer token on GET /_sim/state and every POST /_sim/faults/*', async () => {
    const sim = await start({ auth: { token: 's3cret' }, controlEndpoints: true });
    expect((await req(`${sim.url}/_sim/state`)).code).toBe(401);
    expect((await req(`${sim.url}/_sim/state`, { headers: { Authorization: 'Bearer wrong' } })).code).toBe(401);
    expect((await req(`${sim.url}/_sim/state`, { headers: TOKEN })).code).toBe(200);
    const revision = sim.storage.resourceVersion;
    sim.storage.create('pods', { metadata: { name: 'a' } }, 'default');
    expect((await req(`${sim.url}/_sim/faults/compact`, { method: 'POST', body: {} })).code).toBe(401);
    expect((await req(`${sim.url}/_sim/faults/auth`, { method: 'POST', body: { token: null } })).code).toBe(401);
    expect((await req(`${sim.url}/api/v1/pods`)).code).toBe(401); // auth is still on
    expect((await req(`${sim.url}/api/v1/pods?resourceVersion=${revision}&resourceVersionMatch=Exact`, { headers: TOKEN })).code).toBe(200); // not compacted
    expect((await req(`${sim.url}/_sim/faults/compact`, { method: 'POST', body: {}, headers: TOKEN })).code).toBe(200);
    expect((await req(`${sim.url}/api/v1/pods?resourceVersion=${revision}&resourceVersionMatch=Exact`, { headers: TOKEN })).code).toBe(410);
  });

  it('should answer a control POST that is not application/json with 415 and change nothing', async () => {
    const sim = await start({ auth: { token: 's3cret' }, controlEndpoints: true });
    // With the token even: the content type is checked on every control POST.
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', undefined])
      expect(await post(`${sim.url}/_sim/faults/auth`, '{"token":null}', type, TOKEN)).toBe(415);
    expect(sim.faults.token).toBe('s3cret');
    expect((await req(`${sim.url}/api/v1/pods`)).code).toBe(401);
    expect(await post(`${sim.url}/_sim/faults/auth`, '{"token":null}', 'application/json; charset=utf-8', TOKEN)).toBe(200);
    expect((await req(`${sim.url}/api/v1/pods`)).code).toBe(200);
  });

  it('should not let a cross-site simple request turn auth on or fail requests when auth is off', async () => {
    const sim = await start({});
    expect(await post(`${sim.url}/_sim/faults/auth`, '{"token":"evil"}', 'text/plain')).toBe(415);
    expect(await post(`${sim.url}/_sim/faults/failNext`, '{"count":5}', 'application/x-www-form-urlencoded')).toBe(415);
    expect(sim.faults.token).toBeUndefined();
    expect((await req(`${sim.url}/api/v1/pods`)).code).toBe(200);
    const preflight = await fetch(`${sim.url}/_sim/faults/auth`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull(); // the browser never sends the JSON POST
  });

  it('should answer 404 on /_sim/* when the option is off, like any unknown path, after the token check', async () => {
    const off = await start({ controlEndpoints: false });
    expect((await req(`${off.url}/_sim/state`)).code).toBe(404);
    expect((await req(`${off.url}/_sim/faults/dropWatches`, { method: 'POST', body: {} })).code).toBe(404);
    expect((await req(`${off.url}/_sim/faults/auth`, { method: 'POST', body: { token: 'x' } })).code).toBe(404);
    expect(off.faults.token).toBeUndefined();
    expect(off.faults.dropWatches()).toBe(0); // the in-process API stays
    const guarded = await start({ auth: { token: 's3cret' }, controlEndpoints: false });
    expect((await req(`${guarded.url}/_sim/state`)).code).toBe(401);
    expect((await req(`${guarded.url}/_sim/state`, { headers: TOKEN })).code).toBe(404);
  });

  it('should serve them by default on a plain server, and not with auth or TLS unless asked', async () => {
    expect((await req(`${(await start({})).url}/_sim/state`)).code).toBe(200);
    expect((await req(`${(await start({ auth: { token: 's3cret' } })).url}/_sim/state`, { headers: TOKEN })).code).toBe(404);
    const asked = await start({ auth: { token: 's3cret' }, controlEndpoints: true });
    expect((await req(`${asked.url}/_sim/state`, { headers: TOKEN })).code).toBe(200);
    const { cert, key } = selfSigned();
    const secure = await start({ tls: { cert, key, ca: cert } });
    expect(await httpsStatus(`${secure.url}/version`, cert)).toBe(200);
    expect(await httpsStatus(`${secure.url}/_sim/state`, cert)).toBe(404);
    const secureAsked = await start({ tls: { cert, key, ca: cert }, controlEndpoints: true });
    expect(await httpsStatus(`${secureAsked.url}/_sim/state`, cert)).toBe(200);
  });
});

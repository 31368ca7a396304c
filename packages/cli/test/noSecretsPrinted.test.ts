/**
 * No bearer token and no Secret's data ever reaches the live view's output: watching Secrets of the
 * simulator with a token, and watching a hostile server whose answers carry a Secret's data where
 * they break (a list body that is not JSON, an error answer echoing it, a watch line cut in it),
 * each failure being printed as it happens.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigYaml, startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { killAll, run } from './cliProcess.ts';

const TOKEN = 'tok-0123456789-must-not-print';
const VALUE = 'hunter2-must-not-print';
const ENCODED = Buffer.from(VALUE).toString('base64');
/** What must never be printed: the token, the Secret's value, as sent and decoded, and long parts of them. */
const forbidden = [TOKEN, VALUE, ENCODED, TOKEN.slice(0, 12), ENCODED.slice(0, 12)];
const expectNothingSecret = (output: string) => {
  for (const text of forbidden) expect(output).not.toContain(text);
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxinformer-secrets-'));
});
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('the live view against the simulator, with a token and a Secret', () => {
  let sim: ApiServer;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, auth: { token: TOKEN } });
    sim.storage.create('secrets', { metadata: { name: 'db' }, type: 'Opaque', data: { password: ENCODED } }, 'default');
    kubeconfig = join(dir, 'sim');
    await sim.writeKubeconfig(kubeconfig);
  });
  afterAll(() => sim.close());

  it.each([['secrets'], ['pods']])('should print neither while watching %s, nor in its summary', async (resource) => {
    const r = await run(['--kubeconfig', kubeconfig, '--resource', resource, '--duration', '1.5']);
    expect(r.code).toBe(0);
    if (resource === 'secrets') expect(r.stdout).toMatch(/^ADDED\s+default\s+db\s/m);
    expectNothingSecret(r.stdout + r.stderr);
  });
});

describe('the live view against a server whose answers break inside a Secret', () => {
  let server: Server;
  let kubeconfig: string;
  const secret = `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db","namespace":"default","resourceVersion":"2"},"data":{"password":"${ENCODED}"}}`;
  beforeAll(async () => {
    let lists = 0;
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
      if (url.searchParams.get('sendInitialEvents') === 'true') {
        // A server without streaming lists (kube-apiserver with the WatchList gate off): the reflector pages.
        const status = {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Invalid',
          code: 422,
          message: 'sendInitialEvents is forbidden',
        };
        return void res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify(status));
      }
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // Not JSON: a Secret whose last brace is missing.
        return void res.write(`{"type":"ADDED","object":${secret.slice(0, -1)}\n`);
      }
      const list = `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[${secret}]}`;
      const answer = [
        // Not JSON, the Secret's value in what V8 quotes of it in its SyntaxError.
        () => res.writeHead(200, { 'content-type': 'application/json' }).end(`password=${ENCODED}`),
        () => res.writeHead(500, { 'content-type': 'application/json' }).end(`{"error":"boom","echo":${secret}}`), // no Status
        () => res.writeHead(200, { 'content-type': 'application/json' }).end(list),
      ][Math.min(lists++, 2)];
      answer();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kubeconfig = join(dir, 'hostile');
    writeFileSync(kubeconfig, kubeconfigYaml({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: TOKEN }), {
      mode: 0o600,
    });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('should print each failure, and neither the token nor the Secret in any of them', async () => {
    const r = await run(['--kubeconfig', kubeconfig, '--resource', 'secrets', '--duration', '6']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/last error: InvalidObjectError: list response is not JSON/);
    expect(r.stdout).toMatch(/last error: KubeApiError: \(\d+ characters of JSON, not shown\)/);
    expect(r.stdout).toMatch(/last error: WatchDecodeError: malformed watch line \(/);
    expectNothingSecret(r.stdout + r.stderr);
  });
});

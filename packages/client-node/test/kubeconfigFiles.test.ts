/**
 * Kubeconfig files that cannot work, read from disk as a user's would be: a context naming a user
 * the file lacks, TLS data that is not PEM (bad base64, a DER file), a CA file rewritten with
 * garbage, and a CA other than the server's. Each is a clear, typed error: at construction when the
 * file alone says so, else on `status$` with a backoff, never a hot loop.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidOptionsError, NetworkError, type ReflectorStatus } from '@rxinformer/core';
import { CredentialError, createKubeInformerFactory, pods } from '../src/index.ts';
import { makePki, type Pki } from '@rxinformer/testing/servers';
import { waitFor } from './simHarness.ts';

let dir: string;
let pki: Pki;
let server: Server;
let url: string;
let connections = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxinformer-kubeconfig-'));
  pki = makePki(dir);
  server = createServer({ cert: pki.cert, key: pki.key }, (_req, res) => res.writeHead(500).end());
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A kubeconfig file of one context; `cluster` and `user` are the YAML lines of each. */
function kubeconfigFile(name: string, cluster: string[], user: string[], contextUser = 'u'): KubeConfig {
  const path = join(dir, name);
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${url}`,
    ...cluster.map((l) => `    ${l}`),
    'users:',
    '- name: u',
    '  user:',
    ...(user.length ? user.map((l) => `    ${l}`) : ['    {}']),
    'contexts:',
    '- name: x',
    '  context: { cluster: c, user: ' + contextUser + ' }',
    'current-context: x',
  ].join('\n');
  writeFileSync(path, yaml, { mode: 0o600 });
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

describe('createKubeInformerFactory given a kubeconfig file that cannot work', () => {
  it('should refuse a context that names a user the file does not have (client-node would go on anonymous, without the CA)', () => {
    const kc = kubeconfigFile('no-user', [`certificate-authority-data: ${b64(pki.ca)}`], ['token: t'], 'missing');
    expect(() => createKubeInformerFactory(kc)).toThrow(InvalidOptionsError);
    expect(() => createKubeInformerFactory(kc)).toThrow('the context "x" names user "missing", which the kubeconfig does not have');
  });

  // Lines of the cluster and of the user, made once the certificates exist.
  const cases: [string, () => [string[], string[]], RegExp][] = [
    [
      'certificate-authority-data that is not base64',
      () => [['certificate-authority-data: "%%%not-base64!!"'], []],
      /certificate authority/,
    ],
    [
      'certificate-authority-data of a DER file',
      () => [[`certificate-authority-data: ${b64('0\x82\x01\x0a')}`], []],
      /certificate authority/,
    ],
    [
      'client-certificate-data that is no certificate',
      () => [
        [`certificate-authority-data: ${b64(pki.ca)}`],
        [`client-certificate-data: ${b64('junk')}`, `client-key-data: ${b64(pki.clientKey)}`],
      ],
      /client certificate/,
    ],
    [
      'client-key-data that is no key',
      () => [
        [`certificate-authority-data: ${b64(pki.ca)}`],
        [`client-certificate-data: ${b64(pki.clientCert)}`, `client-key-data: ${b64('junk')}`],
      ],
      /client key/,
    ],
  ];
  it.each(cases)('should refuse %s at construction, naming the field', (_what, lines, message) => {
    const kc = kubeconfigFile('bad-data', ...lines());
    expect(() => createKubeInformerFactory(kc)).toThrow(InvalidOptionsError);
    expect(() => createKubeInformerFactory(kc)).toThrow(message);
  });
});

describe('an informer whose kubeconfig cannot reach the server', () => {
  /** Runs a pods informer until its first backoff, with a backoff long enough that a second attempt would be a hot loop. */
  async function firstFailure(kc: KubeConfig): Promise<ReflectorStatus> {
    const factory = createKubeInformerFactory(kc);
    const statuses: ReflectorStatus[] = [];
    try {
      const informer = factory.informerFor(pods, { reflector: { backoff: { initialMs: 60_000, maxMs: 60_000 } } });
      informer.status$.subscribe((s) => statuses.push(s));
      factory.start();
      expect(await waitFor(() => statuses.some((s) => s.phase === 'backingOff'))).toBe(true);
      return statuses.find((s) => s.phase === 'backingOff')!;
    } finally {
      await factory.close();
    }
  }

  it('should report a certificate-authority file rewritten with garbage as a CredentialError, before connecting', async () => {
    const caFile = join(dir, 'ca-file.crt');
    writeFileSync(caFile, pki.ca);
    const kc = kubeconfigFile('ca-file', [`certificate-authority: ${caFile}`], ['token: t']);
    writeFileSync(caFile, 'garbage'); // after the factory could have read it: read again per request
    const before = connections;
    const failed = await firstFailure(kc);
    expect(failed.lastError).toBeInstanceOf(CredentialError);
    expect(failed.lastError!.message).toMatch(/certificate authority .* holds no PEM certificate/);
    expect((failed.lastError!.cause as Error).name).toBe('InvalidOptionsError');
    expect(connections).toBe(before);
  });

  it("should report a CA other than the server's as a NetworkError TlsFailure, once, then back off", async () => {
    const kc = kubeconfigFile('other-ca', [`certificate-authority-data: ${b64(pki.otherCa)}`], ['token: t']);
    const before = connections;
    const failed = await firstFailure(kc);
    expect(failed.lastError).toBeInstanceOf(NetworkError);
    expect(failed.lastError).toMatchObject({ reason: 'TlsFailure' });
    expect(failed.lastError!.message).toMatch(/certificate/i);
    expect(failed.backoffMs).toBeGreaterThanOrEqual(60_000);
    expect(connections - before).toBe(1);
  });
});

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, connect, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { CertificateError, devCertificate, loadCertificate, spkiHash } from './devCertificate.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dev-cert-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Connects to `port` as `servername` (or to an IP), trusting `ca`; resolves with the outcome. */
function handshake(port: number, host: string, ca: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket: TLSSocket = connect(
      { port, host: '127.0.0.1', servername: host.includes(':') || /^\d/.test(host) ? undefined : host, ca },
      () => {
        const ok = host === 'localhost' || socket.getPeerCertificate().subjectaltname?.includes(host);
        resolve(ok ? 'trusted' : 'wrong name');
        socket.end();
      },
    );
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('devCertificate', () => {
  it('should make an authority and a server certificate for localhost, 127.0.0.1 and ::1 that it signed', async () => {
    const tls = await devCertificate(dir);
    const server = new X509Certificate(tls.cert);
    const ca = new X509Certificate(tls.ca);
    expect([ca.ca, server.ca]).toEqual([true, false]);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect([server.checkHost('localhost'), server.checkIP('127.0.0.1'), server.checkIP('::1')]).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(server.checkHost('example.com')).toBeUndefined();
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(Date.parse(server.validTo) - Date.now()).toBeGreaterThan(390 * 24 * 3600 * 1000);
    expect(tls.caFile).toBe(join(dir, 'ca.pem'));
    expect(await readFile(tls.caFile, 'utf8')).toBe(tls.ca);
  });

  it('should let the authority sign for the loopback names only (critical name constraints)', async () => {
    const tls = await devCertificate(dir);
    const constraints = forge.pki.certificateFromPem(tls.ca).getExtension('nameConstraints') as {
      critical: boolean;
      permittedSubtrees: { type: number; value: string }[];
    };
    expect(constraints.critical).toBe(true);
    expect(constraints.permittedSubtrees.map((t) => [t.type, t.type === 2 ? t.value : forge.util.bytesToHex(t.value)])).toEqual([
      [2, 'localhost'],
      [7, '7f000000ff000000'],
      [7, '00000000000000000000000000000001ffffffffffffffffffffffffffffffff'],
    ]);
  });

  it('should keep the keys readable by their owner only, and use what it made on the next call', async () => {
    const first = await devCertificate(dir);
    for (const key of ['ca-key.pem', 'server-key.pem']) expect((await stat(join(dir, key))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const again = await devCertificate(dir);
    expect(again).toEqual(first);
  });

  it('should make the server certificate anew, under the same authority, when it was not signed by it', async () => {
    const first = await devCertificate(dir);
    const other = await mkdtemp(join(tmpdir(), 'dev-cert-other-'));
    try {
      const stranger = await devCertificate(other);
      await writeFile(join(dir, 'server.pem'), stranger.cert);
      await writeFile(join(dir, 'server-key.pem'), stranger.key);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    const renewed = await devCertificate(dir);
    expect(renewed.ca).toBe(first.ca);
    expect(renewed.cert).not.toBe(first.cert);
    expect(new X509Certificate(renewed.cert).verify(new X509Certificate(first.ca).publicKey)).toBe(true);
  });

  it('should be accepted for localhost and 127.0.0.1 by a client that trusts the authority, refused by one that does not', async () => {
    const tls = await devCertificate(dir);
    const server = createServer({ cert: tls.cert, key: tls.key }, (s) => s.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await handshake(port, 'localhost', tls.ca)).toBe('trusted');
      expect(await handshake(port, '127.0.0.1', tls.ca)).toBe('trusted');
      expect(await handshake(port, 'localhost', undefined)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    } finally {
      server.close();
    }
  });
});

describe('spkiHash', () => {
  it("should be the base64 SHA-256 of the certificate's SubjectPublicKeyInfo", async () => {
    const tls = await devCertificate(dir);
    const publicKey = forge.pki.certificateFromPem(tls.cert).publicKey as forge.pki.rsa.PublicKey;
    const der = forge.asn1.toDer(forge.pki.publicKeyToAsn1(publicKey)).getBytes();
    expect(spkiHash(tls.cert)).toBe(createHash('sha256').update(Buffer.from(der, 'binary')).digest('base64'));
  });
});

describe('loadCertificate', () => {
  it('should read a certificate and its key, and refuse what cannot serve with a CertificateError saying why', async () => {
    const tls = await devCertificate(dir);
    const file = (name: string, text: string) => writeFile(join(dir, name), text).then(() => join(dir, name));
    expect(await loadCertificate(join(dir, 'server.pem'), join(dir, 'server-key.pem'))).toEqual({ cert: tls.cert, key: tls.key });
    const refusal = (cert: string, key: string) => loadCertificate(cert, key).catch((e: unknown) => e);
    const missing = await refusal(join(dir, 'nope.pem'), join(dir, 'server-key.pem'));
    expect(missing).toBeInstanceOf(CertificateError);
    expect(missing).toMatchObject({ name: 'CertificateError', reason: 'unreadable' });
    expect(await refusal(await file('junk.pem', 'not a certificate'), join(dir, 'server-key.pem'))).toMatchObject({ reason: 'invalid' });
    expect(await refusal(join(dir, 'server.pem'), await file('junk-key.pem', 'nope'))).toMatchObject({ reason: 'invalid' });
    expect(await refusal(join(dir, 'server.pem'), join(dir, 'ca-key.pem'))).toMatchObject({
      reason: 'mismatch',
      message: expect.stringContaining('is not the one of'),
    });
  });
});

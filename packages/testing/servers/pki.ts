/** Certificates for the TLS tests, made by openssl for each run. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** PEM texts: a CA with its server and client certificates, and an unrelated CA. */
export interface Pki {
  ca: string;
  cert: string;
  key: string;
  clientCert: string;
  clientKey: string;
  client2Cert: string;
  client2Key: string;
  otherCa: string;
  otherKey: string;
}

/** A CA, a server certificate for 127.0.0.1 and two client certificates, plus an unrelated CA. */
export function makePki(dir: string): Pki {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=rxinformer-test-ca');
  ssl('req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=someone-else');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  writeFileSync(join(dir, 'client2.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, subject] of [
    ['server', '/CN=127.0.0.1'],
    ['client', '/CN=rxinformer-test/O=system:masters'],
    ['client2', '/CN=rxinformer-test-2/O=system:masters'],
  ]) {
    ssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    );
  }
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.crt'),
    cert: read('server.crt'),
    key: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    client2Cert: read('client2.crt'),
    client2Key: read('client2.key'),
    otherCa: read('other.crt'),
    otherKey: read('other.key'),
  };
}

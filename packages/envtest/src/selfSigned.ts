/**
 * A self-signed TLS certificate for a local test server or proxy (the fault proxy in front of a
 * plain-HTTP server, to speak HTTPS and HTTP/2 to its clients), made by `openssl`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvtestError } from './errors.ts';
import type { ServingCertificate } from './testEnvironment.ts';

/**
 * A new P-256 certificate valid for a day for `127.0.0.1`, `::1` and `localhost`, signed by its own
 * key: it is its own CA (trust `cert` as the CA). Throws an `EnvtestError` (reason
 * `OpensslNotFound`) without `openssl` on the PATH.
 *
 * @example
 * const tls = selfSignedCertificate();
 * const proxy = await startFaultProxy({ target: sim.url, tls, http2: true }); // clients trust tls.cert
 *
 * Caveat: each call runs openssl (about 20 ms); make one per test file, not per test.
 */
export function selfSignedCertificate(): ServingCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'rxinformer-selfsigned-'));
  try {
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost'];
    const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem'];
    try {
      execFileSync('openssl', ['req', '-x509', ...key, '-out', 'cert.pem', '-days', '1', ...subject], { cwd: dir, stdio: 'pipe' });
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT')
        throw new EnvtestError('OpensslNotFound', 'selfSignedCertificate needs openssl on the PATH', { cause: error });
      throw error;
    }
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

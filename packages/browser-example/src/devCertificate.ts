/**
 * TLS for the page server on a developer's machine: a local certificate authority made once and
 * kept (its key readable by the developer alone), and a server certificate it signs for
 * `localhost`, `127.0.0.1` and `::1`. A browser trusts the page once the developer trusts the CA
 * (README: "Certificates"); the authority may sign for those loopback names only (critical name
 * constraints), so trusting it trusts nothing else. node:crypto makes keys, hashes and parses
 * certificates but cannot write one: node-forge encodes them (node:crypto signs).
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

/** A certificate and its private key, PEM: what a TLS server needs. */
export interface TlsCredentials {
  /** The certificate (PEM), and any chain after it. */
  readonly cert: string;
  /** Its private key (PEM). */
  readonly key: string;
}

/** The development certificate: the server's credentials, the authority that signed them, and where they are. */
export interface DevCertificate extends TlsCredentials {
  /** The authority's certificate (PEM): what a developer trusts. */
  readonly ca: string;
  /** The file holding `ca`, to import into a browser's or the system's trust store. */
  readonly caFile: string;
  /** The folder of the four files. */
  readonly dir: string;
}

/** A certificate or key that cannot be used; `reason` says what is wrong with which file. */
export class CertificateError extends Error {
  /** Always `CertificateError`: set as a string, so it survives minification. */
  override readonly name: string = 'CertificateError';
  /** `unreadable` (a file could not be read), `invalid` (not PEM of that kind) or `mismatch` (the key is not the certificate's). */
  readonly reason: 'unreadable' | 'invalid' | 'mismatch';
  constructor(reason: 'unreadable' | 'invalid' | 'mismatch', message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** The names the server certificate is for: the loopback addresses the page server listens on. */
const DNS_NAMES = ['localhost'];
const IP_ADDRESSES = ['127.0.0.1', '::1'];
/** A server certificate is made anew when it has less than this left (and lasts 397 days, browsers' limit). */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const SERVER_DAYS = 397;
const CA_YEARS = 10;

/**
 * Where the development certificate is kept: `$XDG_CACHE_HOME/rxinformer/dev-tls`, else
 * `~/.cache/rxinformer/dev-tls`.
 */
export function defaultCertificateDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rxinformer', 'dev-tls');
}

/**
 * The development certificate in `dir`: its authority (`ca.pem`, `ca-key.pem`), made once, and a
 * server certificate for localhost/127.0.0.1/::1 (`server.pem`, `server-key.pem`), made anew when
 * it is missing, not signed by that authority, or within 30 days of its end. Keys are written
 * readable by their owner only.
 *
 * @example
 * const tls = await devCertificate();
 * await startPageServer({ upstream, page, tls }); // https://127.0.0.1:<port>, HTTP/2
 * console.log(`trust ${tls.caFile} once`);
 *
 * Caveat: whoever can read `ca-key.pem` can sign for your loopback names; it never signs for any
 * other name (the authority's name constraints), but keep the folder yours.
 */
export async function devCertificate(dir: string = defaultCertificateDir()): Promise<DevCertificate> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  let ca = await readPair(file('ca.pem'), file('ca-key.pem'));
  if (!ca || !new X509Certificate(ca.cert).ca) {
    ca = makeAuthority();
    await writePair(file('ca.pem'), file('ca-key.pem'), ca);
  }
  let server = await readPair(file('server.pem'), file('server-key.pem'));
  if (!server || !stillGood(server.cert, ca.cert)) {
    server = makeServerCertificate(ca);
    await writePair(file('server.pem'), file('server-key.pem'), server);
  }
  return { cert: server.cert, key: server.key, ca: ca.cert, caFile: file('ca.pem'), dir };
}

/**
 * The credentials in a certificate file and a key file (e.g. `--cert` and `--key`, from mkcert or a
 * company CA); throws `CertificateError` when a file cannot be read, is not PEM of its kind, or the
 * key is not the certificate's.
 *
 * @example
 * const tls = await loadCertificate('localhost.pem', 'localhost-key.pem');
 */
export async function loadCertificate(certFile: string, keyFile: string): Promise<TlsCredentials> {
  const read = async (path: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      throw new CertificateError('unreadable', `cannot read ${path}: ${(e as Error).message}`, { cause: e });
    }
  };
  const [cert, key] = [await read(certFile), await read(keyFile)];
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new CertificateError('invalid', `${certFile} holds no PEM certificate`, { cause: e });
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new CertificateError('invalid', `${keyFile} holds no PEM private key`, { cause: e });
  }
  if (!x509.checkPrivateKey(privateKey)) throw new CertificateError('mismatch', `the key in ${keyFile} is not the one of ${certFile}`);
  return { cert, key };
}

/**
 * The SHA-256 hash of a certificate's public key (its SubjectPublicKeyInfo), base64: what
 * Chromium's `--ignore-certificate-errors-spki-list` takes to accept that one certificate, and
 * nothing else, without trusting its authority.
 *
 * @example
 * chromium.launch({ args: [`--ignore-certificate-errors-spki-list=${spkiHash(tls.cert)}`] });
 */
export function spkiHash(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** True when `cert` was signed by `caCert`, covers our names and has more than `RENEW_BEFORE_MS` left. */
function stillGood(cert: string, caCert: string): boolean {
  try {
    const x509 = new X509Certificate(cert);
    const names = DNS_NAMES.every((n) => x509.checkHost(n)) && IP_ADDRESSES.every((ip) => x509.checkIP(ip));
    return names && x509.verify(new X509Certificate(caCert).publicKey) && Date.parse(x509.validTo) - Date.now() > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

/** An RSA key pair: the private key as PEM, the public key as node-forge's. */
function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { pem: privateKey, publicKey: forge.pki.publicKeyFromPem(publicKey) };
}

/** A certificate to fill: a random serial and the validity. */
function newCertificate(publicKey: forge.pki.PublicKey, validForMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`; // positive, 16 bytes
  cert.validity.notBefore = new Date(Date.now() - 60_000); // a clock a little behind still accepts it
  cert.validity.notAfter = new Date(Date.now() + validForMs);
  return cert;
}

/** The local authority: may sign server certificates for the loopback names only. */
function makeAuthority(): TlsCredentials {
  const keys = keyPair();
  const cert = newCertificate(keys.publicKey, CA_YEARS * 365 * 24 * 3600 * 1000);
  const subject = [
    { name: 'commonName', value: 'rxinformer development CA' },
    { name: 'organizationName', value: 'rxinformer development (this machine only)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
    { id: '2.5.29.30', critical: true, value: loopbackOnly() },
  ]);
  signCertificate(cert, keys.pem);
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}

/** The server certificate for localhost, 127.0.0.1 and ::1, signed by `ca`. */
function makeServerCertificate(ca: TlsCredentials): TlsCredentials {
  const keys = keyPair();
  const authority = forge.pki.certificateFromPem(ca.cert);
  const cert = newCertificate(keys.publicKey, SERVER_DAYS * 24 * 3600 * 1000);
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer(authority.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...DNS_NAMES.map((value) => ({ type: 2, value })), ...IP_ADDRESSES.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authority.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signCertificate(cert, ca.key);
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}

/** node-forge's `pki.getTBSCertificate`, which its type definitions leave out. */
interface TbsOf {
  getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1;
}

/**
 * Signs `cert` with `keyPem` (sha256WithRSAEncryption) as node-forge's `cert.sign` does, but with
 * node:crypto: forge's RSA in JavaScript took seconds per signature on a loaded machine.
 */
function signCertificate(cert: forge.pki.Certificate, keyPem: string): void {
  cert.signatureOid = cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  cert.tbsCertificate = (forge.pki as unknown as TbsOf).getTBSCertificate(cert);
  const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, keyPem).toString('binary');
}

/**
 * NameConstraints (RFC 5280 4.2.1.10) permitting `localhost`, 127.0.0.0/8 and ::1 only, DER: a
 * certificate this authority signed for any other name is refused by verifiers that apply a trusted
 * root's constraints (Chromium's and NSS's do).
 */
function loopbackOnly(): string {
  const { asn1 } = forge;
  const subtree = (tag: number, value: string) =>
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, false, value)]);
  const bytes = (hex: string) => forge.util.hexToBytes(hex);
  const permitted = [
    subtree(2, 'localhost'), // dNSName
    subtree(7, bytes('7f000000' + 'ff000000')), // iPAddress 127.0.0.0/8
    subtree(7, bytes('00000000000000000000000000000001' + 'ffffffffffffffffffffffffffffffff')), // ::1/128
  ];
  const value = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, permitted)]);
  return asn1.toDer(value).getBytes();
}

/** A certificate and key read from two files; undefined when either is missing or unusable. */
async function readPair(certFile: string, keyFile: string): Promise<TlsCredentials | undefined> {
  try {
    return await loadCertificate(certFile, keyFile);
  } catch {
    return undefined;
  }
}

/** Writes a certificate (readable by all) and its key (by its owner only), each file whole or not at all. */
async function writePair(certFile: string, keyFile: string, pair: TlsCredentials): Promise<void> {
  const write = async (path: string, text: string, mode: number) => {
    const partial = `${path}.${process.pid}.tmp`;
    await writeFile(partial, text, { mode });
    await chmod(partial, mode);
    await rename(partial, path);
  };
  await write(keyFile, pair.key, 0o600);
  await write(certFile, pair.cert, 0o644);
}

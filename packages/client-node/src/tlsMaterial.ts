/**
 * The TLS material of a transport's requests (what `KubeConfig.applyToHTTPSOptions` fills in), and
 * the connections made with it: rebuilt when the material changes — an exec plugin that returns a
 * new client certificate, certificate files rewritten on disk. The previous connections close once
 * their requests have ended, so running watches are never cut.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { InvalidOptionsError } from '@rxinformer/core';

/** The TLS fields of the options `KubeConfig.applyToHTTPSOptions` fills in. */
export type TlsMaterial = Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** Connections that close gracefully: `close()` resolves once their requests have ended. */
export interface Closable {
  close(): Promise<void>;
}

/** The connections of each TLS material, the latest one current. */
export interface MaterialHolder<C extends Closable> {
  /**
   * The connections for `material`: the current ones while the material is unchanged; otherwise
   * new ones, and the previous ones close once their in-flight requests (watches included) end.
   * `readAt` orders the credential reads (a counter taken when each read started): material read
   * before the current connections' never replaces them, so a slow read of a certificate that has
   * since rotated does not switch back. Send on the returned connections at once (in the same
   * task). With `checkMaterial`, new material that does not parse throws `InvalidOptionsError`
   * (see `tlsMaterialProblem`) and changes nothing.
   */
  forMaterial(material: TlsMaterial, readAt?: number): C;
  /** The current connections and those still closing. */
  all(): C[];
  /** Closes the current connections and waits for the retiring ones. Later requests build new ones. */
  close(): Promise<void>;
}

/**
 * Creates the holder: `make` builds the connections of a material (only its TLS fields);
 * `checkMaterial` (for HTTPS servers) checks each new material first.
 *
 * @example
 * const holder = createMaterialHolder((tls) => new Agent({ connect: tls }), true);
 * const opts = {}; await kc.applyToHTTPSOptions(opts);
 * await request(url, { dispatcher: holder.forMaterial(opts) });
 *
 * Caveat: material is compared by content on every call (a few buffers), never by file times.
 */
export function createMaterialHolder<C extends Closable>(make: (material: TlsMaterial) => C, checkMaterial = false): MaterialHolder<C> {
  let current: { material: TlsMaterial; connections: C; readAt: number } | undefined;
  const retiring = new Map<C, Promise<void>>();
  const retire = (c: C) => {
    const p: Promise<void> = c
      .close()
      .catch(() => undefined)
      .finally(() => retiring.delete(c));
    retiring.set(c, p);
  };
  return {
    forMaterial(material, readAt = Number.MAX_SAFE_INTEGER) {
      if (current && (readAt < current.readAt || sameMaterial(current.material, material))) return current.connections;
      const problem = checkMaterial ? tlsMaterialProblem(material) : undefined;
      if (problem !== undefined) throw new InvalidOptionsError(problem);
      if (current) retire(current.connections);
      const tls = pickTls(material);
      current = { material: tls, connections: make(tls), readAt };
      return current.connections;
    },
    all: () => [...(current ? [current.connections] : []), ...retiring.keys()],
    async close() {
      if (current) retire(current.connections);
      current = undefined;
      await Promise.all(retiring.values());
    },
  };
}

function pickTls(opts: TlsMaterial): TlsMaterial {
  const tls: Record<string, unknown> = {};
  for (const field of TLS_FIELDS) if (opts[field] !== undefined) tls[field] = opts[field];
  return tls as TlsMaterial;
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return TLS_FIELDS.every((field) => sameValue(a[field], b[field]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return a === b;
}

/**
 * What is wrong with TLS material, or undefined: a certificate authority or client certificate with
 * no PEM certificate that parses, a client key that is no PEM private key. Node's TLS silently
 * ignores a CA that is not PEM, so a garbled `certificate-authority-data` (bad base64, a DER file)
 * showed as "self-signed certificate" on every request, not as the kubeconfig's fault.
 *
 * @example
 * tlsMaterialProblem({ ca: Buffer.from('not a certificate') }); // 'the certificate authority (certificate-authority…) holds no PEM certificate'
 */
export function tlsMaterialProblem(m: TlsMaterial): string | undefined {
  if (m.ca !== undefined && !every(m.ca, holdsCertificates))
    return 'the certificate authority (certificate-authority or certificate-authority-data) holds no PEM certificate';
  if (m.cert !== undefined && !every(m.cert, holdsCertificates))
    return 'the client certificate (client-certificate or client-certificate-data) holds no PEM certificate';
  if (m.key !== undefined && !every(m.key, (key) => isPrivateKey(key, m.passphrase)))
    return 'the client key (client-key or client-key-data) is no PEM private key';
  return undefined;
}

function every(value: unknown, check: (one: string | Buffer) => boolean): boolean {
  const all = Array.isArray(value) ? value : [value];
  return all.length > 0 && all.every((one) => (typeof one === 'string' || Buffer.isBuffer(one)) && check(one));
}

/** True when `pem` holds at least one certificate block, and every one parses. */
function holdsCertificates(pem: string | Buffer): boolean {
  const blocks = pem.toString().match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) return false;
  try {
    for (const block of blocks) new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

function isPrivateKey(key: string | Buffer, passphrase: string | undefined): boolean {
  try {
    createPrivateKey(passphrase === undefined ? key : { key, passphrase });
    return true;
  } catch {
    return false;
  }
}

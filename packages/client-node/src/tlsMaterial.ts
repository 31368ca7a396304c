/**
 * The undici dispatcher of a transport, rebuilt when the KubeConfig's TLS material changes: an exec
 * plugin that returns a new client certificate, or certificate files rewritten on disk. The previous
 * dispatcher closes once its requests have ended, so running watches are never cut.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { InvalidOptionsError } from '@rxinformer/core';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';

/** The TLS fields of the options `KubeConfig.applyToHTTPSOptions` fills in. */
export type TlsMaterial = Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** Keep-alive probes every 30 s, like client-go, so idle load-balancer timeouts do not cut watches. */
const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelay: 30_000 } as const;

/** A dispatcher per TLS material, the latest one current. */
export interface TlsDispatcher {
  /**
   * The dispatcher for `material`: the current one while the material is unchanged; otherwise a new
   * one, and the previous one closes once its in-flight requests (watches included) end. `readAt`
   * orders the credential reads (a counter taken when each read started): material read before the
   * current dispatcher's never replaces it, so a slow read of a certificate that has since rotated
   * does not switch the pool back. Dispatch on the returned dispatcher at once (in the same task).
   * With `checkMaterial`, new material that does not parse throws `InvalidOptionsError` (see
   * `tlsMaterialProblem`) and changes nothing.
   */
  forMaterial(material: TlsMaterial, readAt?: number): Dispatcher;
  /** Closes the current dispatcher and waits for the retiring ones. Later requests build a new one. */
  close(): Promise<void>;
}

/**
 * Creates the dispatcher holder of one cluster, through `proxyUrl` when set; `checkMaterial` (for
 * HTTPS servers) checks each new material before a dispatcher is built for it.
 *
 * @example
 * const tls = createTlsDispatcher(cluster.proxyUrl);
 * const opts = {}; await kc.applyToHTTPSOptions(opts);
 * await request(url, { dispatcher: tls.forMaterial(opts) });
 *
 * Caveat: material is compared by content on every call (a few buffers), never by file times.
 */
export function createTlsDispatcher(proxyUrl: string | undefined, checkMaterial = false): TlsDispatcher {
  let current: { material: TlsMaterial; dispatcher: Dispatcher; readAt: number } | undefined;
  const retiring = new Set<Promise<void>>();
  const retire = (d: Dispatcher) => {
    const p: Promise<void> = d
      .close()
      .catch(() => undefined)
      .finally(() => retiring.delete(p));
    retiring.add(p);
  };
  return {
    forMaterial(material, readAt = Number.MAX_SAFE_INTEGER) {
      if (current && (readAt < current.readAt || sameMaterial(current.material, material))) return current.dispatcher;
      const problem = checkMaterial ? tlsMaterialProblem(material) : undefined;
      if (problem !== undefined) throw new InvalidOptionsError(problem);
      if (current) retire(current.dispatcher);
      current = { material: pickTls(material), dispatcher: makeDispatcher(material, proxyUrl), readAt };
      return current.dispatcher;
    },
    async close() {
      if (current) retire(current.dispatcher);
      current = undefined;
      await Promise.all(retiring);
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

function makeDispatcher(opts: TlsMaterial, proxyUrl: string | undefined): Dispatcher {
  const tls = pickTls(opts);
  // Through a proxy, the TCP socket is the one to the proxy (proxyTls's connector); the target's
  // TLS runs inside the tunnel (requestTls). Both get the direct Agent's keep-alive.
  if (proxyUrl) return new ProxyAgent({ uri: proxyUrl, requestTls: { ...tls, ...KEEP_ALIVE }, proxyTls: { ...KEEP_ALIVE } });
  return new Agent({ connect: { ...tls, ...KEEP_ALIVE } });
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

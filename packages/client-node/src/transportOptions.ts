/**
 * The checks of `createKubeTransport`'s inputs: the kubeconfig's URLs and the HTTP/2 options, each
 * refused with an `InvalidOptionsError` saying what is wrong.
 */
import { InvalidOptionsError } from '@rxinformer/core';
import { checkDuration } from '@rxinformer/core/time';
import type { Http2Options, ResolvedHttp2Options } from './connections.ts';

/**
 * The defaults of `Http2Options`: client-go's health check (a PING after 30 s without a frame, the
 * connection dropped 15 s later without its ack) and dial timeout (30 s); streams per connection
 * as many as the server allows, up to 1000.
 *
 * @example
 * createKubeTransport(kc, { http2: { ...DEFAULT_HTTP2_OPTIONS, pingTimeoutMs: 5_000 } });
 *
 * Caveat: kube-apiserver announces 100 streams a connection, which rules over the 1000.
 */
export const DEFAULT_HTTP2_OPTIONS: Readonly<Required<Http2Options>> = Object.freeze({
  maxStreamsPerConnection: 1000,
  readIdleTimeoutMs: 30_000,
  pingTimeoutMs: 15_000,
  connectTimeoutMs: 30_000,
});

/**
 * The scheme of a kubeconfig URL, lower case as the URL parser gives it: `http:` or `https:`; throws
 * `InvalidOptionsError` for anything else (a SOCKS proxy included) or a string that is no URL.
 */
export function schemeOf(url: string, field: 'server' | 'proxy-url'): 'http:' | 'https:' {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch (cause) {
    throw new InvalidOptionsError(`the cluster's ${field} is not a URL: ${JSON.stringify(url)}`, { cause });
  }
  if (scheme === 'http:' || scheme === 'https:') return scheme;
  if (field === 'proxy-url' && scheme.startsWith('socks'))
    throw new InvalidOptionsError('SOCKS proxies are not supported; use an HTTP(S) proxy');
  throw new InvalidOptionsError(`the cluster's ${field} must be an http:// or https:// URL, got ${JSON.stringify(url)}`);
}

/**
 * `KubeTransportOptions.http2` with its defaults, or false (HTTP/1.1 only). Each field must be an
 * integer: `maxStreamsPerConnection` in [1, 2^31), the times in ms in [0, 2^31) (`pingTimeoutMs`
 * and `connectTimeoutMs` > 0).
 *
 * @example
 * resolveHttp2Options({ pingTimeoutMs: 5_000 }); // { maxStreamsPerConnection: 1000, readIdleTimeoutMs: 30_000, pingTimeoutMs: 5_000, connectTimeoutMs: 30_000 }
 */
export function resolveHttp2Options(given: Http2Options | false | undefined): ResolvedHttp2Options | false {
  if (given === false) return false;
  if (given !== undefined && (typeof given !== 'object' || given === null))
    throw new InvalidOptionsError(`http2 must be an options object or false, got ${String(given)}`);
  const resolved = { ...DEFAULT_HTTP2_OPTIONS };
  for (const key of Object.keys(DEFAULT_HTTP2_OPTIONS) as (keyof ResolvedHttp2Options)[]) {
    const value = given?.[key];
    if (value === undefined) continue;
    const least = key === 'readIdleTimeoutMs' ? 0 : 1;
    if (key !== 'maxStreamsPerConnection')
      resolved[key] = checkDuration(`http2.${key}`, value, value, { min: least, max: 'timer', integer: true }); // one timer each
    else if (typeof value !== 'number' || !Number.isInteger(value) || value < least || value > 2 ** 31 - 1)
      throw new InvalidOptionsError(`http2.${key} must be an integer in [${least}, 2^31), got ${String(value)}`);
    else resolved[key] = value;
  }
  return resolved;
}

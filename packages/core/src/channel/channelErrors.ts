/**
 * The channel's errors: what a client makes of a server that does not speak the protocol, and how a
 * server words any failure as the `Status` its answer carries.
 */
import { InvalidOptionsError, KubeApiError, RxInformerError } from '../errors.ts';
import { failureStatus } from './protocol.ts';
import type { Status } from '../types.ts';

/** Why a `ChannelProtocolError` was raised. */
export type ChannelProtocolErrorReason =
  /** The other side speaks another protocol version (its `hello`, or its refusal of ours). */
  | 'UnsupportedVersion'
  /** A message that is not what the protocol allows (not an object, a stream message without a known shape). */
  | 'MalformedMessage'
  /** The server refused the connection with an `error` that names no stream. */
  | 'ConnectionRefused';

/**
 * The other side of a channel broke the protocol: a `hello` of another version, a message of an
 * unknown shape, a connection refused. On the client, the stream it concerns fails with it (the
 * reflector backs off and retries, its status shows it); the other streams go on, unless the
 * connection itself was refused.
 *
 * @example
 * informer.status$.subscribe((s) => { if (s.lastError instanceof ChannelProtocolError) console.warn(s.lastError.reason); });
 */
export class ChannelProtocolError extends RxInformerError {
  /** Always `ChannelProtocolError`: set as a string, so it survives minification (a worker's bundle). */
  override readonly name: string = 'ChannelProtocolError';
  declare readonly reason: ChannelProtocolErrorReason;

  constructor(reason: ChannelProtocolErrorReason, message: string, options?: { cause?: unknown }) {
    super(reason, message, options);
  }
}

/**
 * The `Status` a server answers for `error`: a `KubeApiError`'s own (a 403 from an authorizer, a
 * 429), 400 `BadRequest` for options or selectors an informer factory refused, 503
 * `ServiceUnavailable` for a factory or informer that was shut down, else 500 `InternalError`.
 *
 * @example
 * reply({ t: 'error', id, status: statusOfError(new KubeApiError(403, { message: 'no' })) });
 */
export function statusOfError(error: unknown): Status {
  if (error instanceof KubeApiError)
    return error.status?.code === error.code && error.status.reason
      ? error.status
      : failureStatus(error.code, error.reason, error.message, error.retryAfterSeconds);
  const reason = error instanceof RxInformerError ? error.reason : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InvalidOptionsError || reason === 'InvalidSelector' || reason === 'IndexerError')
    return failureStatus(400, 'BadRequest', message);
  if (reason === 'FactoryShutdown' || reason === 'InformerShutdown') return failureStatus(503, 'ServiceUnavailable', message);
  return failureStatus(500, 'InternalError', message);
}

/**
 * The error a client raises for a stream's `error` message: a `KubeApiError` with the Status (its
 * code, reason, message and `retryAfterSeconds`), as an HTTP ListerWatcher raises for the API
 * server's answer; a Status without a numeric code is a 500.
 */
export function errorOfStatus(status: Status): KubeApiError {
  const code = typeof status.code === 'number' && Number.isInteger(status.code) ? status.code : 500;
  return new KubeApiError(code, { status });
}

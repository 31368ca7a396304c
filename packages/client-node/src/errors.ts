/**
 * The named errors of the client-node adapter (besides discovery's, in `dynamic.ts`). Each is an
 * `RxInformerError` with a `reason` and, where there is one, the underlying error as `cause`.
 */
import { RxInformerError } from '@rxinformer/core';
import { bodyExcerpt } from '@rxinformer/core/http';

/**
 * The KubeConfig could not give credentials or TLS material for a request: an exec plugin failed,
 * a certificate or key file is missing, an OIDC refresh was refused… The `cause` says which.
 *
 * @example
 * informer.status$.subscribe((s) => { if (s.lastError instanceof CredentialError) console.error(s.lastError.cause); });
 */
export class CredentialError extends RxInformerError {
  /** Always `CredentialError`: set as a string, so it survives minification. */
  override readonly name: string = 'CredentialError';
  /** The KubeConfig user whose credentials failed. */
  readonly user: string;

  constructor(user: string, options?: { cause?: unknown }) {
    const detail = options?.cause instanceof Error ? options.cause.message : String(options?.cause);
    super('CredentialUnavailable', `cannot get the credentials of kubeconfig user "${user}": ${detail}`, options);
    this.user = user;
  }
}

/**
 * A successful answer whose body is not the JSON the API promises, e.g. the HTML page of a proxy
 * or gateway in front of the API server. The message shows the start of such a page, never of a
 * body that looks like JSON (cut JSON may hold a Secret's data).
 */
export class ResponseDecodeError extends RxInformerError {
  /** Always `ResponseDecodeError`: set as a string, so it survives minification. */
  override readonly name: string = 'ResponseDecodeError';
  /** The request path. */
  readonly path: string;
  /** The start of the body (200 characters). */
  readonly body: string;

  constructor(path: string, body: string, options?: { cause?: unknown }) {
    super('MalformedResponse', `the answer to ${path} is not JSON (a proxy or gateway in the way?): ${bodyExcerpt(body)}`, options);
    this.path = path;
    this.body = body.slice(0, 200);
  }
}

/**
 * A discovery request past its `timeoutMs` (or a list or watch past its `responseTimeoutMs`): core's
 * `RequestTimeoutError`, re-exported here where it used to live.
 */
export { RequestTimeoutError } from '@rxinformer/core';

/**
 * `error` as an `Error` to reject with: any object as is (an error of another realm — a VM context,
 * Node's internals seen from one — keeps its `code` and `cause`), anything else wrapped.
 *
 * @example
 * socket.once('error', (e: unknown) => reject(asError(e)));
 */
export function asError(error: unknown): Error {
  return typeof error === 'object' && error !== null ? (error as Error) : new Error(String(error));
}

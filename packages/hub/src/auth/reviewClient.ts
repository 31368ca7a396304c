/**
 * What the hub's TokenReview and SubjectAccessReview checks send reviews with: any client that POSTs
 * a JSON body and resolves with the JSON answer, such as @rxinformer/controller's `ApiClient`
 * (`kubeApiClient(kc)` from @rxinformer/client-node, `fetchApiClient({ baseUrl, headers })`).
 */
import { RxInformerError } from '@rxinformer/core';

/**
 * Sends one request to the API server with the hub's own credentials; resolves with the parsed
 * JSON answer and rejects for an error answer or a failed connection.
 *
 * @example
 * import { kubeApiClient } from '@rxinformer/client-node';
 * const client: ReviewClient = kubeApiClient(kc);
 */
export interface ReviewClient {
  /** Sends `req` (here always a `POST` of a review); resolves with the JSON answer. */
  request<T = unknown>(req: { method: 'POST'; path: string; body: unknown; signal?: AbortSignal }): Promise<T>;
}

/** A review's `status` as the API server answers it (the fields the hub reads). */
export interface ReviewAnswer<S> {
  readonly status?: S;
}

/** Named errors of the hub's reviews. */
export type ReviewFailureReason = 'TokenReviewFailed' | 'SubjectAccessReviewFailed';

/**
 * A review the API server did not answer (unreachable, 5xx, a refusal of the hub's own
 * credentials): the hub answers 503, never 401 or 403, and the client retries.
 *
 * @example
 * try { await authenticator.authenticate(req); } catch (e) { if (e instanceof ReviewFailedError) console.log(e.reason); }
 */
export class ReviewFailedError extends RxInformerError {
  /** Always `ReviewFailedError`: set as a string, so it survives minification. */
  override readonly name: string = 'ReviewFailedError';
  /** Which review failed. */
  declare readonly reason: ReviewFailureReason;

  constructor(reason: ReviewFailureReason, options: { cause: unknown }) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(reason, `${reason === 'TokenReviewFailed' ? 'TokenReview' : 'SubjectAccessReview'} failed: ${why}`, options);
  }
}

/** Sends `body` to `path` with `client`; a failure as a `ReviewFailedError`. */
export async function review<S>(client: ReviewClient, path: string, body: unknown, reason: ReviewFailureReason): Promise<S | undefined> {
  try {
    const answer = await client.request<ReviewAnswer<S>>({ method: 'POST', path, body });
    return answer?.status;
  } catch (cause) {
    throw new ReviewFailedError(reason, { cause });
  }
}

/**
 * The one write contract of rxinformer: an `ApiClient` sends one request to the API server and
 * resolves with the parsed JSON answer. Leader election and shard rings (here), and the
 * controller's `req.api`, event recorder and manager (@rxinformer/controller) all write through it;
 * its implementations are `fetchApiClient` and `httpApiClient` (@rxinformer/controller) and
 * `kubeApiClient` (@rxinformer/client-node).
 */

/** The HTTP methods of the API's verbs. */
export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request to the API server. */
export interface ApiRequest {
  /** The verb's method. */
  method: ApiMethod;
  /** The path, e.g. `/api/v1/namespaces/default/configmaps/x`, without query. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** The body, sent as JSON (for `application/apply-patch+yaml` too: JSON is YAML). */
  body?: unknown;
  /** The body's media type. Default `application/json`. */
  contentType?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * Sends requests to the API server: the parsed JSON answer, or a `KubeApiError` (the controller's
 * `ApiError` is one) for an error answer, a `NetworkError` for a failed connection.
 *
 * @example
 * const cm = await client.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/x' });
 *
 * Caveat: an error answer must reject with a `KubeApiError` carrying its HTTP `code`: leader
 * election reads a 404 as "no Lease" and a 409 as a lost race by it.
 */
export interface ApiClient {
  /** Sends `req`; resolves with the JSON answer. */
  request<T = unknown>(req: ApiRequest): Promise<T>;
}

/** True when `value` has a `request` function: an `ApiClient` (the check options make). */
export function isApiClient(value: unknown): value is ApiClient {
  return typeof value === 'object' && value !== null && typeof (value as Partial<ApiClient>).request === 'function';
}

/**
 * The `LeaseClient` contract leader election and shard membership write through — get, create, and
 * update with a resourceVersion precondition — and its HTTP implementation over any client that can
 * send one request (fetch here, undici under client-node).
 */
import { Observable } from 'rxjs';
import { bodyExcerpt, InvalidObjectError, InvalidOptionsError } from '../errors.ts';
import { fetchResponse } from '../http/fetchListerWatcher.ts';
import { apiErrorFromResponse, networkErrorFrom } from '../http/httpErrors.ts';
import type { HttpResponse } from '../http/httpGet.ts';
import { errorBody, readBody } from '../http/httpLimits.ts';
import { pathSegment } from '../pathSegment.ts';
import type { Lease } from './lease.ts';

/**
 * What leader election needs of the API: three calls on Leases. Each returns a **cold** Observable
 * that sends on subscription, emits the answer once and completes; unsubscribing aborts.
 *
 * - `get`: the Lease, or `undefined` when there is none (404).
 * - `create`: fails with a `KubeApiError` 409 (AlreadyExists) when another created it first.
 * - `update`: a PUT carrying `metadata.resourceVersion`; a `KubeApiError` 409 (Conflict) means
 *   someone else wrote the Lease since: the race is lost.
 *
 * Leader election takes the first answer of each call only; a call that completes without one, or a
 * read that is neither `undefined` nor a Lease with a `resourceVersion`, fails the attempt with an
 * `InvalidObjectError` (it never writes over what it could not read).
 *
 * @example
 * const client = fetchLeaseClient({ baseUrl: 'http://127.0.0.1:8001' });
 * client.get('default', 'my-controller').subscribe((lease) => console.log(lease?.spec?.holderIdentity));
 */
export interface LeaseClient {
  /** Reads a Lease; `undefined` when it does not exist. */
  get(namespace: string, name: string): Observable<Lease | undefined>;
  /** Creates a Lease (its `metadata.namespace` and `metadata.name` say where). */
  create(lease: Lease): Observable<Lease>;
  /** Replaces a Lease, on condition that its `metadata.resourceVersion` is still the current one. */
  update(lease: Lease): Observable<Lease>;
}

/**
 * Sends one request with an optional JSON body and resolves once the answer's headers arrived; the
 * request (and its body, read later) must stop when `signal` aborts.
 */
export type HttpSend = (
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body: string | undefined,
  signal: AbortSignal,
) => Promise<HttpResponse>;

/**
 * The collection path of Leases in `namespace`; throws `InvalidPathSegmentError` for a namespace
 * that is not one path segment (`.`, `..`, holding `/` or `%`).
 */
export function leasesPath(namespace: string): string {
  return `/apis/coordination.k8s.io/v1/namespaces/${pathSegment('namespace', namespace)}/leases`;
}

/** The path of the Lease `name` in `namespace`, both checked as path segments. */
function leasePath(namespace: string, name: unknown): string {
  return `${leasesPath(namespace)}/${pathSegment('name', name)}`;
}

/**
 * The `LeaseClient` over any HTTP client: `send` sends one request. Non-2xx answers are
 * `KubeApiError`s (with the Status), a failed connection a `NetworkError`, a body that is not a
 * Lease an `InvalidObjectError`, a body larger than `MAX_BODY_BYTES.objectBody` (4 MiB) a
 * `ResponseTooLargeError`, the request then aborted. A namespace or name that is not one path
 * segment (`.`, `..`, holding `/` or `%`) fails the call with an `InvalidPathSegmentError`, sending
 * nothing.
 *
 * @example
 * const client = httpLeaseClient(async (method, path, body, signal) => {
 *   const r = await fetch(base + path, { method, body, signal, headers: { 'Content-Type': 'application/json' } });
 *   return { status: r.status, header: (n) => r.headers.get(n) ?? undefined, chunks: () => r.body ?? [] };
 * });
 */
export function httpLeaseClient(send: HttpSend): LeaseClient {
  if (typeof send !== 'function') throw new InvalidOptionsError('httpLeaseClient needs a send function');
  const call = (method: 'GET' | 'POST' | 'PUT', pathOf: () => string, body: unknown) =>
    new Observable<Lease | undefined>((subscriber) => {
      const abort = new AbortController();
      (async () => {
        const path = pathOf(); // a bad name fails the call, as any failure
        const text = body === undefined ? undefined : JSON.stringify(body);
        let r: HttpResponse;
        try {
          r = await send(method, path, text, abort.signal);
        } catch (e) {
          throw networkErrorFrom(e, path);
        }
        // Unread bodies (a 404) are released by the abort that ends every call.
        if (r.status === 404 && method === 'GET') return undefined;
        if (r.status < 200 || r.status > 299) throw apiErrorFromResponse(r.status, await errorBody(r, path), r.header('retry-after'));
        return parseLease(await readBody(r, path, 'objectBody'));
      })().then(
        (value) => {
          subscriber.next(value);
          subscriber.complete();
        },
        (e: unknown) => {
          if (!abort.signal.aborted) subscriber.error(e);
        },
      );
      return () => abort.abort();
    });
  return {
    get: (namespace, name) => call('GET', () => leasePath(namespace, name), undefined),
    create: (lease) => call('POST', () => leasesPath(namespaceOf(lease)), lease) as Observable<Lease>,
    update: (lease) => call('PUT', () => leasePath(namespaceOf(lease), lease.metadata!.name), lease) as Observable<Lease>,
  };
}

/** Options of `fetchLeaseClient`. */
export interface FetchLeaseClientOptions {
  /** The API server (or proxy) URL, e.g. `http://127.0.0.1:8001`. Required. */
  baseUrl: string;
  /** Extra headers on every request (e.g. `Authorization`, `User-Agent` where allowed). Default: none. */
  headers?: Record<string, string>;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The `LeaseClient` over fetch (browsers, and Node's global fetch).
 *
 * @example
 * const election = leaderElection({ client: fetchLeaseClient({ baseUrl }), namespace: 'default', name: 'my-controller', identity: 'pod-a' });
 */
export function fetchLeaseClient(options: FetchLeaseClientOptions): LeaseClient {
  if (!options || typeof options.baseUrl !== 'string') throw new InvalidOptionsError('fetchLeaseClient needs a baseUrl');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');
  return httpLeaseClient(async (method, path, body, signal) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetchResponse(await doFetch(base + path, { method, headers, body, signal }));
  });
}

function namespaceOf(lease: Lease): string {
  const ns = lease?.metadata?.namespace;
  if (typeof ns !== 'string' || ns === '' || typeof lease.metadata?.name !== 'string')
    throw new InvalidOptionsError('a Lease to write needs metadata.namespace and metadata.name');
  return ns;
}

function parseLease(text: string): Lease {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InvalidObjectError(`the answer is not JSON: ${bodyExcerpt(text, 100)}`, text, { cause });
  }
  if (value === null || typeof value !== 'object' || typeof (value as Lease).metadata?.name !== 'string')
    throw new InvalidObjectError('the answer is not a Lease', value);
  return value as Lease;
}

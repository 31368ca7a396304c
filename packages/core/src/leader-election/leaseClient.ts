/**
 * The three Lease calls leader election and shard membership make — get, create, and update with a
 * resourceVersion precondition — over the `ApiClient` every write of the toolkit goes through.
 */
import { Observable } from 'rxjs';
import { InvalidObjectError, InvalidOptionsError, KubeApiError } from '../errors.ts';
import { isApiClient, type ApiClient } from '../http/apiClient.ts';
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
 * const client = leaseClient(fetchApiClient({ baseUrl: 'http://127.0.0.1:8001' }));
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
 * The `LeaseClient` over the `ApiClient` every write goes through (`fetchApiClient`,
 * `kubeApiClient`, the one a manager and its controllers use): a 404 on a read is no Lease, error
 * answers are the client's `KubeApiError`s, an answer that is not a Lease an `InvalidObjectError`.
 * A namespace or name that is not one path segment fails the call with an
 * `InvalidPathSegmentError`, sending nothing. Unsubscribing aborts the request.
 *
 * @example
 * const leases = leaseClient(fetchApiClient({ baseUrl: 'http://127.0.0.1:8001' }));
 * leases.get('default', 'my-controller').subscribe((lease) => console.log(lease?.spec?.holderIdentity));
 */
export function leaseClient(api: ApiClient): LeaseClient {
  if (!isApiClient(api)) throw new InvalidOptionsError('leaseClient needs an ApiClient (request)');
  const call = (method: 'GET' | 'POST' | 'PUT', pathOf: () => string, body: unknown) =>
    new Observable<Lease | undefined>((subscriber) => {
      const abort = new AbortController();
      (async () => {
        const path = pathOf(); // a bad name fails the call, as any failure
        try {
          return parseLease(await api.request({ method, path, body, signal: abort.signal }));
        } catch (e) {
          if (method === 'GET' && e instanceof KubeApiError && e.code === 404) return undefined;
          throw e;
        }
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

/**
 * The `LeaseClient` of an option that takes either: an `ApiClient` is wrapped (`leaseClient`), a
 * `LeaseClient` (get, create, update: a test's fake) used as is; anything else throws
 * `InvalidOptionsError` naming `who`.
 */
export function leaseClientOf(client: ApiClient | LeaseClient, who: string): LeaseClient {
  if (isApiClient(client)) return leaseClient(client);
  const c = client as Partial<LeaseClient> | null | undefined;
  if (typeof c?.get !== 'function' || typeof c.create !== 'function' || typeof c.update !== 'function')
    throw new InvalidOptionsError(`${who}: client must be an ApiClient (request), or a LeaseClient (get, create, update)`);
  return client as LeaseClient;
}

function namespaceOf(lease: Lease): string {
  const ns = lease?.metadata?.namespace;
  if (typeof ns !== 'string' || ns === '' || typeof lease.metadata?.name !== 'string')
    throw new InvalidOptionsError('a Lease to write needs metadata.namespace and metadata.name');
  return ns;
}

function parseLease(value: unknown): Lease {
  if (value === null || typeof value !== 'object' || typeof (value as Lease).metadata?.name !== 'string')
    throw new InvalidObjectError('the answer is not a Lease', value);
  return value as Lease;
}

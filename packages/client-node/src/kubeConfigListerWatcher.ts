/**
 * The ListerWatcher over a client-node `KubeConfig`: list pages and watch streams read as raw JSON
 * into plain objects (no per-object class conversion), through the KubeConfig's auth and TLS
 * options and one shared keep-alive connection pool.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { InvalidOptionsError, type KubeObject, type HttpLimitOptions, type ListerWatcher, type ResourceDescriptor } from '@rxinformer/core';
import { httpListerWatcher } from '@rxinformer/core/http';
import { resourcePath } from '@rxinformer/core/http';
import { sharedKubeTransport, type KubeTransport } from './kubeTransport.ts';
import { hasProtobufSchema } from './protobuf/decode.ts';
import { protobufCodec } from './protobuf/wire.ts';

/**
 * Options of `kubeConfigListerWatcher`: a `resource` (with an optional `namespace`) or a `path`, and
 * the limits of core's `HttpLimitOptions` (response timeout, largest watch line and list body).
 */
export interface KubeConfigListerWatcherOptions<T extends KubeObject = KubeObject> extends HttpLimitOptions {
  /** The resource to list and watch, e.g. `pods` from this package. */
  resource?: ResourceDescriptor<T>;
  /** The namespace of a namespaced `resource`. Default: all namespaces. */
  namespace?: string;
  /** The collection path instead of a resource, e.g. `/api/v1/namespaces/default/pods`. */
  path?: string;
  /** Label selector on every list AND watch. Default: none. */
  labelSelector?: string;
  /** Field selector on every list AND watch. Default: none. */
  fieldSelector?: string;
  /** Ask for `PartialObjectMetadata` only. Default: the `resource`'s `metadataOnly` (core's `metadataOnly(pods)`), else false. */
  metadataOnly?: boolean;
  /** Ask for the server's Table rows (`TableRowObject`s). Default: the `resource`'s `table` (core's `tableRows(pods)`), else false. */
  table?: boolean;
  /** The transport. Default: `sharedKubeTransport(kubeConfig)` (one connection pool per KubeConfig). */
  transport?: KubeTransport;
  /**
   * The wire of lists and watches: `'json'`, or `'protobuf'` to ask as client-go does
   * (`Accept: application/vnd.kubernetes.protobuf, application/json`) and decode each answer by its
   * `Content-Type` into the same plain objects JSON gives. Protobuf is asked for only for the
   * built-in group versions of the schema table (every GA group of k8s.io/api, `v1` to
   * `storage.k8s.io/v1`); any other resource (a CRD, an aggregated or beta API), and `metadataOnly`
   * or `table` requests, stay on JSON. Default `'json'`.
   *
   * Caveat: decided by measurement, see docs/benchmarks.md ("protobuf wire").
   */
  wire?: 'json' | 'protobuf';
}

/**
 * Lists and watches one resource of the KubeConfig's current cluster. Objects are the parsed JSON,
 * typed as client-node's model interfaces. Failures are typed as with core's `httpListerWatcher`:
 * `KubeApiError`, `NetworkError` (undici's `SocketError`… as its `cause`), `RequestTimeoutError`
 * (reason `WatchNotOpened` for a watch whose headers did not come within `watchOpenTimeoutMs`),
 * `ResponseTooLargeError`, `WatchDecodeError`, and `CredentialError` from the KubeConfig. A watch
 * emits `WATCH_OPENED` when its headers are in: its informer is `connecting` until then.
 *
 * Caveat: undici's own 300 s headers timeout still bounds a `responseTimeoutMs` set higher.
 *
 * Caveat: fields client-node types as `Date` (e.g. `metadata.creationTimestamp`) hold the wire's
 * RFC 3339 strings: parse them with `new Date(...)` where you need a date.
 *
 * @example
 * const kc = new KubeConfig(); kc.loadFromDefault();
 * const lw = kubeConfigListerWatcher(kc, { resource: pods, namespace: 'default', labelSelector: 'app=web' });
 * const informer = createSharedInformer(lw);
 */
export function kubeConfigListerWatcher<T extends KubeObject = KubeObject>(
  kubeConfig: KubeConfig,
  options: KubeConfigListerWatcherOptions<T>,
): ListerWatcher<T> {
  if (!kubeConfig || typeof kubeConfig.getCurrentCluster !== 'function')
    throw new InvalidOptionsError('kubeConfigListerWatcher needs a KubeConfig');
  if (!options?.path && !options?.resource) throw new InvalidOptionsError('kubeConfigListerWatcher needs a resource or a path');
  const path = options.path ?? resourcePath(options.resource!, options.namespace);
  const transport = options.transport ?? sharedKubeTransport(kubeConfig);
  const metadataOnly = options.metadataOnly ?? options.resource?.metadataOnly === true;
  const table = options.table ?? options.resource?.table === true;
  if (options.wire !== undefined && options.wire !== 'json' && options.wire !== 'protobuf')
    throw new InvalidOptionsError(`wire must be 'json' or 'protobuf', got ${String(options.wire)}`);
  const protobuf = options.wire === 'protobuf' && !metadataOnly && !table && hasProtobufSchema(apiVersionOfPath(path));
  const codec = protobuf ? protobufCodec() : undefined;
  // The selectors and the limits, as they are: httpListerWatcher reads only its own fields.
  return httpListerWatcher<T>(transport.get, { ...options, path, metadataOnly, table, codec });
}

/** The apiVersion of a collection path: `/api/v1/…` → `v1`, `/apis/apps/v1/…` → `apps/v1`. */
function apiVersionOfPath(path: string): string {
  const parts = path.split('/');
  return parts[1] === 'api' ? (parts[2] ?? '') : parts[1] === 'apis' ? `${parts[2]}/${parts[3]}` : '';
}

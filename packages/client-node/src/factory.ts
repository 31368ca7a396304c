/**
 * The informer factory bound to a client-node `KubeConfig`: core's factory over the KubeConfig's
 * ListerWatchers, with typed accessors (`informerFor(pods)` is a `SharedInformer<Wire<V1Pod>>`) and
 * dynamic resources resolved through discovery.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  createInformerFactory,
  createStreamingListMemory,
  FactoryShutdownError,
  type FactorySnapshotOptions,
  type HttpLimitOptions,
  type InformerFactory,
  type InformerFactoryOptions,
  type InformerForOptions,
  type KubeObject,
  type ListerWatcherSource,
  type SharedInformer,
  type StreamingListMemory,
  type Wire,
} from '@rxinformer/core';
import { resolveHttpLimits } from '@rxinformer/core/http';
import { checkDuration } from '@rxinformer/core/time';
import { createDiscovery, DEFAULT_DISCOVERY_TIMEOUT_MS, type Discovery, type ResourceRef } from './dynamic.ts';
import { kubeConfigListerWatcher } from './kubeConfigListerWatcher.ts';
import type { KubeResource } from './resources.ts';
import { createKubeTransport, type KubeTransport } from './kubeTransport.ts';

/**
 * Options of `createKubeInformerFactory`: core's factory options, the transport, and the limits of
 * every informer's list and watch (`HttpLimitOptions`; their timeout runs on the factory's `scheduler`).
 */
export interface KubeInformerFactoryOptions extends Omit<InformerFactoryOptions, 'snapshots'>, Omit<HttpLimitOptions, 'scheduler'> {
  /**
   * The transport of every informer and of discovery. Default: a transport of its own for the
   * KubeConfig's current context (one keep-alive connection pool), closed by `close()`.
   */
  transport?: KubeTransport;
  /**
   * Time limit of each discovery request of `informerForRef` and `discovery`, in ms: a number > 0
   * of any length, or `Infinity` for no limit (see `DiscoveryOptions.timeoutMs`); it runs on the
   * factory's `scheduler`. Default 30,000.
   */
  discoveryTimeoutMs?: number;
  /**
   * The wire of every informer's list and watch (`KubeConfigListerWatcherOptions.wire`): `'protobuf'`
   * asks for protobuf for the built-in GA group versions and keeps JSON for the rest (CRDs,
   * metadata-only and Table informers). Default `'json'`.
   */
  wire?: 'json' | 'protobuf';
  /**
   * Persist every informer's cache and start warm (core's factory option), e.g. `{ store:
   * fileSnapshotStore(dir) }`. `server` defaults to the KubeConfig's current cluster URL and user
   * (`https://… as <user>`), so snapshots of two clusters or two users never mix. Default: none.
   */
  snapshots?: Omit<FactorySnapshotOptions, 'server'> & {
    /** Names the server and user in the snapshots' identity. Default: the current cluster's URL and user. */
    server?: string;
  };
  /**
   * What is known of the server's support for streaming lists (core's `streamingLists`). Default:
   * the transport's, shared by every factory over that transport (one cluster): once the server
   * refuses a streaming list, their informers page without asking for 10 minutes.
   */
  streamingLists?: StreamingListMemory;
}

/** An informer factory over a KubeConfig. */
export interface KubeInformerFactory extends InformerFactory {
  /** The transport every informer of this factory uses. */
  readonly transport: KubeTransport;
  /** Discovery over the same transport. */
  readonly discovery: Discovery;
  /**
   * The informer of a resource known only at run time (a CRD, or anything by apiVersion + kind),
   * after discovery has resolved its plural name and scope. Rejects with `FactoryShutdownError`
   * when `close()` is called meanwhile (discovery is aborted, even while credentials are read).
   */
  informerForRef<T extends KubeObject = KubernetesObject>(
    ref: ResourceRef,
    options?: InformerForOptions<Wire<T>>,
  ): Promise<SharedInformer<Wire<T>>>;
  /**
   * Aborts discovery in flight, `shutdown()`, waits for the snapshots the shutdown saves (with
   * `snapshots`), then closes the factory's own connections; resolves when they are closed, or
   * rejects with the `SnapshotStoreError` of a snapshot that could not be written (everything is
   * closed all the same).
   */
  close(): Promise<void>;
}

/** What is known of each transport's server's support for streaming lists: shared by the factories over one transport. */
const STREAMING_LISTS = new WeakMap<KubeTransport, StreamingListMemory>();

/** The streaming-list memory of `transport`'s server (one cluster), made on first request. */
function streamingListsOf(transport: KubeTransport): StreamingListMemory {
  let memory = STREAMING_LISTS.get(transport);
  if (!memory) STREAMING_LISTS.set(transport, (memory = createStreamingListMemory()));
  return memory;
}

/**
 * Creates an informer factory bound to `kubeConfig`. The namespace and selectors (factory-wide or
 * per informer) apply to both the list and the watch of each informer.
 *
 * It speaks up rather than wait forever: `informerFor` throws `InvalidOptionsError` for a selector
 * the API server would refuse; `waitForCacheSync({ timeoutMs })` rejects with a
 * `CacheSyncTimeoutError` naming each informer not synced and its last error (a refused
 * connection, a 403…), and at once before `start()`; `logger: console` tells of each informer's
 * listing, sync, errors (each distinct one once) and recovery.
 *
 * Caveat: objects are plain parsed JSON, typed `Wire<…>` of client-node's models: where client-node
 * declares a `Date` (`metadata.creationTimestamp`, …), the type and the object hold the wire's string.
 *
 * @example
 * const factory = createKubeInformerFactory(kc, { namespace: 'default', logger: console });
 * const podInformer = factory.informerFor(pods);          // SharedInformer<Wire<V1Pod>>
 * factory.start();
 * await factory.waitForCacheSync({ timeoutMs: 60_000 });
 * console.log(podInformer.getStore().list().length);
 * await factory.close();
 */
export function createKubeInformerFactory(kubeConfig: KubeConfig, options: KubeInformerFactoryOptions = {}): KubeInformerFactory {
  const {
    transport: given,
    discoveryTimeoutMs,
    responseTimeoutMs,
    watchOpenTimeoutMs,
    maxWatchLineBytes,
    maxListBodyBytes,
    snapshots,
    wire,
    ...rest
  } = options;
  const factoryOptions = {
    ...rest,
    ...(snapshots && { snapshots: { ...snapshots, server: snapshots.server ?? serverIdentity(kubeConfig) } }),
  };
  const limits = resolveHttpLimits({
    responseTimeoutMs,
    watchOpenTimeoutMs,
    maxWatchLineBytes,
    maxListBodyBytes,
    scheduler: options.scheduler,
  }); // throws now
  checkDuration('discoveryTimeoutMs', discoveryTimeoutMs, DEFAULT_DISCOVERY_TIMEOUT_MS, { exclusive: true, infinite: true }); // now too
  const transport = given ?? createKubeTransport(kubeConfig);
  const source: ListerWatcherSource = (resource, scope) =>
    kubeConfigListerWatcher(kubeConfig, {
      resource,
      namespace: scope.namespace,
      labelSelector: scope.labelSelector,
      fieldSelector: scope.fieldSelector,
      transport,
      wire,
      ...limits,
    });
  const streamingLists = factoryOptions.streamingLists ?? streamingListsOf(transport);
  const factory = createInformerFactory(source, { ...factoryOptions, streamingLists });
  const closing = new AbortController();
  const discovery = createDiscovery(transport, { timeoutMs: discoveryTimeoutMs, signal: closing.signal, scheduler: options.scheduler });
  return {
    ...factory,
    transport,
    discovery,
    async informerForRef<T extends KubeObject = KubernetesObject>(
      ref: ResourceRef,
      informerOptions?: InformerForOptions<Wire<T>>,
    ): Promise<SharedInformer<Wire<T>>> {
      let resource: KubeResource<Wire<T>>;
      try {
        resource = await discovery.resolve<T>(ref);
      } catch (e) {
        if (closing.signal.aborted) throw new FactoryShutdownError(); // the abort `close()` made
        throw e;
      }
      return factory.informerFor(resource, informerOptions);
    },
    async close() {
      closing.abort();
      factory.shutdown();
      const saved = await factory.saveSnapshots().then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      if (!given) await transport.close();
      if (saved) throw saved.error;
    },
  };
}

/** Who a KubeConfig reads as, and where: its current cluster's URL and user, the snapshots' `server`. */
function serverIdentity(kubeConfig: KubeConfig): string {
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  const user = kubeConfig.getCurrentUser()?.name;
  return server === '' ? '' : `${server}${user ? ` as ${user}` : ''}`;
}

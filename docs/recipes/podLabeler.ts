/**
 * Recipe: a controller with the workqueue. Every pod of a namespace gets a label; an event handler
 * feeds the informer's keys to a rate-limited `WorkQueue`, `runController` reconciles each key from the cache and
 * retries failures with per-key backoff; `stop()` shuts it all down.
 *
 * Level-triggered, like a client-go controller: reconcile reads the current object from the cache
 * (never the event), so a patch's own MODIFIED event, a resync or a relist only re-checks the key.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';
import { splitMetaNamespaceKey, type SharedInformer, type Wire } from '@rxinformer/core';
import { enqueueKeys, runController, WorkQueue, type ControllerError, type ControllerHandle } from '@rxinformer/core/workqueue';

/** Options of `startPodLabeler`. */
export interface PodLabelerOptions {
  /** The namespace whose pods are labelled. Required. */
  namespace: string;
  /** The label to set. Default `example.com/seen`. */
  label?: string;
  /** Its value. Default `true`. */
  value?: string;
  /** Parallel reconciles. Default 2. */
  concurrency?: number;
  /** Per-key delay after the first failure, doubling up to 30 s. Default 50 ms. */
  retryBaseDelayMs?: number;
  /** Called with every failed reconcile (it is retried unless `dropped`). Default: none. */
  onError?: (error: ControllerError) => void;
}

/** A running pod labeler. */
export interface PodLabeler {
  /** The pod cache the controller reads. */
  readonly pods: SharedInformer<Wire<V1Pod>>;
  /** The controller loop: its `queue`, `metrics$` and `errors$`. */
  readonly controller: ControllerHandle;
  /** Stops the workers (waiting for reconciles in progress), then the informers and connections. */
  stop(): Promise<void>;
}

/**
 * Starts a controller that labels every pod of `options.namespace`.
 *
 * @example
 * const kc = new KubeConfig();
 * kc.loadFromDefault();
 * const labeler = startPodLabeler(kc, { namespace: 'default' });
 * process.once('SIGTERM', () => void labeler.stop());
 */
export function startPodLabeler(kubeConfig: KubeConfig, options: PodLabelerOptions): PodLabeler {
  const { namespace, label = 'example.com/seen', value = 'true', concurrency = 2, retryBaseDelayMs = 50 } = options;
  const factory = createKubeInformerFactory(kubeConfig, { namespace });
  const podInformer = factory.informerFor(pods);
  const api = kubeConfig.makeApiClient(CoreV1Api);

  // One entry per key however often it changes; failures come back after 50 ms, 100 ms, … 30 s,
  // and all retries together are held to 20/s (bursts of 50).
  const queue = new WorkQueue<string>({ baseDelayMs: retryBaseDelayMs, maxDelayMs: 30_000, qps: 20, burst: 50 });
  // Every object of the cache, then every change (adds, updates, deletes), names a key to look at.
  // A handler is first handed what the cache holds: a controller started late (a new leader) misses
  // nothing, where `events$` (no replay) would tell only of the changes from its subscription on.
  const enqueue = podInformer.addEventHandler(enqueueKeys(queue));
  factory.start();

  const controller = runController({
    queue,
    // No reconcile before the cache holds the whole namespace; after a minute, fail naming why.
    synced: factory.waitForCacheSync({ timeoutMs: 60_000 }),
    concurrency,
    onError: options.onError,
    reconcile: async (key) => {
      const pod = podInformer.getStore().get(key);
      if (pod === undefined) return; // deleted since it was queued: nothing to clean up here
      if (pod.metadata?.labels?.[label] === value) return; // already converged
      const { name } = splitMetaNamespaceKey(key);
      // A throw (a 5xx, a 409, a network error) requeues the key with backoff: runController calls
      // queue.addRateLimited(key); a success calls queue.forget(key), resetting its backoff.
      await api.patchNamespacedPod(
        { name, namespace, body: { metadata: { labels: { [label]: value } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
  });

  return {
    pods: podInformer,
    controller,
    async stop() {
      await controller.stop(); // shuts the queue down, waits for reconciles in progress
      enqueue.remove();
      await factory.close(); // stops the informers, closes the factory's connections
    },
  };
}

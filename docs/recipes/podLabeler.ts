/**
 * Recipe: a controller. Every pod of a namespace gets a label; `controllerFor` feeds the informer's
 * keys to a rate-limited work queue, reconciles each key from the cache and retries failures with
 * per-key backoff; `stop()` shuts it all down.
 *
 * Level-triggered, like a client-go controller: reconcile reads the current object from the cache
 * (never the event), so a patch's own MODIFIED event, a resync or a relist only re-checks the key.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { createKubeInformerFactory, pods } from '@rxinformer/client-node';
import { controllerFor, type Controller, type ControllerError, type RunningController } from '@rxinformer/controller';
import { type SharedInformer, type Wire } from '@rxinformer/core';

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
  /** The controller: its `reconcileStats()` and `reconciles$`. */
  readonly controller: Controller;
  /** Its running term: its `queue` and `errors$`. */
  readonly run: RunningController;
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
  const api = kubeConfig.makeApiClient(CoreV1Api);

  const controller = controllerFor(factory, pods, {
    name: 'pod-labeler',
    concurrency,
    // One entry per key however often it changes; failures come back after 50 ms, 100 ms, … 30 s,
    // and all retries together are held to 20/s (bursts of 50).
    queue: { baseDelayMs: retryBaseDelayMs, maxDelayMs: 30_000, qps: 20, burst: 50 },
    onError: options.onError,
  }).reconcile(async ({ object: pod, name }) => {
    if (pod === undefined) return; // deleted since it was queued: nothing to clean up here
    if (pod.metadata?.labels?.[label] === value) return; // already converged
    // A throw (a 5xx, a 409, a network error) requeues the key with backoff; a success forgets
    // the key's failures, resetting its backoff. A failure is logged (console) once per minute per key.
    await api.patchNamespacedPod(
      { name, namespace, body: { metadata: { labels: { [label]: value } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });
  // The handlers are first handed what the cache holds: a controller started late (a new leader)
  // misses nothing; no reconcile runs before every handler has seen the whole namespace.
  const run = controller.start();

  return {
    pods: factory.informerFor(pods),
    controller,
    run,
    async stop() {
      await run.stop(); // aborts and waits for the reconciles in progress, removes the handlers
      await factory.close(); // stops the informers, closes the factory's connections
    },
  };
}

/**
 * Workqueue metrics of a controller that runs in terms (one work queue per leadership term, such as
 * a `@rxinformer/controller` builder controller): each term's queue is registered under the
 * controller's name when it starts and removed when it stops.
 */
import { isObservable, type Observable } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { once } from './collected.ts';
import { workqueueMetrics, type MetricsRegistration, type ObservedQueue, type WorkqueueMetricsOptions } from './workqueueMetrics.ts';

/** What the metrics read of a controller: its name and the queue of its running term. */
export interface ObservedController<K = string> {
  /** The `name` label of its series. */
  readonly name: string;
  /** The queue of the running term, `undefined` while stopped; the current value at once. */
  readonly queue$: Observable<ObservedQueue<K> | undefined>;
}

/**
 * Registers client-go's workqueue metrics (`workqueueMetrics`) for each term of `controller`,
 * under its name: from the start of a term to its stop, so no series outlives the queue it reads
 * and a new leader's term reports its own adds. `unregister()` stops following the controller and
 * removes the current series. Throws `MetricConflictError` as `workqueueMetrics` does when the
 * running term's queue cannot be registered; a later term that cannot is left unregistered.
 *
 * @example
 * const ctl = controllerFor(factory, configMaps, { name: 'replicator' }).reconcile(reconcile);
 * const metrics = controllerWorkqueueMetrics(ctl);
 * whileLeading(election, () => ctl.start()).subscribe();
 */
export function controllerWorkqueueMetrics<K>(
  controller: ObservedController<K>,
  options: Omit<WorkqueueMetricsOptions, 'name'> = {},
): MetricsRegistration {
  if (controller === null || typeof controller !== 'object' || typeof controller.name !== 'string' || !isObservable(controller.queue$))
    throw new InvalidOptionsError('controllerWorkqueueMetrics needs a controller with a name and a queue$');
  let current: MetricsRegistration | undefined;
  let failed: { error: unknown } | undefined;
  const drop = () => {
    current?.unregister();
    current = undefined;
  };
  const sub = controller.queue$.subscribe({
    next: (queue) => {
      drop();
      if (queue === undefined) return;
      try {
        current = workqueueMetrics(queue, { ...options, name: controller.name });
      } catch (error) {
        failed = { error };
      }
    },
    error: drop,
    complete: drop,
  });
  if (failed !== undefined) {
    sub.unsubscribe();
    throw failed.error;
  }
  return {
    unregister: once(() => {
      sub.unsubscribe();
      drop();
    }),
  };
}

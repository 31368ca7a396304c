/**
 * client-go's workqueue metrics, under its names and with its meanings (label `name`), fed by a
 * `WorkQueue`'s `events$` and counters. Nothing is computed for a queue nobody registered.
 */
import { Histogram, register as globalRegistry, type Registry } from 'prom-client';
import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { type WorkQueueEvent, type WorkQueueMetrics } from '@rxinformer/core/workqueue';
import { collectedCounter, collectedGauge, once, rowsOf } from './collected.ts';
import { addSource, metricSet } from './metricSet.ts';

/** The names of the workqueue metrics (client-go's). */
export const WORKQUEUE_METRICS = [
  'workqueue_depth',
  'workqueue_adds_total',
  'workqueue_queue_duration_seconds',
  'workqueue_work_duration_seconds',
  'workqueue_unfinished_work_seconds',
  'workqueue_longest_running_processor_seconds',
  'workqueue_retries_total',
] as const;

/** Histogram buckets of the durations: 10 ns to 10 s, a decade apart (client-go's). */
const DURATION_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/** What the metrics read of a queue: a `WorkQueue` has both. */
export interface ObservedQueue<K> {
  /** Each step of each key. */
  readonly events$: Observable<WorkQueueEvent<K>>;
  /** Depth and counters now. */
  metrics(): WorkQueueMetrics;
}

/** Options of `workqueueMetrics`. */
export interface WorkqueueMetricsOptions {
  /** The `name` label of the queue's series, e.g. the controller's name. Required, unique per registry. */
  name: string;
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
  /** The clock of the durations: the queue's scheduler. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** Registered metrics of one source. */
export interface MetricsRegistration {
  /** Stops feeding them and removes the source's series. Idempotent. */
  unregister(): void;
}

/** What one queue's series read at scrape time. */
interface QueueSource {
  metrics(): WorkQueueMetrics;
  /** Seconds of work in progress, summed, and the longest. */
  unfinished(): { total: number; longest: number };
}

type WorkqueueFamilies = ReturnType<typeof makeFamilies>;

function makeFamilies(registry: Registry, sources: Map<string, QueueSource>) {
  const registers = [registry];
  const labelNames = ['name'];
  const config = (name: string, help: string) => ({ name, help, labelNames, registers });
  /** One row per queue: its name and `read` of it now. */
  const rows = (read: (s: QueueSource) => number) => rowsOf(sources, 'name', read);
  const histogram = (name: string, help: string) => new Histogram({ ...config(name, help), labelNames, buckets: DURATION_BUCKETS });
  return {
    depth: collectedGauge(
      config('workqueue_depth', 'Keys waiting in the workqueue to be handed to a worker.'),
      rows((s) => s.metrics().depth),
    ),
    adds: collectedCounter(
      config('workqueue_adds_total', 'Adds that queued a key (adds of a key already waiting are not counted).'),
      rows((s) => s.metrics().adds),
    ),
    queueDuration: histogram(
      'workqueue_queue_duration_seconds',
      'Seconds a key waited in the workqueue, from its add to a worker taking it.',
    ),
    workDuration: histogram('workqueue_work_duration_seconds', 'Seconds a worker spent on a key, from taking it to done.'),
    unfinished: collectedGauge(
      config(
        'workqueue_unfinished_work_seconds',
        'Seconds of work in progress not yet in workqueue_work_duration_seconds, summed over the keys being worked on; its rate of increase is the number of stuck workers.',
      ),
      rows((s) => s.unfinished().total),
    ),
    longest: collectedGauge(
      config('workqueue_longest_running_processor_seconds', 'Seconds the longest-running worker has been on its key.'),
      rows((s) => s.unfinished().longest),
    ),
    retries: collectedCounter(
      config('workqueue_retries_total', 'Rate-limited re-adds (addRateLimited) of the workqueue.'),
      rows((s) => s.metrics().retries),
    ),
  };
}

/**
 * Registers client-go's workqueue metrics for `queue` under `name`: depth, adds and retries (read
 * at scrape time), the time keys wait (`added` → `taken`) and are worked on (`taken` → `done`) as
 * histograms, and the work in progress (summed and longest) at scrape time. The families are made
 * once per registry and shared by every queue registered in it.
 *
 * Throws `MetricConflictError` when the registry holds a metric of one of these names that this
 * package did not make, or when `name` is already registered there (unregister the first).
 *
 * @example
 * const queue = new WorkQueue<string>();
 * const metrics = workqueueMetrics(queue, { name: 'pod-labeler' });
 * // … on shutdown
 * metrics.unregister();
 */
export function workqueueMetrics<K>(queue: ObservedQueue<K>, options: WorkqueueMetricsOptions): MetricsRegistration {
  if (queue === null || typeof queue !== 'object' || typeof queue.metrics !== 'function' || !queue.events$)
    throw new InvalidOptionsError('workqueueMetrics needs a WorkQueue');
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('workqueueMetrics needs options with a name');
  const registry = options.registry ?? globalRegistry;
  const scheduler = options.scheduler ?? asyncScheduler;
  const set = metricSet<WorkqueueFamilies, QueueSource>(
    registry,
    'workqueue',
    (sources) => makeFamilies(registry, sources),
    WORKQUEUE_METRICS,
  );
  const addedAt = new Map<K, number>();
  const startedAt = new Map<K, number>();
  const source: QueueSource = {
    metrics: () => queue.metrics(),
    unfinished: () => {
      const now = scheduler.now();
      let total = 0;
      let longest = 0;
      for (const at of startedAt.values()) {
        const s = (now - at) / 1000;
        total += s;
        if (s > longest) longest = s;
      }
      return { total, longest };
    },
  };
  const remove = addSource(set, options.name, 'name', 'workqueue_depth', source);
  const labels = { name: options.name };
  const queueDuration = set.metrics.queueDuration.labels(labels);
  const workDuration = set.metrics.workDuration.labels(labels);
  const sub = queue.events$.subscribe((e) => {
    const now = scheduler.now();
    if (e.type === 'added') {
      if (!addedAt.has(e.key)) addedAt.set(e.key, now);
    } else if (e.type === 'taken') {
      const at = addedAt.get(e.key);
      if (at !== undefined) {
        queueDuration.observe((now - at) / 1000);
        addedAt.delete(e.key);
      }
      startedAt.set(e.key, now);
    } else if (e.type === 'done') {
      const at = startedAt.get(e.key);
      if (at !== undefined) {
        workDuration.observe((now - at) / 1000);
        startedAt.delete(e.key);
      }
    }
  });
  return {
    unregister: once(() => {
      sub.unsubscribe();
      remove();
      set.metrics.queueDuration.remove(labels);
      set.metrics.workDuration.remove(labels);
    }),
  };
}

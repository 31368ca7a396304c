/**
 * controller-runtime's reconcile metrics of a `@rxinformer/controller` controller, under their
 * names and meanings (label `controller`), and Kubernetes 1.36's staleness ones: read from the
 * controller's counts at scrape time, the durations from its stream of reconciles.
 */
import { Histogram, register as globalRegistry, type Registry } from 'prom-client';
import { isObservable, type Observable } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { collectedCounter, collectedGauge, once, type Rows } from './collected.ts';
import { addSource, metricSet } from './metricSet.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** The names of the metrics (controller-runtime's, and Kubernetes 1.36's staleness ones). */
export const CONTROLLER_RUNTIME_METRICS = [
  'controller_runtime_reconcile_total',
  'controller_runtime_reconcile_errors_total',
  'controller_runtime_terminal_reconcile_errors_total',
  'controller_runtime_reconcile_panics_total',
  'controller_runtime_reconcile_timeouts_total',
  'controller_runtime_reconcile_time_seconds',
  'controller_runtime_active_workers',
  'controller_runtime_max_concurrent_reconciles',
  'stale_sync_skips_total',
  'store_resource_version',
] as const;

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`, in seconds. */
const TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5,
  5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The results of `controller_runtime_reconcile_total`. */
const RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;

/** The counts the metrics read (a controller's `reconcileStats()`). */
export interface ReconcileCounts {
  /** Reconciles by result: `controller_runtime_reconcile_total{result}`. */
  readonly total: Readonly<Record<(typeof RESULTS)[number], number>>;
  /** `controller_runtime_reconcile_errors_total`. */
  readonly errors: number;
  /** `controller_runtime_terminal_reconcile_errors_total`. */
  readonly terminalErrors: number;
  /** `controller_runtime_reconcile_panics_total`. */
  readonly panics: number;
  /** `controller_runtime_reconcile_timeouts_total`. */
  readonly timeouts: number;
  /** `controller_runtime_active_workers`. */
  readonly activeWorkers: number;
  /** `controller_runtime_max_concurrent_reconciles`. */
  readonly maxConcurrentReconciles: number;
  /** `stale_sync_skips_total`. */
  readonly staleSyncSkips: number;
}

/** One source's informer, as `store_resource_version` reads it. */
export interface ObservedSource {
  /** Its resource's API group: the `group` label. */
  readonly group: string;
  /** The `version` label. */
  readonly version: string;
  /** The `resource` label. */
  readonly resource: string;
  /** The informer: its cache's resourceVersion. */
  readonly informer: {
    /** The resourceVersion of its last list, event or bookmark. */
    readonly lastSyncResourceVersion: string | undefined;
  };
}

/** One reconcile as it ended, as the histogram reads it. */
export interface ObservedReconcile {
  /** How long it ran, in seconds. */
  readonly seconds: number;
}

/** What the metrics read of a controller (`@rxinformer/controller`'s `Controller` has it all). */
export interface ObservedReconciler {
  /** The `controller` label of its series. */
  readonly name: string;
  /** Its counts now, from its creation on. */
  reconcileStats(): ReconcileCounts;
  /** Each reconcile as it ends: its duration, for the histogram. */
  readonly reconciles$: Observable<ObservedReconcile>;
  /** Its sources' informers, by resource: their caches' resourceVersions (`store_resource_version`). */
  sourceInformers(): readonly ObservedSource[];
}

/** Options of `controllerRuntimeMetrics`. */
export interface ControllerRuntimeMetricsOptions {
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
}

type Source = ObservedReconciler;

/** A decimal resourceVersion as a number (kube-apiserver's are etcd revisions); undefined for an opaque one. */
function versionNumber(rv: string | undefined): number | undefined {
  return rv !== undefined && /^[0-9]{1,15}$/.test(rv) ? Number(rv) : undefined;
}

function makeFamilies(registry: Registry, sources: Map<string, Source>) {
  const registers = [registry];
  const config = (name: string, help: string, labelNames: string[] = ['controller']) => ({ name, help, labelNames, registers });
  /** One row per controller: its name and `read` of its counts now. */
  const rows = (read: (c: ReconcileCounts) => number) =>
    function* (): Rows {
      for (const [controller, s] of sources) yield [{ controller }, read(s.reconcileStats())];
    };
  const [total, errors, terminal, panics, timeouts, time, active, max, skips, rv] = CONTROLLER_RUNTIME_METRICS;
  return {
    total: collectedCounter(
      config(total, 'Total number of reconciliations per controller, by result.', ['controller', 'result']),
      function* () {
        for (const [controller, s] of sources) {
          const counts = s.reconcileStats().total;
          for (const result of RESULTS) yield [{ controller, result }, counts[result]];
        }
      },
    ),
    errors: collectedCounter(
      config(errors, 'Total number of reconciliation errors per controller.'),
      rows((c) => c.errors),
    ),
    terminal: collectedCounter(
      config(terminal, 'Total number of terminal reconciliation errors per controller.'),
      rows((c) => c.terminalErrors),
    ),
    panics: collectedCounter(
      config(panics, 'Total number of reconciliation panics per controller.'),
      rows((c) => c.panics),
    ),
    timeouts: collectedCounter(
      config(timeouts, 'Total number of reconciliation timeouts per controller.'),
      rows((c) => c.timeouts),
    ),
    time: new Histogram({ ...config(time, 'Length of time per reconciliation per controller.'), buckets: TIME_BUCKETS }),
    active: collectedGauge(
      config(active, 'Number of currently used workers per controller.'),
      rows((c) => c.activeWorkers),
    ),
    max: collectedGauge(
      config(max, 'Maximum number of concurrent reconciles per controller.'),
      rows((c) => c.maxConcurrentReconciles),
    ),
    skips: collectedCounter(
      config(skips, "Reconciles put off because the controller's caches did not show its own writes yet."),
      rows((c) => c.staleSyncSkips),
    ),
    rv: collectedGauge(
      config(rv, "The resourceVersion of each of a controller's informers' caches (decimal ones only).", [
        'controller',
        'group',
        'version',
        'resource',
      ]),
      function* () {
        for (const [controller, s] of sources)
          for (const { group, version, resource, informer } of s.sourceInformers())
            yield [{ controller, group, version, resource }, versionNumber(informer.lastSyncResourceVersion)];
      },
    ),
  };
}

/**
 * Registers controller-runtime's reconcile metrics of `controller` under its name (label
 * `controller`): `controller_runtime_reconcile_total{result}` (`success`, `error`, `requeue`,
 * `requeue_after`), `_errors_total`, `_terminal_reconcile_errors_total`, `_panics_total`,
 * `_timeouts_total`, `_time_seconds` (a histogram, controller-runtime's buckets), `_active_workers`
 * and `_max_concurrent_reconciles`; and Kubernetes 1.36's `stale_sync_skips_total` (reconciles put
 * off until the caches showed the controller's own writes) and `store_resource_version{group,
 * version, resource}` of each source's cache. Counts are read at each scrape (they span leadership
 * terms); durations come from `reconciles$`. Throws `MetricConflictError` when the registry holds
 * a metric of one of these names that this package did not make, or the name is registered there.
 *
 * @example
 * const ctl = controllerFor(factory, configMaps, { name: 'replicator' }).reconcile(reconcile);
 * const metrics = controllerRuntimeMetrics(ctl);
 * controllerWorkqueueMetrics(ctl);
 */
export function controllerRuntimeMetrics(
  controller: ObservedReconciler,
  options: ControllerRuntimeMetricsOptions = {},
): MetricsRegistration {
  if (
    controller === null ||
    typeof controller !== 'object' ||
    typeof controller.reconcileStats !== 'function' ||
    typeof controller.sourceInformers !== 'function' ||
    !isObservable(controller.reconciles$)
  )
    throw new InvalidOptionsError('controllerRuntimeMetrics needs a controller with reconcileStats(), sourceInformers() and reconciles$');
  const registry = options?.registry ?? globalRegistry;
  const set = metricSet<ReturnType<typeof makeFamilies>, Source>(
    registry,
    'controllerRuntime',
    (sources) => makeFamilies(registry, sources),
    CONTROLLER_RUNTIME_METRICS,
  );
  const remove = addSource<Source>(set, controller.name, 'controller', CONTROLLER_RUNTIME_METRICS[0], controller);
  const labels = { controller: controller.name };
  const time = set.metrics.time.labels(labels);
  const sub = controller.reconciles$.subscribe((e) => time.observe(e.seconds));
  return {
    unregister: once(() => {
      sub.unsubscribe();
      remove();
      set.metrics.time.remove(labels);
    }),
  };
}

/**
 * Read-your-writes metrics of a `@rxinformer/controller` builder controller (label `name`): how
 * often a key's reconcile was held until the caches showed its own writes, how those holds ended,
 * and how long they lasted. Read from the controller's counts at scrape time.
 */
import { register as globalRegistry, type Registry } from 'prom-client';
import { InvalidOptionsError } from '@rxinformer/core';
import { collectedCounter, collectedGauge, once, rowsOf } from './collected.ts';
import { addSource, metricSet } from './metricSet.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** The names of the read-your-writes metrics. */
export const READ_YOUR_WRITES_METRICS = [
  'controller_read_your_writes_holds_total',
  'controller_read_your_writes_released_total',
  'controller_read_your_writes_timeouts_total',
  'controller_read_your_writes_held_seconds_total',
  'controller_read_your_writes_pending_keys',
] as const;

/** The counts the metrics read (a builder controller's `readYourWritesStats()`). */
export interface ReadYourWritesCounts {
  /** Reconciles put off. */
  readonly holds: number;
  /** Holds ended by the caches showing the writes. */
  readonly released: number;
  /** Keys whose writes were not shown within the timeout. */
  readonly timeouts: number;
  /** Time reconciles were held, in ms. */
  readonly heldMs: number;
  /** Keys with writes not yet shown. */
  readonly pending: number;
}

/** What the metrics read of a controller: its name and its counts now. */
export interface ObservedReadYourWrites {
  /** The `name` label of its series. */
  readonly name: string;
  /** Its counts now, from its creation on. */
  readYourWritesStats(): ReadYourWritesCounts;
}

/** Options of `controllerReadYourWritesMetrics`. */
export interface ReadYourWritesMetricsOptions {
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
}

type Source = () => ReadYourWritesCounts;

function makeFamilies(registry: Registry, sources: Map<string, Source>) {
  const config = (name: string, help: string) => ({ name, help, labelNames: ['name'], registers: [registry] });
  const rows = (read: (c: ReadYourWritesCounts) => number) => rowsOf(sources, 'name', (s) => read(s()));
  const [holds, released, timeouts, heldSeconds, pending] = READ_YOUR_WRITES_METRICS;
  return [
    collectedCounter(
      config(holds, "Reconciles put off until the caches showed the key's own writes."),
      rows((c) => c.holds),
    ),
    collectedCounter(
      config(released, 'Holds ended by the caches showing the writes.'),
      rows((c) => c.released),
    ),
    collectedCounter(
      config(timeouts, 'Keys whose writes the caches did not show within the timeout; reconciled anyway.'),
      rows((c) => c.timeouts),
    ),
    collectedCounter(
      config(heldSeconds, 'Seconds reconciles were held, summed.'),
      rows((c) => c.heldMs / 1000),
    ),
    collectedGauge(
      config(pending, 'Keys whose writes the caches do not show yet.'),
      rows((c) => c.pending),
    ),
  ];
}

/**
 * Registers the read-your-writes metrics of `controller` under its name, read from
 * `readYourWritesStats()` at each scrape (they count across leadership terms). Throws
 * `MetricConflictError` when the registry holds a metric of one of these names that this package
 * did not make, or when the name is already registered there.
 *
 * @example
 * const ctl = controllerFor(factory, configMaps, { name: 'replicator', client }).reconcile(reconcile);
 * controllerReadYourWritesMetrics(ctl);
 */
export function controllerReadYourWritesMetrics(
  controller: ObservedReadYourWrites,
  options: ReadYourWritesMetricsOptions = {},
): MetricsRegistration {
  if (controller === null || typeof controller !== 'object' || typeof controller.readYourWritesStats !== 'function')
    throw new InvalidOptionsError('controllerReadYourWritesMetrics needs a controller with readYourWritesStats()');
  const registry = options?.registry ?? globalRegistry;
  const set = metricSet<unknown, Source>(
    registry,
    'readYourWrites',
    (sources) => makeFamilies(registry, sources),
    READ_YOUR_WRITES_METRICS,
  );
  const remove = addSource<Source>(set, controller.name, 'name', READ_YOUR_WRITES_METRICS[0], () => controller.readYourWritesStats());
  return { unregister: once(remove) };
}

/**
 * Informer metrics (label `informer`, and `cluster` for a cluster's informer of a multi-cluster view): lists, watches, relists, failures by reason, the age of the
 * last synced resource version, objects cached, time to first sync — read from the informer's
 * `status$` and at scrape time, never per event.
 */
import { register as globalRegistry, type Registry } from 'prom-client';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError, type ReflectorPhase } from '@rxinformer/core';
import { HANDLER_METRIC_NAMES, handlerSeries, type HandlerSource, type ObservedHandler } from './handlerMetrics.ts';
import { collectedCounter, collectedGauge, once, type Rows } from './collected.ts';
import { InformerTracker, type ObservedInformer } from './informerTracker.ts';
import { addSource, metricSet } from './metricSet.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** The names of the informer metrics. */
export const INFORMER_METRICS = [
  'rxinformer_informer_synced',
  'rxinformer_informer_objects',
  'rxinformer_informer_phase',
  'rxinformer_informer_lists_total',
  'rxinformer_informer_watches_total',
  'rxinformer_informer_relists_total',
  'rxinformer_informer_errors_total',
  'rxinformer_informer_last_sync_resource_version_age_seconds',
  'rxinformer_informer_initial_sync_seconds',
] as const;

const PHASES: readonly ReflectorPhase[] = ['listing', 'connecting', 'watching', 'backingOff', 'stopped'];

/** Options of `informerMetrics`. */
export interface InformerMetricsOptions {
  /** The `informer` label, e.g. `v1/pods`. Required, unique per registry (with `cluster`). */
  name: string;
  /**
   * The `cluster` label: the informer is this cluster's (see `multiClusterInformerMetrics`).
   * Default: none (the series have no `cluster` label).
   */
  cluster?: string;
  /** Handler registrations whose buffer depth, lag, deliveries and failures to report (more with `addHandler`). Default: none. */
  handlers?: readonly ObservedHandler[];
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
  /** The informer's clock (its `scheduler`). Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The registration of an informer's metrics. */
export interface InformerMetricsRegistration extends MetricsRegistration {
  /** Reports one more handler of this informer (removed handlers leave by themselves). */
  addHandler(handler: ObservedHandler): void;
}

interface InformerSource {
  /** Its labels: `informer`, and `cluster` when it has one. */
  readonly labels: Readonly<Record<string, string>>;
  readonly tracker: InformerTracker;
  readonly handlers: HandlerSource;
}

function makeFamilies(registry: Registry, sources: Map<string, InformerSource>) {
  const registers = [registry];
  const config = (name: string, help: string, labelNames = ['informer', 'cluster']) => ({ name, help, labelNames, registers });
  /** One row per informer: its labels and `read` of its tracker now. */
  const rows = (read: (t: InformerTracker) => number | undefined) =>
    function* (): Rows {
      for (const s of sources.values()) yield [s.labels, read(s.tracker)];
    };
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
  return {
    synced: collectedGauge(
      config('rxinformer_informer_synced', '1 once the informer has applied its first complete list, else 0.'),
      rows((t) => (t.informer.hasSynced() ? 1 : 0)),
    ),
    objects: collectedGauge(
      config('rxinformer_informer_objects', "Objects in the informer's cache."),
      rows((t) => t.informer.getStore().size),
    ),
    phase: collectedGauge(
      config(
        'rxinformer_informer_phase',
        "The reflector's phase: 1 for the current one (listing, connecting, watching, backingOff, stopped), 0 for the others.",
        ['informer', 'cluster', 'phase'],
      ),
      function* () {
        for (const s of sources.values()) {
          const now = s.tracker.health().phase;
          for (const phase of PHASES) yield [{ ...s.labels, phase }, phase === now ? 1 : 0];
        }
      },
    ),
    lists: collectedCounter(
      config('rxinformer_informer_lists_total', 'Lists started: the first and every relist.'),
      rows((t) => t.lists),
    ),
    watches: collectedCounter(
      config(
        'rxinformer_informer_watches_total',
        'Watch sessions started, after a list or a failure (a re-watch after the server ends a watch cleanly continues its session).',
      ),
      rows((t) => t.watches),
    ),
    relists: collectedCounter(
      config('rxinformer_informer_relists_total', 'Lists after the first (410 Gone, too many empty watches, a restart).'),
      rows((t) => t.relists),
    ),
    errors: collectedCounter(
      config(
        'rxinformer_informer_errors_total',
        'Failures of lists and watches and objects skipped, by reason (Expired, WatchIdle, UnexpectedType, NetworkError reasons…).',
        ['informer', 'cluster', 'reason'],
      ),
      function* () {
        for (const s of sources.values()) for (const [reason, n] of s.tracker.errors) yield [{ ...s.labels, reason }, n];
      },
    ),
    age: collectedGauge(
      config(
        'rxinformer_informer_last_sync_resource_version_age_seconds',
        "Seconds since the informer's resource version last moved (a list, an event or a bookmark), at the resolution of the scrapes.",
      ),
      rows((t) => seconds(t.lastSyncAgeMs())),
    ),
    initialSync: collectedGauge(
      config('rxinformer_informer_initial_sync_seconds', 'Seconds from the start of the first list to the first sync.'),
      rows((t) => seconds(t.initialSyncMs)),
    ),
    ...handlerSeries(registers, sources),
  };
}

/**
 * Registers the metrics of `informer` under `name`. Register before `start()` for
 * `rxinformer_informer_initial_sync_seconds`. Per-handler series (buffer depth, lag, deliveries,
 * failures) for the handlers given; they are read at scrape time, so a busy watch pays nothing.
 * Throws `MetricConflictError` on a foreign metric of one of these names or a `name` already
 * registered in the registry.
 *
 * @example
 * const handler = podInformer.addEventHandler({ onAdd: (p) => queue.add(key(p)) }, { name: 'enqueue' });
 * informerMetrics(podInformer, { name: 'v1/pods', handlers: [handler] });
 */
export function informerMetrics(informer: ObservedInformer, options: InformerMetricsOptions): InformerMetricsRegistration {
  InformerTracker.check(informer, 'informerMetrics');
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('informerMetrics needs options with a name');
  const registry = options.registry ?? globalRegistry;
  const set = metricSet<ReturnType<typeof makeFamilies>, InformerSource>(
    registry,
    'informer',
    (sources) => makeFamilies(registry, sources),
    [...INFORMER_METRICS, ...HANDLER_METRIC_NAMES],
  );
  const { name, cluster } = options;
  if (cluster !== undefined && (typeof cluster !== 'string' || cluster === ''))
    throw new InvalidOptionsError(`informerMetrics: cluster must be a non-empty string, got ${String(cluster)}`);
  const tracker = new InformerTracker(informer, options.scheduler ?? asyncScheduler);
  const labels: Record<string, string> = cluster === undefined ? { informer: name } : { informer: name, cluster };
  const source: InformerSource = { labels, tracker, handlers: new Set(options.handlers ?? []) };
  let remove: () => void;
  try {
    // One source per informer and cluster; the handler series label theirs with this key.
    remove = addSource(set, cluster === undefined ? name : `${name}@${cluster}`, 'informer', 'rxinformer_informer_synced', source);
  } catch (e) {
    tracker.close();
    throw e;
  }
  let registered = true;
  return {
    addHandler: (h) => {
      if (registered) source.handlers.add(h);
    },
    unregister: once(() => {
      registered = false;
      tracker.close();
      remove();
    }),
  };
}

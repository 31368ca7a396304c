/**
 * A dashboard hub's figures (`@rxinformer/hub`'s `hub.metrics()`) as Prometheus metrics, read at
 * scrape time: one series per hub replica (`hub` label), so each replica behind a Service reports
 * its own clients, subscriptions, API server watches, bytes, drops and authorization decisions.
 */
import { register as globalRegistry, type Counter, type Gauge, type Registry } from 'prom-client';
import { InvalidOptionsError } from '@rxinformer/core';
import { collectedCounter, collectedGauge, once, type Rows } from './collected.ts';
import { addSource, metricSet } from './metricSet.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** The names of the hub metrics. */
export const HUB_METRICS = [
  'rxinformer_hub_clients',
  'rxinformer_hub_subscriptions',
  'rxinformer_hub_informers',
  'rxinformer_hub_sent_bytes_total',
  'rxinformer_hub_sent_messages_total',
  'rxinformer_hub_events_coalesced_total',
  'rxinformer_hub_resyncs_total',
  'rxinformer_hub_decisions_total',
  'rxinformer_hub_upgrades_refused_total',
  'rxinformer_hub_connections_closed_total',
] as const;

/** What the metrics read of a hub: its figures now (`@rxinformer/hub`'s `Hub` has this shape). */
export interface ObservedHub {
  /** The replica's figures now. */
  metrics(): HubFigures;
}

/** A hub replica's figures as `hubMetrics` reads them (`@rxinformer/hub`'s `HubMetrics`). */
export interface HubFigures {
  /** WebSocket connections open. */
  readonly clients: number;
  /** Streams open. */
  readonly subscriptions: number;
  /** Shared informers held (API server watches). */
  readonly informers: number;
  /** Bytes sent. */
  readonly bytesSent: number;
  /** Messages sent. */
  readonly messagesSent: number;
  /** Watch events coalesced for slow clients. */
  readonly eventsCoalesced: number;
  /** Streams ended with 410 for reading too slowly. */
  readonly resyncs: number;
  /** Authorization decisions by outcome, fresh or cached. */
  readonly decisions: {
    /** Allowed. */
    readonly allowed: HubDecisionCounts;
    /** Denied. */
    readonly denied: HubDecisionCounts;
    /** The authorizer failed. */
    readonly error: number;
  };
  /** Upgrades refused, by why. */
  readonly upgradesRefused: Readonly<Record<string, number>>;
  /** Connections closed, by why. */
  readonly connectionsClosed: Readonly<Record<string, number>>;
}

/** Decisions of one outcome. */
export interface HubDecisionCounts {
  /** Decided by a fresh review. */
  readonly fresh: number;
  /** Answered from the authorizer's cache. */
  readonly cached: number;
}

/** Options of `hubMetrics`. */
export interface HubMetricsOptions {
  /** The `hub` label: the replica's name (a pod name). Required, unique per registry. */
  name: string;
  /** Where the metrics are registered. Default: prom-client's global `register`. */
  registry?: Registry;
}

/**
 * Registers a hub replica's metrics under `hub="<name>"`, read from `hub.metrics()` at each scrape:
 * gauges `rxinformer_hub_clients`, `_subscriptions`, `_informers` (API server watches); counters
 * `_sent_bytes_total`, `_sent_messages_total`, `_events_coalesced_total`, `_resyncs_total`,
 * `_decisions_total{outcome,source}`, `_upgrades_refused_total{why}`, `_connections_closed_total{why}`.
 *
 * @example
 * const hub = createHub({ clusters: { default: factory }, authenticator, authorizer });
 * hubMetrics(hub, { name: process.env.POD_NAME ?? 'hub' });
 *
 * Caveat: every scrape calls `hub.metrics()` once per registered hub; nothing is counted between scrapes.
 */
export function hubMetrics(hub: ObservedHub, options: HubMetricsOptions): MetricsRegistration {
  if (hub === null || typeof hub !== 'object' || typeof hub.metrics !== 'function')
    throw new InvalidOptionsError('hubMetrics needs a hub (anything with metrics())');
  if (options === null || typeof options !== 'object') throw new InvalidOptionsError('hubMetrics needs options with a name');
  const registry = options.registry ?? globalRegistry;
  const set = metricSet<Record<string, Gauge | Counter>, ObservedHub>(
    registry,
    'hub',
    (sources) => makeMetrics(registry, sources),
    HUB_METRICS,
  );
  return { unregister: once(addSource(set, options.name, 'hub', 'rxinformer_hub_clients', hub)) };
}

/** The families, each reading every hub's figures at a scrape. */
function makeMetrics(registry: Registry, sources: ReadonlyMap<string, ObservedHub>): Record<string, Gauge | Counter> {
  const rows = (read: (f: HubFigures) => Iterable<readonly [Record<string, string>, number]>) =>
    function* (): Rows {
      for (const [hub, source] of sources) for (const [labels, value] of read(source.metrics())) yield [{ hub, ...labels }, value];
    };
  const one = (read: (f: HubFigures) => number) => rows((f) => [[{}, read(f)]]);
  const byWhy = (read: (f: HubFigures) => Readonly<Record<string, number>>) =>
    rows((f) => Object.entries(read(f)).map(([why, n]) => [{ why }, n] as const));
  const config = (name: string, help: string, labelNames: string[] = []) => ({
    name,
    help,
    labelNames: ['hub', ...labelNames],
    registers: [registry],
  });
  return {
    clients: collectedGauge(
      config('rxinformer_hub_clients', 'WebSocket connections open on this hub replica.'),
      one((f) => f.clients),
    ),
    subscriptions: collectedGauge(
      config('rxinformer_hub_subscriptions', 'Streams (lists and watches) open on this hub replica.'),
      one((f) => f.subscriptions),
    ),
    informers: collectedGauge(
      config('rxinformer_hub_informers', 'Shared informers held: one list and watch on an API server each.'),
      one((f) => f.informers),
    ),
    bytes: collectedCounter(
      config('rxinformer_hub_sent_bytes_total', 'Bytes sent to clients.'),
      one((f) => f.bytesSent),
    ),
    messages: collectedCounter(
      config('rxinformer_hub_sent_messages_total', 'Messages sent to clients.'),
      one((f) => f.messagesSent),
    ),
    coalesced: collectedCounter(
      config('rxinformer_hub_events_coalesced_total', 'Watch events left out for slow clients (a later version sent instead).'),
      one((f) => f.eventsCoalesced),
    ),
    resyncs: collectedCounter(
      config('rxinformer_hub_resyncs_total', 'Streams ended with 410 because their client read too slowly.'),
      one((f) => f.resyncs),
    ),
    decisions: collectedCounter(
      config('rxinformer_hub_decisions_total', 'Authorization decisions by outcome, and whether fresh or cached.', ['outcome', 'source']),
      rows((f) => [
        [{ outcome: 'allowed', source: 'fresh' }, f.decisions.allowed.fresh],
        [{ outcome: 'allowed', source: 'cached' }, f.decisions.allowed.cached],
        [{ outcome: 'denied', source: 'fresh' }, f.decisions.denied.fresh],
        [{ outcome: 'denied', source: 'cached' }, f.decisions.denied.cached],
        [{ outcome: 'error', source: 'fresh' }, f.decisions.error],
      ]),
    ),
    refused: collectedCounter(
      config('rxinformer_hub_upgrades_refused_total', 'WebSocket upgrades refused, by why.', ['why']),
      byWhy((f) => f.upgradesRefused),
    ),
    closed: collectedCounter(
      config('rxinformer_hub_connections_closed_total', 'Connections the hub closed, by why.', ['why']),
      byWhy((f) => f.connectionsClosed),
    ),
  };
}

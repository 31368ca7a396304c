/**
 * @rxinformer/prometheus — Prometheus metrics (prom-client) and health/readiness probes for
 * rxinformer, fed by the Observables core already has: client-go's workqueue metrics, informer and
 * handler metrics, client-go's leader-election status, controller-runtime's reconcile metrics; `/readyz`, `/healthz` and `/metrics` over
 * node:http or any framework. Nothing is computed for what nobody registered.
 *
 * @example
 * const factory = createKubeInformerFactory(kc);
 * const podInformer = factory.informerFor(pods);
 * informerMetrics(podInformer, { name: 'v1/pods' });
 * workqueueMetrics(queue, { name: 'pod-labeler' });
 * const server = await serveProbes({ probes: createProbes({ informers: { 'v1/pods': podInformer } }), port: 9090 });
 *
 * @module @rxinformer/prometheus
 */

// Errors
export { MetricConflictError } from './errors.ts';

// Metrics
export { workqueueMetrics, WORKQUEUE_METRICS } from './workqueueMetrics.ts';
export type { MetricsRegistration, ObservedQueue, WorkqueueMetricsOptions } from './workqueueMetrics.ts';
export { controllerWorkqueueMetrics } from './controllerMetrics.ts';
export type { ObservedController } from './controllerMetrics.ts';
export { controllerRuntimeMetrics, CONTROLLER_RUNTIME_METRICS } from './controllerRuntimeMetrics.ts';
export type {
  ControllerRuntimeMetricsOptions,
  ObservedReconcile,
  ObservedReconciler,
  ObservedSource,
  ReconcileCounts,
} from './controllerRuntimeMetrics.ts';
export { controllerReadYourWritesMetrics, READ_YOUR_WRITES_METRICS } from './readYourWritesMetrics.ts';
export type { ObservedReadYourWrites, ReadYourWritesCounts, ReadYourWritesMetricsOptions } from './readYourWritesMetrics.ts';
export { informerMetrics, INFORMER_METRICS } from './informerMetrics.ts';
export { multiClusterInformerMetrics } from './multiClusterMetrics.ts';
export type { MultiClusterMetricsOptions, ObservedMultiClusterInformer } from './multiClusterMetrics.ts';
export type { InformerMetricsOptions, InformerMetricsRegistration } from './informerMetrics.ts';
export { HANDLER_METRIC_NAMES } from './handlerMetrics.ts';
export type { ObservedHandler } from './handlerMetrics.ts';
export type { ObservedInformer } from './informerTracker.ts';
export { leaderElectionMetrics, LEADER_ELECTION_METRICS } from './leaderElectionMetrics.ts';
export type { LeaderElectionMetricsOptions, ObservedElection } from './leaderElectionMetrics.ts';
export { hubMetrics, HUB_METRICS } from './hubMetrics.ts';
export type { HubDecisionCounts, HubFigures, HubMetricsOptions, ObservedHub } from './hubMetrics.ts';

// Probes
export { createProbes } from './probes.ts';
export type { CheckOutcome, ProbeCheck, ProbeReport, Probes, ProbesOptions } from './probes.ts';
export { probeHandler, probeResponse, serveProbes } from './probeServer.ts';
export type { ProbeHandlerOptions, ProbeResponse, ProbeServer } from './probeServer.ts';
export { managerServers } from './managerServers.ts';
export type { ManagerServersOptions, ManagerServersRunnable, ObservedManager } from './managerServers.ts';

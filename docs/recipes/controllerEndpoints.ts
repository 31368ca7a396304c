/**
 * Recipe: the production endpoints of a controller. `/metrics` (the informers', their handlers' and
 * the workqueue's figures, under client-go's workqueue names), `/readyz` (every informer synced, and
 * leading when the controller runs a leader election) and `/healthz` (no watch failing or silent
 * past its threshold), on a port of their own, for Kubernetes' probes and Prometheus' scrapes.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { WorkQueue } from '@rxinformer/core/workqueue';
import {
  createProbes,
  informerMetrics,
  serveProbes,
  workqueueMetrics,
  type MetricsRegistration,
  type ObservedHandler,
  type ObservedInformer,
} from '@rxinformer/prometheus';

/** Options of `serveControllerEndpoints`. */
export interface ControllerEndpointsOptions {
  /** The informers by name (the `informer` label): readiness waits for each. Required. */
  informers: Record<string, ObservedInformer>;
  /** Handlers to report (depth, lag, deliveries, failures), by informer name. Default: none. */
  handlers?: Record<string, ObservedHandler[]>;
  /** The controller's queue and its `name` label. Default: none. */
  queue?: { queue: WorkQueue<string>; name: string };
  /** With leader election: ready only while leading (a follower takes no traffic). Default: not checked. */
  isLeader?: () => boolean;
  /** The port. Default 0 (any free one; see `url`). */
  port?: number;
  /** The address. Default `127.0.0.1`; `0.0.0.0` in a pod, for the kubelet and Prometheus. */
  host?: string;
}

/** The running endpoints. */
export interface ControllerEndpoints {
  /** E.g. `http://127.0.0.1:9090`. */
  readonly url: string;
  /** The registry `/metrics` serves (the process's own metrics too). */
  readonly registry: Registry;
  /** Stops serving and unregisters everything. */
  close(): Promise<void>;
}

/**
 * Serves the endpoints. Call it before `factory.start()` to have the informers' time to first sync.
 *
 * @example
 * const endpoints = await serveControllerEndpoints({ informers: { 'v1/pods': podInformer }, queue: { queue, name: 'pod-labeler' }, port: 9090, host: '0.0.0.0' });
 * // Pod spec: readinessProbe.httpGet { path: /readyz, port: 9090 }, livenessProbe.httpGet { path: /healthz, port: 9090 }
 */
export async function serveControllerEndpoints(options: ControllerEndpointsOptions): Promise<ControllerEndpoints> {
  // A registry of its own: tests and several controllers in one process never collide.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry }); // process_cpu_seconds_total, nodejs_heap_size_used_bytes…
  const registrations: MetricsRegistration[] = Object.entries(options.informers).map(([name, informer]) =>
    informerMetrics(informer, { name, registry, handlers: options.handlers?.[name] }),
  );
  if (options.queue) registrations.push(workqueueMetrics(options.queue.queue, { name: options.queue.name, registry }));
  const isLeader = options.isLeader;
  const probes = createProbes({ informers: options.informers, readyChecks: isLeader ? { leading: isLeader } : {} });
  const server = await serveProbes({ probes, registry, port: options.port ?? 0, host: options.host });
  return {
    url: server.url,
    registry,
    async close() {
      await server.close();
      probes.close();
      for (const r of registrations) r.unregister();
    },
  };
}

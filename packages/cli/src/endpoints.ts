/**
 * `--metrics-port`: a command's informers, work queues and elections served for Prometheus and
 * probes, as a production process serves its own (`/metrics`, `/readyz`, `/healthz`), on 127.0.0.1.
 * The live view and each replica of the sharded demo use it.
 */
import { Subscription } from 'rxjs';
import { Registry, collectDefaultMetrics } from 'prom-client';
import {
  createProbes,
  hubMetrics,
  informerMetrics,
  leaderElectionMetrics,
  serveProbes,
  workqueueMetrics,
  type MetricsRegistration,
  type ObservedHub,
  type ObservedElection,
  type ObservedInformer,
  type ObservedQueue,
  type ProbeCheck,
} from '@rxinformer/prometheus';

/** What `serveEndpoints` serves, each by the name of its series (`informer`/`name` label). */
export interface EndpointSources {
  /** Informers: their metrics, and readiness once synced, health while not failing. */
  informers?: Record<string, ObservedInformer>;
  /** Work queues: client-go's workqueue metrics. */
  queues?: Record<string, ObservedQueue<string>>;
  /** Elections: `leader_election_master_status`. */
  elections?: Record<string, ObservedElection>;
  /** Dashboard hub replicas: their clients, subscriptions, bytes, drops and decisions. */
  hubs?: Record<string, ObservedHub>;
  /** Readiness checks of the command's own. */
  readyChecks?: Record<string, ProbeCheck>;
}

/**
 * Serves the sources' metrics (with Node's default metrics) and probes on `port` (0: any free
 * port); resolves with the server's URL and the subscription that stops it all.
 *
 * @example
 * const { url, stop } = await serveEndpoints({ informers: { 'v1/pods': informer } }, 9090);
 */
export async function serveEndpoints(sources: EndpointSources, port: number): Promise<{ url: string; stop: Subscription }> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registrations: MetricsRegistration[] = [];
  const unregister = () => registrations.forEach((r) => r.unregister());
  try {
    for (const [name, informer] of Object.entries(sources.informers ?? {}))
      registrations.push(informerMetrics(informer, { name, registry }));
    for (const [name, queue] of Object.entries(sources.queues ?? {})) registrations.push(workqueueMetrics(queue, { name, registry }));
    for (const [name, election] of Object.entries(sources.elections ?? {}))
      registrations.push(leaderElectionMetrics(election, { name, registry }));
    for (const [name, hub] of Object.entries(sources.hubs ?? {})) registrations.push(hubMetrics(hub, { name, registry }));
  } catch (e) {
    unregister();
    throw e;
  }
  const probes = createProbes({ informers: sources.informers ?? {}, readyChecks: sources.readyChecks ?? {} });
  try {
    const server = await serveProbes({ probes, registry, port });
    return {
      url: server.url,
      stop: new Subscription(() => {
        void server.close();
        probes.close();
        unregister();
      }),
    };
  } catch (e) {
    probes.close();
    unregister();
    throw e;
  }
}

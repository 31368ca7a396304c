/**
 * `--metrics-port`: the live view's informer served for Prometheus and probes, as a production
 * process would serve its own (`/metrics`, `/readyz`, `/healthz`), on 127.0.0.1.
 */
import { Subscription } from 'rxjs';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { KubeObject, SharedInformer } from '@rxinformer/core';
import { createProbes, informerMetrics, serveProbes } from '@rxinformer/prometheus';

/**
 * Serves the informer's metrics (`informer` label `name`) and probes on `port`; resolves with the
 * server's URL and the subscription that stops it all.
 *
 * @example
 * const { url, stop } = await serveLiveEndpoints(informer, 'v1/pods', 9090);
 */
export async function serveLiveEndpoints(
  informer: SharedInformer<KubeObject>,
  name: string,
  port: number,
): Promise<{ url: string; stop: Subscription }> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = informerMetrics(informer, { name, registry });
  const probes = createProbes({ informers: { [name]: informer } });
  try {
    const server = await serveProbes({ probes, registry, port });
    return {
      url: server.url,
      stop: new Subscription(() => {
        void server.close();
        probes.close();
        metrics.unregister();
      }),
    };
  } catch (e) {
    probes.close();
    metrics.unregister();
    throw e;
  }
}

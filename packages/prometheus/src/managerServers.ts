/**
 * A manager's metrics and probe servers, as one runnable of the manager (`stage: 'server'`: up
 * first, down last): controller-runtime's `:8080/metrics` and `:8081/readyz|healthz`.
 */
import { register as globalRegistry, type Registry } from 'prom-client';
import { controllerRuntimeMetrics } from './controllerRuntimeMetrics.ts';
import { controllerWorkqueueMetrics, type ObservedController } from './controllerMetrics.ts';
import { controllerReadYourWritesMetrics, type ObservedReadYourWrites } from './readYourWritesMetrics.ts';
import type { ObservedReconciler } from './controllerRuntimeMetrics.ts';
import { createProbes } from './probes.ts';
import { serveProbes, type ProbeServer } from './probeServer.ts';
import type { MetricsRegistration } from './workqueueMetrics.ts';

/** What the servers read of a manager (`@rxinformer/controller`'s `Manager` has it all). */
export interface ObservedManager {
  /** Its informer factory: ready once every informer synced. */
  readonly factory: {
    /** True once every informer it made has synced. */
    hasSynced(): boolean;
  };
  /** True from the caches' sync to the stop. */
  isWarm(): boolean;
  /** True while the leading runnables run. */
  isLeading(): boolean;
  /** Its runnables: the controllers among them get their metrics. */
  runnables(): readonly object[];
}

/** Options of `managerServers`. */
export interface ManagerServersOptions {
  /** The port of `/metrics`; 0 picks one. Default 8080 (controller-runtime's). `null`: no metrics server. */
  metricsPort?: number | null;
  /** The port of `/readyz`, `/healthz`, `/livez`; 0 picks one. Default 8081. `null`: no probe server. */
  probesPort?: number | null;
  /** The address both listen on. Default `127.0.0.1` (`0.0.0.0` in a pod, for the kubelet and Prometheus). */
  host?: string;
  /** The registry of the controllers' metrics, served on `/metrics`. Default: prom-client's global `register`. */
  registry?: Registry;
  /** Called with the servers once they listen (their URLs, for a test or a log line). */
  onListening?: (servers: { metrics?: ProbeServer; probes?: ProbeServer }) => void;
}

/** The manager's servers as a runnable: `{ name, stage: 'server', start() }`. */
export interface ManagerServersRunnable {
  /** `servers`. */
  readonly name: string;
  /** Always `'server'`: started first, stopped last. */
  readonly stage: 'server';
  /** Registers the controllers' metrics and listens; `stop()` closes both and unregisters. */
  start(): Promise<{
    /** Closes both servers and unregisters the metrics. */
    stop(): Promise<void>;
  }>;
}

const isController = (r: object): r is ObservedReconciler & ObservedController<string> & ObservedReadYourWrites =>
  ['reconcileStats', 'readYourWritesStats', 'sourceInformers'].every((m) => typeof (r as Record<string, unknown>)[m] === 'function');

/**
 * The metrics server (every controller's `controller_runtime_*`, workqueue and read-your-writes
 * series) and the probe server (`/readyz`: caches synced, the manager warm; `/healthz`: no informer
 * failing or silent) of a manager. Add it to the manager last, once the controllers are added.
 *
 * @example
 * mgr.add(ctl).add(managerServers(mgr, { metricsPort: 8080, probesPort: 8081, host: '0.0.0.0' }));
 *
 * Caveat: `/readyz` passes on standby replicas too (warm caches, not leading), as controller-runtime's;
 * a Service in front of a controller is rare, and a standby must not be restarted for not leading.
 */
export function managerServers(manager: ObservedManager, options: ManagerServersOptions = {}): ManagerServersRunnable {
  const registry = options.registry ?? globalRegistry;
  return {
    name: 'servers',
    stage: 'server',
    async start() {
      const registrations: MetricsRegistration[] = manager
        .runnables()
        .filter(isController)
        .flatMap((c) => [
          controllerRuntimeMetrics(c, { registry }),
          controllerWorkqueueMetrics(c, { registry }),
          controllerReadYourWritesMetrics(c, { registry }),
        ]);
      const probes = createProbes({
        factories: { informers: manager.factory },
        readyChecks: { manager: () => ({ ok: manager.isWarm(), message: manager.isWarm() ? undefined : 'not started, or stopping' }) },
      });
      const servers: { metrics?: ProbeServer; probes?: ProbeServer } = {};
      const host = options.host;
      const close = async () => {
        await Promise.all([servers.metrics?.close(), servers.probes?.close()]);
        probes.close();
        for (const r of registrations) r.unregister();
      };
      try {
        if (options.metricsPort !== null) servers.metrics = await serveProbes({ registry, port: options.metricsPort ?? 8080, host });
        if (options.probesPort !== null)
          servers.probes = await serveProbes({ probes, registry: null, port: options.probesPort ?? 8081, host });
      } catch (e) {
        await close();
        throw e;
      }
      options.onListening?.(servers);
      return { stop: close };
    },
  };
}

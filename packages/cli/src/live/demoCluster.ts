/**
 * The live view's default source: the embedded API server simulator on 127.0.0.1 with seeded pods,
 * a seeded churn (pods created, moved through phases, deleted, recreated) and, every few seconds,
 * an injected fault, so that a newcomer has something to watch.
 */
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer, type ChurnTarget } from '@rxinformer/apiserver-sim';
import type { KubeObject } from '@rxinformer/core';
import { asyncScheduler, interval, type SchedulerLike, type Subscription } from 'rxjs';

/** Options of `startDemoCluster`. */
export interface DemoClusterOptions {
  /** Seed of the simulator, the churn and the fault targets. Default 1. */
  seed?: number;
  /** Pods created before returning. Default 60. */
  pods?: number;
  /** Changes per second. Default 20 (0 = no churn). */
  ratePerSecond?: number;
  /** Inject a fault every `faultEveryMs`. Default true. */
  faults?: boolean;
  /** Time between faults, in ms. Default 5000 (see `DEMO_BACKOFF`). */
  faultEveryMs?: number;
  /** Called with the description of every fault injected. Default: none. */
  onFault?: (description: string) => void;
  /** Where the churn and the faults run. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** A running demo cluster. */
export interface DemoCluster {
  readonly sim: ApiServer;
  /** The namespaces the pods spread over. */
  readonly namespaces: readonly string[];
  /** Faults injected so far. */
  readonly faultCount: number;
  /** Stops the churn and the faults, then closes the simulator. */
  close(): Promise<void>;
}

/**
 * The backoff of the demo's informer: failures forgotten after 4 s of health (client-go's 2 min by
 * default) and waits capped at 5 s, so that a fault every 5 s shows its recovery within seconds
 * instead of stacking into half-minute waits while the table stands still.
 */
export const DEMO_BACKOFF = { resetAfterMs: 4_000, maxMs: 5_000 } as const;

/** The namespaces of the demo's pods. */
export const DEMO_NAMESPACES = ['default', 'team-a', 'team-b'] as const;

/** The faults, injected in this order, round and round. Each returns its description. */
const FAULTS: ((sim: ApiServer) => string)[] = [
  (sim) => `dropped ${sim.faults.dropWatches()} watch connection(s)`,
  (sim) => `sent watch ERROR 410 Expired to ${sim.faults.injectWatchError()} watch(es) (relist)`,
  (sim) => {
    sim.faults.failNext(1, { code: 500, on: 'watch' });
    return `dropped ${sim.faults.dropWatches()} watch(es); the next watch answers HTTP 500 (backoff)`;
  },
  (sim) => `wrote a malformed line into ${sim.faults.malformedLine()} watch(es)`,
  (sim) => {
    sim.faults.compact();
    return `compacted the history and dropped ${sim.faults.dropWatches()} watch(es) (410 on resume, relist)`;
  },
  (sim) => {
    sim.faults.failNext(1, { code: 429, on: 'watch', retryAfterSeconds: 1 });
    return `dropped ${sim.faults.dropWatches()} watch(es); the next watch answers 429 with Retry-After: 1`;
  },
];

/**
 * Wraps a pod churn target so pods live through phases: created `Pending`, `Running` on their
 * first change, and now and then `Succeeded` or `Failed` (written through the status subresource,
 * as a kubelet would).
 */
function phasedPods(sim: ApiServer): ChurnTarget {
  const base = objectStoreTarget(sim.storage);
  let changes = 0;
  return {
    ...base,
    create: (obj, namespace) => {
      const pod = obj as KubeObject & { status?: Record<string, unknown> };
      return base.create({ ...pod, status: { ...pod.status, phase: 'Pending' } } as KubeObject, namespace);
    },
    update: (obj, namespace, name) => {
      const current: (KubeObject & { status?: { phase?: string } }) | undefined = sim.storage.find('pods', namespace, name);
      const n = ++changes;
      const phase = current?.status?.phase === 'Pending' ? 'Running' : n % 9 === 0 ? 'Failed' : n % 7 === 0 ? 'Succeeded' : undefined;
      if (current && phase)
        return sim.storage.update('pods', { ...current, status: { ...current.status, phase } }, namespace, name, { subresource: 'status' });
      return base.update(obj, namespace, name);
    },
  };
}

/**
 * Starts the simulator on 127.0.0.1 (an ephemeral port), seeds pods and starts the churn and faults.
 *
 * @example
 * const demo = await startDemoCluster({ seed: 1, pods: 60, onFault: console.log });
 * kc.loadFromString(demo.sim.kubeconfigYaml());
 * await demo.close();
 *
 * Caveat: the simulator runs in this process, so its work shares the event loop with the view.
 */
export async function startDemoCluster(options: DemoClusterOptions = {}): Promise<DemoCluster> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const sim = await startApiServer({
    port: 0,
    host: '127.0.0.1',
    seed: options.seed ?? 1,
    namespaces: ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'team-a', 'team-b'],
    // The demo's own faults run in process (sim.faults); the HTTP endpoints stay for a user's curl.
    controlEndpoints: true,
  });
  const load = createLoadGenerator({ target: phasedPods(sim), namespaces: [...DEMO_NAMESPACES], seed: options.seed ?? 1, scheduler });
  load.seed(options.pods ?? 60);
  const rate = options.ratePerSecond ?? 20;
  const churn = rate > 0 ? load.churn({ ratePerSecond: rate }) : undefined;
  let faultCount = 0;
  let faults: Subscription | undefined;
  if (options.faults ?? true) {
    faults = interval(options.faultEveryMs ?? 5000, scheduler).subscribe((i) => {
      const description = FAULTS[i % FAULTS.length](sim);
      faultCount++;
      options.onFault?.(description);
    });
  }
  let closing: Promise<void> | undefined;
  return {
    sim,
    namespaces: DEMO_NAMESPACES,
    get faultCount() {
      return faultCount;
    },
    close() {
      churn?.stop();
      faults?.unsubscribe();
      return (closing ??= sim.close());
    },
  };
}

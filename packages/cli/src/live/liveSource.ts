/**
 * Where the live view watches: the embedded simulator (started here, with a kubeconfig for kubectl
 * in a private directory) or a real cluster from a kubeconfig; and what the view holds (timers,
 * informer factory, simulator, kubeconfig file), released in one place on stop or on a failed start.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { writePrivateFile } from '@rxinformer/apiserver-sim';
import type { KubeInformerFactory } from '@rxinformer/client-node';
import type { SchedulerLike, Subscription } from 'rxjs';
import { startDemoCluster, type DemoCluster } from './demoCluster.ts';
import { LiveOptionsError, type LiveOptions } from './liveOptions.ts';
import type { LiveOutput } from './terminal.ts';

/** What the live view has started so far: released on stop, or when its start fails. */
export interface LiveHoldings {
  /** Timers and metric subscriptions. */
  readonly subs: Subscription[];
  /** The embedded simulator, when watching it. */
  demo?: DemoCluster;
  /** The informer factory, once made. */
  factory?: KubeInformerFactory;
  /** Holds the kubeconfig's directory: removed on release, or when the process exits without one. */
  holdKubeconfig(dir: string): void;
  /** Stops everything held, in order: subscriptions, informers, simulator, kubeconfig file. */
  release(): Promise<void>;
}

/**
 * An empty holding. Aborting `signal` while the view starts closes its factory (so a discovery
 * waiting on a silent server ends).
 */
export function liveHoldings(signal: AbortSignal | undefined): LiveHoldings {
  let kubeconfigDir: string | undefined;
  const removeOnExit = () => {
    if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
  };
  const abortStart = () => {
    void held.factory?.close();
  };
  const held: LiveHoldings = {
    subs: [],
    holdKubeconfig: (dir) => {
      kubeconfigDir = dir;
      process.on('exit', removeOnExit);
    },
    release: async () => {
      signal?.removeEventListener('abort', abortStart);
      for (const s of held.subs) s.unsubscribe();
      await held.factory?.close();
      await held.demo?.close();
      if (kubeconfigDir) await rm(kubeconfigDir, { recursive: true, force: true }).catch(() => undefined);
      process.off('exit', removeOnExit);
    },
  };
  signal?.addEventListener('abort', abortStart, { once: true });
  return held;
}

/** The KubeConfig the view watches through, and how it is described. */
export interface LiveSource {
  /** Where the informers connect. */
  kc: KubeConfig;
  /** E.g. `simulator http://127.0.0.1:40123` or `context prod (https://…)`. */
  text: string;
  /** The simulator's kubeconfig file, for kubectl. */
  kubeconfigFile?: string;
}

/** How the view reports what the source does. */
export interface LiveSourceIo {
  /** Where lines go. */
  out: LiveOutput;
  /** Plain output (not a terminal screen): injected faults get a line each. */
  plain: boolean;
  /** Where the simulator's churn runs. */
  scheduler: SchedulerLike;
  /** Called with each fault the simulator injects. */
  onFault(description: string): void;
}

/** Opens the source the options name, holding what it starts in `held`. */
export async function openSource(source: LiveOptions['source'], held: LiveHoldings, io: LiveSourceIo): Promise<LiveSource> {
  if (source.kind === 'cluster') {
    const kc = kubeConfigFor(source);
    const text = `context ${kc.getCurrentContext()} (${kc.getCurrentCluster()!.server})`;
    io.out.line(`watching ${text}`);
    return { kc, text };
  }
  const demo = (held.demo = await startDemoCluster({
    seed: source.seed,
    pods: source.pods,
    ratePerSecond: source.ratePerSecond,
    faults: source.faults,
    faultEveryMs: source.faultEveryMs,
    scheduler: io.scheduler,
    onFault: (d) => {
      io.onFault(d);
      if (io.plain) io.out.line(`fault injected: ${d}`);
    },
  }));
  const kc = new KubeConfig();
  kc.loadFromString(demo.sim.kubeconfigYaml());
  // A fresh directory only this user can enter (mode 0700, unpredictable name), so no one else
  // can plant or read the file holding the simulator's token.
  const { dir, path } = await writePrivateFile(demo.sim.kubeconfigYaml(), { prefix: 'rxinformer-live-' });
  held.holdKubeconfig(dir);
  const faults = source.faults ? 'on' : 'off';
  io.out.line(
    `simulator running at ${demo.sim.url} (seed ${source.seed}, ${source.pods} pods, ${source.ratePerSecond} changes/s, faults ${faults})`,
  );
  io.out.line(`kubeconfig: ${path}  (try: kubectl --kubeconfig ${path} get pods -A -w)`);
  return { kc, text: `simulator ${demo.sim.url}`, kubeconfigFile: path };
}

/** The KubeConfig of a cluster source: its file (or the default one) at its context. */
function kubeConfigFor(source: Extract<LiveOptions['source'], { kind: 'cluster' }>): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (source.kubeconfig !== undefined) kc.loadFromFile(source.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    // The first line only: a YAML error goes on with an excerpt of the file, which may hold a token.
    const message = String((e as Error)?.message).split('\n')[0];
    throw new LiveOptionsError(`cannot load the kubeconfig${source.kubeconfig ? ` ${source.kubeconfig}` : ''}: ${message}`, { cause: e });
  }
  if (source.context !== undefined) {
    if (!kc.getContextObject(source.context))
      throw new LiveOptionsError(
        `no context "${source.context}" in the kubeconfig (have: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || 'none'
        })`,
      );
    kc.setCurrentContext(source.context);
  }
  if (!kc.getCurrentCluster())
    throw new LiveOptionsError(`the kubeconfig${source.kubeconfig ? ` ${source.kubeconfig}` : ''} has no current context with a cluster`);
  return kc;
}

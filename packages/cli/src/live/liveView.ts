/**
 * The live view: an informer from `createKubeInformerFactory` over a client-node KubeConfig (the
 * embedded simulator's or a real cluster's: the same code), its events and counters drawn on a
 * terminal, or printed as plain lines when the output is not one.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { writePrivateFile } from '@rxinformer/apiserver-sim';
import { createKubeInformerFactory, type KubeInformerFactory } from '@rxinformer/client-node';
import {
  InvalidOptionsError,
  type HandlerMetrics,
  type HandlerRegistration,
  type KubeObject,
  type ReflectorStatus,
} from '@rxinformer/core';
import { asyncScheduler, firstValueFrom, interval, Subscription, timer, type SchedulerLike } from 'rxjs';
import { DEMO_BACKOFF, startDemoCluster, type DemoCluster } from './demoCluster.ts';
import { LiveOptionsError, type LiveOptions } from './liveOptions.ts';
import {
  countersLine,
  EVENT_HEADER,
  eventLine,
  progressText,
  reflectorText,
  renderScreen,
  type LiveSnapshot,
  type LiveSummary,
} from './liveRender.ts';
import { resolveLiveResource } from './liveResource.ts';
import { createLiveState } from './liveState.ts';
import { terminalOutput, type LiveOutput } from './terminal.ts';

/** Where the view writes and how big the screen is. */
export interface LiveIo {
  /** Writes text as is (lines end in `\n`). */
  write(text: string): void;
  /** Redraw a screen (true) or append plain lines (false). */
  isTTY: boolean;
  /** The terminal size (TTY only). */
  size(): { rows: number; columns: number };
  /** Where the view's timers run. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * Aborting it while `startLiveView` is still starting (e.g. discovery waiting on a silent server)
   * closes what was started and rejects with the signal's reason. Default: none.
   */
  signal?: AbortSignal;
}

/** A running live view. */
export interface LiveRun {
  /** Stops everything (informers, connections, simulator, timers) and resolves with the summary. Idempotent. */
  stop(): Promise<LiveSummary>;
}

/** Milliseconds between screen redraws on a terminal. */
const REDRAW_MS = 250;

function kubeConfigFor(source: Extract<LiveOptions['source'], { kind: 'cluster' }>): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (source.kubeconfig !== undefined) kc.loadFromFile(source.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    throw new LiveOptionsError(`cannot load the kubeconfig${source.kubeconfig ? ` ${source.kubeconfig}` : ''}: ${(e as Error).message}`, {
      cause: e,
    });
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

/**
 * Starts a live view; resolves once the informer is started (the list may still be loading).
 *
 * @example
 * const run = await startLiveView(parseLiveOptions(process.argv.slice(2)), { write: (t) => process.stdout.write(t), isTTY: false, size: () => ({ rows: 24, columns: 80 }) });
 * process.once('SIGINT', async () => console.log(await run.stop()));
 *
 * Caveat: rejects with `LiveOptionsError` for what the options name but the cluster or kubeconfig
 * lacks (unknown context or resource, or one that cannot be watched), and with `io.signal`'s reason
 * when aborted; everything started so far is closed first.
 */
export async function startLiveView(options: LiveOptions, io: LiveIo): Promise<LiveRun> {
  const scheduler = io.scheduler ?? asyncScheduler;
  const startedAt = scheduler.now();
  const out: LiveOutput = terminalOutput(io);
  const subs: Subscription[] = [];
  let demo: DemoCluster | undefined;
  let factory: KubeInformerFactory | undefined;
  let kubeconfigDir: string | undefined;
  let kubeconfigFile: string | undefined;
  let lastFault: string | undefined;
  // The kubeconfig file (in a private directory of its own) is removed on stop, and also when the
  // process exits without one (process.exit).
  const removeOnExit = () => {
    if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
  };
  const abortStart = () => {
    void factory?.close();
  };
  const release = async () => {
    io.signal?.removeEventListener('abort', abortStart);
    for (const s of subs) s.unsubscribe();
    await factory?.close();
    await demo?.close();
    if (kubeconfigDir) await rm(kubeconfigDir, { recursive: true, force: true }).catch(() => undefined);
    process.off('exit', removeOnExit);
  };
  io.signal?.addEventListener('abort', abortStart, { once: true });

  try {
    io.signal?.throwIfAborted();
    let kc: KubeConfig;
    let sourceText: string;
    if (options.source.kind === 'simulator') {
      const s = options.source;
      demo = await startDemoCluster({
        seed: s.seed,
        pods: s.pods,
        ratePerSecond: s.ratePerSecond,
        faults: s.faults,
        scheduler,
        onFault: (d) => {
          lastFault = d;
          if (!io.isTTY) out.line(`fault injected: ${d}`);
        },
      });
      kc = new KubeConfig();
      kc.loadFromString(demo.sim.kubeconfigYaml());
      // A fresh directory only this user can enter (mode 0700, unpredictable name), so no one else
      // can plant or read the file holding the simulator's token.
      ({ dir: kubeconfigDir, path: kubeconfigFile } = await writePrivateFile(demo.sim.kubeconfigYaml(), { prefix: 'rxinformer-live-' }));
      process.on('exit', removeOnExit);
      sourceText = `simulator ${demo.sim.url}`;
      out.line(
        `simulator running at ${demo.sim.url} (seed ${s.seed}, ${s.pods} pods, ${s.ratePerSecond} changes/s, faults ${s.faults ? 'on' : 'off'})`,
      );
      out.line(`kubeconfig: ${kubeconfigFile}  (try: kubectl --kubeconfig ${kubeconfigFile} get pods -A -w)`);
    } else {
      kc = kubeConfigFor(options.source);
      sourceText = `context ${kc.getCurrentContext()} (${kc.getCurrentCluster()!.server})`;
      out.line(`watching ${sourceText}`);
    }
    try {
      factory = createKubeInformerFactory(kc, {
        namespace: options.namespace,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      });
    } catch (e) {
      if (e instanceof InvalidOptionsError) throw new LiveOptionsError(`the kubeconfig cannot be used: ${e.message}`, { cause: e });
      throw e;
    }
    io.signal?.throwIfAborted();
    const resource = await resolveLiveResource(options.resource, factory.discovery);
    io.signal?.throwIfAborted();
    const scope = resource.namespaced ? (options.namespace ? `namespace ${options.namespace}` : 'all namespaces') : 'cluster-scoped';
    const selectors = [options.labelSelector, options.fieldSelector].filter(Boolean).join(', ');
    const title = `${resource.group ? `${resource.resource}.${resource.group}` : resource.resource} in ${scope}${selectors ? ` (${selectors})` : ''}`;
    if (options.namespace && !resource.namespaced) out.line(`note: ${resource.resource} are cluster-scoped; --namespace ignored`);

    // The demo's faults come every few seconds: its informer forgets failures sooner (DEMO_BACKOFF).
    const informer = factory.informerFor<KubeObject>(resource, demo ? { reflector: { backoff: DEMO_BACKOFF } } : {});
    const state = createLiveState({ scheduler, onEvent: io.isTTY ? undefined : (e) => out.line(eventLine(e, Date.now())) });
    const handlers: { name: string; metrics: HandlerMetrics }[] = [];
    const track = (reg: HandlerRegistration) => {
      const entry = { name: reg.name, metrics: { depth: 0, lagMs: 0, delivered: 0, errors: 0 } };
      handlers.push(entry);
      subs.push(
        reg.metrics$.subscribe((m) => {
          entry.metrics = m;
        }),
      );
      subs.push(new Subscription(() => reg.remove()));
    };
    track(informer.addEventHandler(state.handler, { name: 'view' }));
    if (demo) {
      // A deliberately slow consumer (5 ms of async work per event): it falls behind on the bursts
      // of a list or relist and drains after, while the store and the view stay current.
      const work = () => firstValueFrom(timer(5, scheduler)).then(() => undefined);
      track(informer.addEventHandler({ onAdd: work, onUpdate: work, onDelete: work }, { name: 'slow-audit' }));
    }

    let status: ReflectorStatus = { phase: 'listing', relistCount: 0, hasSynced: false };
    let errors = 0;
    const errorNames = new Set<string>();
    let handlerErrors = 0;
    let lastProgress: string | undefined;
    subs.push(
      informer.status$.subscribe((s) => {
        if (s.lastError && s.lastError !== status.lastError) {
          errors++;
          const code = (s.lastError as { code?: unknown }).code;
          errorNames.add(s.lastError.name === 'Error' && typeof code === 'string' ? code : s.lastError.name); // ECONNREFUSED says more than Error
          if (!io.isTTY) out.line(`reflector: ${reflectorText(s)}`);
        }
        if (!io.isTTY) {
          const progress = progressText(s);
          if (progress && progress !== lastProgress) out.line(progress);
          if (!s.hasSynced || s.phase !== 'listing') lastProgress = progress;
          if (s.hasSynced && !status.hasSynced)
            out.line(`synced: ${informer.getStore().size} objects listed in ${((scheduler.now() - startedAt) / 1000).toFixed(1)}s`);
        }
        status = s;
      }),
    );
    subs.push(
      informer.handlerErrors$.subscribe(() => {
        handlerErrors++;
      }),
    );

    const snapshot = (): LiveSnapshot => ({
      title,
      source: sourceText,
      note: kubeconfigFile ? `kubectl --kubeconfig ${kubeconfigFile} get pods -A -w` : undefined,
      cached: informer.getStore().size,
      eventsPerSecond: state.rate.perSecond(),
      counts: state.counts,
      status,
      errors,
      handlers,
      lastFault,
      uptimeMs: scheduler.now() - startedAt,
    });
    // The header first, then start (progress and events follow it), then the periodic output.
    if (io.isTTY) out.enterScreen();
    else {
      out.line(`watching ${title}`);
      out.line(EVENT_HEADER);
    }
    factory.start();
    if (io.isTTY) {
      const draw = () => out.frame(renderScreen(snapshot(), state.rows(io.size().rows), io.size(), scheduler.now(), Date.now()));
      subs.push(interval(REDRAW_MS, scheduler).subscribe(draw));
      draw();
    } else {
      subs.push(interval(options.intervalSeconds * 1000, scheduler).subscribe(() => out.line(countersLine(snapshot()))));
    }

    let stopping: Promise<LiveSummary> | undefined;
    return {
      stop: () =>
        (stopping ??= (async () => {
          const final = snapshot();
          await release();
          out.leaveScreen();
          return {
            durationMs: final.uptimeMs,
            cached: final.cached,
            counts: { ...state.counts },
            relists: status.relistCount,
            errors,
            errorNames: [...errorNames],
            handlerErrors,
            faults: demo?.faultCount ?? 0,
          };
        })()),
    };
  } catch (e) {
    await release();
    out.leaveScreen();
    throw e;
  }
}

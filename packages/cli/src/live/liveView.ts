/**
 * The live view: an informer from `createKubeInformerFactory` over a client-node KubeConfig (the
 * embedded simulator's or a real cluster's, from `liveSource.ts`: the same code), its events and
 * counters drawn on a terminal, or printed as plain lines when the output is not one.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeInformerFactory, type KubeInformerFactory } from '@rxinformer/client-node';
import { serveEndpoints } from '../endpoints.ts';
import {
  InvalidOptionsError,
  type HandlerMetrics,
  type HandlerRegistration,
  type KubeObject,
  type ReflectorStatus,
  type SharedInformer,
} from '@rxinformer/core';
import { asyncScheduler, firstValueFrom, interval, Subscription, timer, type SchedulerLike } from 'rxjs';
import { DEMO_BACKOFF } from './demoCluster.ts';
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
import { liveHoldings, openSource, type LiveHoldings } from './liveSource.ts';
import { createLiveState, type LiveState } from './liveState.ts';
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
  const held = liveHoldings(io.signal);
  let lastFault: string | undefined;
  try {
    io.signal?.throwIfAborted();
    const onFault = (d: string) => (lastFault = d);
    const source = await openSource(options.source, held, { out, plain: !io.isTTY, scheduler, onFault });
    const factory = (held.factory = kubeFactory(source.kc, options));
    io.signal?.throwIfAborted();
    const resource = await resolveLiveResource(options.resource, factory.discovery);
    io.signal?.throwIfAborted();
    const scope = resource.namespaced ? (options.namespace ? `namespace ${options.namespace}` : 'all namespaces') : 'cluster-scoped';
    const selectors = [options.labelSelector, options.fieldSelector].filter(Boolean).join(', ');
    const title = `${resource.group ? `${resource.resource}.${resource.group}` : resource.resource} in ${scope}${selectors ? ` (${selectors})` : ''}`;
    if (options.namespace && !resource.namespaced) out.line(`note: ${resource.resource} are cluster-scoped; --namespace ignored`);

    // The demo's faults come every few seconds: its informer forgets failures sooner (DEMO_BACKOFF).
    const informer = factory.informerFor<KubeObject>(resource, held.demo ? { reflector: { backoff: DEMO_BACKOFF } } : {});
    const state = createLiveState({ scheduler, onEvent: io.isTTY ? undefined : (e) => out.line(eventLine(e, Date.now())) });
    const handlers = addHandlers(informer, state, held.subs, held.demo ? scheduler : undefined);
    const seen = watchStatus(informer, held.subs, { out, plain: !io.isTTY, since: () => scheduler.now() - startedAt });
    const snapshot = (): LiveSnapshot => ({
      title,
      source: source.text,
      note: source.kubeconfigFile ? `kubectl --kubeconfig ${source.kubeconfigFile} get pods -A -w` : undefined,
      cached: informer.getStore().size,
      eventsPerSecond: state.rate.perSecond(),
      counts: state.counts,
      status: seen.status,
      errors: seen.errors,
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
    if (options.metricsPort !== undefined) {
      const name = `${resource.group ? `${resource.group}/` : ''}${resource.version}/${resource.resource}`;
      const endpoints = await serveEndpoints({ informers: { [name]: informer } }, options.metricsPort);
      held.subs.push(endpoints.stop);
      if (!io.isTTY) out.line(`serving ${endpoints.url}/metrics, /readyz and /healthz`);
    }
    factory.start();
    held.subs.push(periodicOutput(io, out, options, scheduler, snapshot, state));
    return stoppable(held, out, snapshot, (final) => summary(final, state, seen, held));
  } catch (e) {
    await held.release();
    out.leaveScreen();
    throw e;
  }
}

/** The informer factory of the view, over `kc`; a KubeConfig it cannot use is a `LiveOptionsError`. */
function kubeFactory(kc: KubeConfig, options: LiveOptions): KubeInformerFactory {
  try {
    return createKubeInformerFactory(kc, {
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    });
  } catch (e) {
    if (e instanceof InvalidOptionsError) throw new LiveOptionsError(`the kubeconfig cannot be used: ${e.message}`, { cause: e });
    throw e;
  }
}

/**
 * Adds the view's handler and, with `slowScheduler` (the simulator's demo), a deliberately slow
 * one; their figures, as they change.
 */
function addHandlers(
  informer: SharedInformer<KubeObject>,
  state: LiveState,
  subs: Subscription[],
  slowScheduler: SchedulerLike | undefined,
): { name: string; metrics: HandlerMetrics }[] {
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
  if (slowScheduler) {
    // A deliberately slow consumer (5 ms of async work per event): it falls behind on the bursts
    // of a list or relist and drains after, while the store and the view stay current.
    const work = () => firstValueFrom(timer(5, slowScheduler)).then(() => undefined);
    track(informer.addEventHandler({ onAdd: work, onUpdate: work, onDelete: work }, { name: 'slow-audit' }));
  }
  return handlers;
}

/** What the view has seen of the informer's condition. */
interface SeenStatus {
  /** The reflector's status last emitted. */
  status: ReflectorStatus;
  /** Reflector failures seen (each distinct `lastError`). */
  errors: number;
  /** Their names (or error codes), once each. */
  errorNames: Set<string>;
  /** Handler failures seen. */
  handlerErrors: number;
}

/**
 * Follows the informer's status and handler errors; on plain output, also prints each new
 * failure, the list's progress and when it synced (`since`: time since the view started).
 */
function watchStatus(
  informer: SharedInformer<KubeObject>,
  subs: Subscription[],
  { out, plain, since }: { out: LiveOutput; plain: boolean; since: () => number },
): SeenStatus {
  const seen: SeenStatus = {
    status: { phase: 'listing', relistCount: 0, hasSynced: false },
    errors: 0,
    errorNames: new Set(),
    handlerErrors: 0,
  };
  let lastProgress: string | undefined;
  subs.push(
    informer.status$.subscribe((s) => {
      if (s.lastError && s.lastError !== seen.status.lastError) {
        seen.errors++;
        const code = (s.lastError as { code?: unknown }).code;
        seen.errorNames.add(s.lastError.name === 'Error' && typeof code === 'string' ? code : s.lastError.name); // ECONNREFUSED says more than Error
        if (plain) out.line(`reflector: ${reflectorText(s)}`);
      }
      if (plain) {
        const progress = progressText(s);
        if (progress && progress !== lastProgress) out.line(progress);
        if (!s.hasSynced || s.phase !== 'listing') lastProgress = progress;
        if (s.hasSynced && !seen.status.hasSynced)
          out.line(`synced: ${informer.getStore().size} objects listed in ${(since() / 1000).toFixed(1)}s`);
      }
      seen.status = s;
    }),
  );
  subs.push(
    informer.handlerErrors$.subscribe(() => {
      seen.handlerErrors++;
    }),
  );
  return seen;
}

/** The screen redrawn on a terminal, or a counters line every `intervalSeconds` on plain output. */
function periodicOutput(
  io: LiveIo,
  out: LiveOutput,
  options: LiveOptions,
  scheduler: SchedulerLike,
  snapshot: () => LiveSnapshot,
  state: LiveState,
): Subscription {
  if (!io.isTTY) return interval(options.intervalSeconds * 1000, scheduler).subscribe(() => out.line(countersLine(snapshot())));
  const draw = () => out.frame(renderScreen(snapshot(), state.rows(io.size().rows), io.size(), scheduler.now(), Date.now()));
  const sub = interval(REDRAW_MS, scheduler).subscribe(draw);
  draw();
  return sub;
}

/**
 * A run whose `stop` (idempotent) takes the last snapshot, releases everything, leaves the screen
 * and resolves with the summary.
 */
function stoppable(
  held: LiveHoldings,
  out: LiveOutput,
  snapshot: () => LiveSnapshot,
  summarize: (final: LiveSnapshot) => LiveSummary,
): LiveRun {
  let stopping: Promise<LiveSummary> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        const final = snapshot();
        await held.release();
        out.leaveScreen();
        return summarize(final);
      })()),
  };
}

/** The summary printed when the view stops. */
function summary(final: LiveSnapshot, state: LiveState, seen: SeenStatus, held: LiveHoldings): LiveSummary {
  return {
    durationMs: final.uptimeMs,
    cached: final.cached,
    counts: { ...state.counts },
    relists: seen.status.relistCount,
    errors: seen.errors,
    errorNames: [...seen.errorNames],
    handlerErrors: seen.handlerErrors,
    faults: held.demo?.faultCount ?? 0,
  };
}

/**
 * The manager: one informer factory, controllers and other runnables, a leader election, and the
 * order they start and stop in — controller-runtime's manager over this package's parts.
 */
import {
  BehaviorSubject,
  firstValueFrom,
  from,
  map,
  race,
  type Observable,
  type SchedulerLike,
  type Subscription,
  asyncScheduler,
} from 'rxjs';
import { InvalidOptionsError, type InformerFactory } from '@rxinformer/core';
import { isApiClient, type ApiClient } from '@rxinformer/core/http';
import { leaderElection as elect, whileLeading, type LeaderElection, type LeaderElectionOptions } from '@rxinformer/core/leader-election';
import { checkDuration, timerAfter } from '@rxinformer/core/time';
import { createEventRecorder, type EventRecorder, type EventRecorderOptions } from '../events/eventRecorder.ts';
import { isLogger, type Logger } from '../log/logger.ts';
import { ManagerError, startAll, stageOf, stopAll, type RunStage, type Runnable, type RunningWork } from './runnable.ts';

/** Options of `createManager`. */
export interface ManagerOptions {
  /** The informer factory of every controller added: started and synced (warm) before this process campaigns. Required. */
  factory: InformerFactory;
  /**
   * The one client of every write: `req.api` of the controllers built on the manager
   * (`controllerFor(mgr, …)`), the Lease of `leaderElection` given as options, and the Events of
   * `eventRecorder(…)`. Default: none (those three then need one of their own).
   */
  client?: ApiClient;
  /**
   * The election of the Lease the leading runnables need: its options (`namespace`, `name`,
   * `identity`, timing), written through `client`, or an election made elsewhere. Default: none —
   * they run from start to stop.
   */
  leaderElection?: ManagerElectionOptions | LeaderElection;
  /** Where the manager logs (pino fits; pass it to the controllers too). Default `console`. */
  logger?: Logger;
  /** How long a shutdown waits for the leading runnables' reconciles to settle before it releases the Lease anyway, in ms of any length. Default 30,000. */
  gracefulShutdownMs?: number;
  /** How long the caches may take to sync before `start()` rejects (`CacheSyncTimeoutError`). Default 120,000. */
  cacheSyncTimeoutMs?: number;
  /** The clock of the shutdown deadline. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The election options a manager takes: `leaderElection`'s, the client being the manager's. */
export type ManagerElectionOptions = Omit<LeaderElectionOptions, 'client'>;

/** Options of a manager's `eventRecorder`: the recorder's, the client being the manager's. */
export type ManagerRecorderOptions = Omit<EventRecorderOptions, 'client' | 'reportingInstance'> & {
  /** The instance in each Event. Default: the election's identity (required without one). */
  reportingInstance?: string;
};

/** Where a manager is in its life. */
export type ManagerPhase = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/** The signal source `stopOnSignals` listens to: `process` (or anything with its `once`, `off` and `exit`). */
export interface SignalSource {
  /** Calls `listener` on the next `signal`. */
  once(signal: string, listener: () => void): unknown;
  /** Removes `listener`. */
  off(signal: string, listener: () => void): unknown;
  /** Ends the process (on a second signal). */
  exit(code: number): unknown;
}

/** A manager made by `createManager`. */
export interface Manager {
  /** The factory it runs. */
  readonly factory: InformerFactory;
  /** Its logger. */
  readonly logger: Logger;
  /** The client every write goes through (the `client` option). */
  readonly client: ApiClient | undefined;
  /** The election it runs, if any (made from the options given, on `client`). */
  readonly election: LeaderElection | undefined;
  /**
   * An event recorder writing through the manager's client (controller-runtime's
   * `GetEventRecorderFor`): flushed and stopped when the leading runnables have stopped, before
   * the Lease is released. `InvalidOptionsError` without a client.
   */
  eventRecorder(options: ManagerRecorderOptions): EventRecorder;
  /** Its phase now, then each change. */
  readonly phase$: Observable<ManagerPhase>;
  /** True while the leading runnables run (a term, or from start to stop without an election). */
  isLeading(): boolean;
  /** True once the caches synced and until the manager stops: the readiness of the process. */
  isWarm(): boolean;
  /** The runnables added, in order. */
  runnables(): readonly Runnable[];
  /** Adds a runnable (a `Controller` is one); before `start()` only. Returns the manager. */
  add(runnable: Runnable): Manager;
  /**
   * Starts the servers, the always-running runnables and the factory, waits for the caches to sync,
   * then campaigns (or, without an election, starts the leading runnables). Resolves once warm and
   * campaigning; rejects (and stops what started) when a runnable or the sync fails.
   */
  start(): Promise<void>;
  /**
   * Stops in controller-runtime's order: the leading runnables stop taking work and their reconciles
   * are aborted and awaited up to `gracefulShutdownMs`; then the Lease is released; then the other
   * runnables and the factory stop; the servers last. Idempotent; resolves once stopped.
   */
  stop(): Promise<void>;
  /** Resolves once the manager stopped (after `stop()`, a signal, or a failed start). */
  readonly done: Promise<void>;
  /** Stops on the first SIGINT or SIGTERM (or `signals`); a second one exits with code 1. Returns the manager. */
  stopOnSignals(signals?: readonly string[], source?: SignalSource): Manager;
}

/**
 * A manager of controllers: add them (and servers, or work of your own), start it, and it stops
 * on a signal in the right order. Controllers need leadership unless they say otherwise.
 *
 * @example
 * const mgr = createManager({ factory, client: kubeApiClient(kc), leaderElection: { namespace: 'default', name: 'reaper', identity }, logger });
 * controllerFor(mgr, pods, { name: 'reaper' }).reconcile(fn); // added to mgr, writing through its client
 * await mgr.stopOnSignals().start();
 * await mgr.done;
 *
 * Caveat: a reconcile that ignores its `signal` past `gracefulShutdownMs` still runs when the Lease
 * is released (logged as an error): another replica may then write beside it.
 */
export function createManager(options: ManagerOptions): Manager {
  const { factory, client } = checkOptions(options);
  const leaderElection = electionOf(options.leaderElection, client);
  const recorders: EventRecorder[] = [];
  const logger = options.logger ?? console;
  const added: { runnable: Runnable; stage: RunStage }[] = [];
  const phase$ = new BehaviorSubject<ManagerPhase>('new');
  let [warm, leading] = [false, false];
  const running: Record<'server' | 'always', RunningWork[]> = { server: [], always: [] };
  let term: { stop(): Promise<void> } | undefined;
  let termSub: Subscription | undefined;
  let stopping: Promise<void> | undefined;
  let markDone!: () => void;
  const done = new Promise<void>((resolve) => (markDone = resolve));
  const of = (stage: RunStage) => added.filter((a) => a.stage === stage).map((a) => a.runnable);
  const setLeading = (on: boolean) => (leading = on);
  const startTerm = () => (term = startLeadingTerm(of('leading'), logger, () => void manager.stop(), setLeading));
  const stopTermWithin = () => stopWithin(term, options.gracefulShutdownMs ?? 30_000, options.scheduler ?? asyncScheduler, logger);
  const manager: Manager = {
    factory,
    logger,
    client,
    election: leaderElection,
    eventRecorder(o) {
      if (stopping) throw new ManagerError('ManagerStopped', 'eventRecorder: the manager is stopping');
      return recorders[recorders.push(recorderOn(client, o, instanceOf(options.leaderElection))) - 1];
    },
    phase$: phase$.asObservable(),
    isLeading: () => leading,
    isWarm: () => warm,
    runnables: () => added.map((a) => a.runnable),
    add(runnable) {
      added.push({ runnable, stage: stageToAdd(runnable, phase$.value, added) });
      return manager;
    },
    async start() {
      if (phase$.value !== 'new') throw new ManagerError('ManagerStopped', `the manager is ${phase$.value}: start() runs once`);
      phase$.next('starting');
      try {
        running.server = await startAll(of('server'));
        running.always = await startAll(of('always'));
        factory.start();
        await factory.waitForCacheSync({ timeoutMs: options.cacheSyncTimeoutMs ?? 120_000 });
      } catch (error) {
        logger.error({ error }, 'the manager failed to start');
        await manager.stop();
        throw error;
      }
      if (stopping) return; // stopped while warming up
      warm = true;
      phase$.next('running');
      logger.info({ runnables: added.length }, leaderElection ? 'caches synced: campaigning' : 'caches synced: starting');
      if (leaderElection === undefined) startTerm();
      else termSub = whileLeading(leaderElection, startTerm).subscribe({ error: () => void manager.stop() });
    },
    stop: () =>
      (stopping ??= (async () => {
        phase$.next('stopping');
        warm = false;
        logger.info({}, 'stopping: leading runnables first');
        await stopTermWithin();
        await stopAll(recorders); // the term's Events written while the Lease is held
        termSub?.unsubscribe(); // the term already stopped, or is left past its deadline
        await leaderElection?.stop(); // releases the Lease when held
        await stopAll(running.always);
        factory.stop();
        await stopAll(running.server);
        phase$.next('stopped');
        phase$.complete();
        logger.info({}, 'stopped');
        markDone();
      })()),
    done,
    stopOnSignals(signals = ['SIGINT', 'SIGTERM'], source = (globalThis as { process?: SignalSource }).process) {
      stopOnSignals(manager, () => stopping !== undefined, signals, source);
      return manager;
    },
  };
  return manager;
}

function checkOptions(options: ManagerOptions): ManagerOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionsError('createManager needs options');
  const f = options.factory as Partial<InformerFactory> | undefined;
  if (typeof f?.start !== 'function' || typeof f.waitForCacheSync !== 'function')
    throw new InvalidOptionsError('createManager: factory must be an InformerFactory');
  if (options.client !== undefined && !isApiClient(options.client))
    throw new InvalidOptionsError('createManager: client must be an ApiClient (request)');
  const e = options.leaderElection;
  if (e !== undefined && (typeof e !== 'object' || e === null))
    throw new InvalidOptionsError('createManager: leaderElection must be its options or a LeaderElection');
  if (options.logger !== undefined && !isLogger(options.logger))
    throw new InvalidOptionsError('createManager: logger must have error, warn and info (pino, console)');
  // Any length: the deadline is a long timer, the sync's limit waitForCacheSync's own.
  for (const key of ['gracefulShutdownMs', 'cacheSyncTimeoutMs'] as const) checkDuration(`createManager: ${key}`, options[key], 0);
  return options;
}

/** The election of the option: made on the manager's client from options, or the one given. */
function electionOf(option: ManagerOptions['leaderElection'], client: ApiClient | undefined): LeaderElection | undefined {
  if (option === undefined || isElection(option)) return option;
  if (client === undefined) throw new InvalidOptionsError("createManager: leaderElection options need the manager's client");
  return elect({ ...option, client });
}

function isElection(option: ManagerOptions['leaderElection']): option is LeaderElection {
  return typeof (option as Partial<LeaderElection>).stop === 'function';
}

/** The stage `runnable` runs in; `InvalidOptionsError` for a bad one, one added after start, or a name taken. */
function stageToAdd(runnable: Runnable, phase: ManagerPhase, added: readonly { runnable: Runnable }[]): RunStage {
  const stage = stageOf(runnable);
  if (phase !== 'new') throw new InvalidOptionsError(`runnable ${runnable.name}: add it before start()`);
  if (added.some((a) => a.runnable.name === runnable.name))
    throw new InvalidOptionsError(`the manager already runs a runnable named ${runnable.name}`);
  return stage;
}

/** A recorder writing through the manager's `client`; the election's identity is its default instance. */
function recorderOn(client: ApiClient | undefined, o: ManagerRecorderOptions, identity: string | undefined): EventRecorder {
  if (client === undefined) throw new InvalidOptionsError('eventRecorder: the manager has no client');
  return createEventRecorder({ ...o, client, reportingInstance: (o?.reportingInstance ?? identity)! });
}

/** The election's identity, when the manager made it from options. */
function instanceOf(option: ManagerOptions['leaderElection']): string | undefined {
  return option === undefined || isElection(option) ? undefined : option.identity;
}

/** One term of leadership: the leading runnables started; `stop()` stops them once, whoever calls it. */
function startLeadingTerm(
  runnables: Runnable[],
  logger: Logger,
  failed: () => void,
  setLeading: (on: boolean) => void,
): { stop(): Promise<void> } {
  let works: Promise<RunningWork[]> | undefined = startAll(runnables).then((w) => {
    setLeading(true);
    logger.info({ runnables: w.length }, 'leading: runnables started');
    return w;
  });
  works.catch((error: unknown) => {
    logger.error({ error }, 'a leading runnable failed to start: stopping');
    failed();
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        const w = await works?.catch(() => []);
        works = undefined;
        await stopAll(w ?? []);
        setLeading(false);
      })()),
  };
}

/** Stops `term`, waiting for it at most `graceMs` (then logs that it still runs). */
async function stopWithin(
  term: { stop(): Promise<void> } | undefined,
  graceMs: number,
  scheduler: SchedulerLike,
  logger: Logger,
): Promise<void> {
  if (term === undefined) return;
  // race() drops the loser: a deadline left running would hold the process up to graceMs after its end.
  const outcome = await firstValueFrom(
    race(from(term.stop()).pipe(map(() => 'stopped' as const)), timerAfter(graceMs, scheduler).pipe(map(() => 'late' as const))),
  );
  if (outcome === 'late')
    logger.error({ gracefulShutdownMs: graceMs }, 'leading runnables still running after the graceful shutdown period');
}

/** Stops `manager` on the first of `signals` from `source`; a second one, while stopping, exits with code 1. */
function stopOnSignals(manager: Manager, isStopping: () => boolean, signals: readonly string[], source: SignalSource | undefined): void {
  if (source === undefined) throw new InvalidOptionsError('stopOnSignals: no process to listen to; pass a source');
  const listeners = signals.map((signal) => {
    const listener = () => {
      if (isStopping()) return void source.exit(1);
      manager.logger.info({ signal }, 'signal received: stopping');
      void manager.stop();
      source.once(signal, listener); // the second one exits
    };
    source.once(signal, listener);
    return [signal, listener] as const;
  });
  void manager.done.then(() => listeners.forEach(([s, l]) => source.off(s, l)));
}

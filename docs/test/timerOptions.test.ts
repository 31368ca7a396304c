/**
 * Every timer option of every public entry point, walked. JavaScript timers hold at most 2³¹−1 ms
 * (~24.8 days): past it Node fires after 1 ms, so a long time limit gives up at once and a long
 * period is a busy loop. Each option either waits a value of 2³¹ ms or more out, or refuses it with
 * a typed error naming the option and its limit; NaN, negative, fractional and infinite values are
 * refused or do what the option's doc comment says. The guards below fail when a duration option
 * appears in the public types (or a duration flag on the command line) without a row here.
 *
 * The probes run on the library's default timers over jest's fake timers, which keep Node's limit
 * (a `TestScheduler` has none, so it could not show the bug): virtual time, nothing waited for.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { ApiStatusError } from '@rxinformer/apiserver-sim';
import { InvalidReconcileResultError } from '@rxinformer/controller';
import { InvalidOptionsError } from '@rxinformer/core';
import { InvalidOptionsError as EnvtestOptionsError } from '@rxinformer/envtest';
import {
  flag,
  HUB_USAGE,
  HubArgsError,
  LIVE_USAGE,
  LiveOptionsError,
  SHARDED_USAGE,
  ShardedArgsError,
  SOAK_USAGE,
  SoakArgsError,
} from './timerOptions/cliProbes.ts';
import * as channel from './timerOptions/channelProbes.ts';
import * as core from './timerOptions/coreProbes.ts';
import * as envtestHub from './timerOptions/envtestHubProbes.ts';
import * as manager from './timerOptions/managerProbes.ts';
import * as pkg from './timerOptions/packageProbes.ts';
import { advance, fakeTimers, LONG_MS, type Probe, type Started } from './timerOptions/probe.ts';
import { publicTimerOptions } from './timerOptions/publicTimerOptions.ts';
import * as sim from './timerOptions/simProbes.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_TIMER_S = Math.floor(MAX_TIMER_MS / 1000);

/** One timer option and what each kind of value does. */
interface Row {
  /** `package:Owner.option` as the walk names it, `Owner.method(parameter)`, or `cli:command --flag`. */
  option: string;
  probe: Probe;
  /** The option's unit. Default ms. */
  unit?: 's';
  /**
   * 2³¹ ms or more: `waits` it out (never fires early, fires when due); `refused` past `limit`
   * (inclusive limit accepted unless `limitStarts`); `passed on` (a value for a server or client,
   * no timer here: accepted as is).
   */
  long: 'waits' | 'passed on' | { refusedAbove: number; limitStarts?: true };
  /** The error class of every refusal. */
  error: abstract new (...args: never[]) => Error;
  /** `Infinity`: never fires, refused, or means "no cap" (accepted). */
  infinity: 'never' | 'refused' | 'no cap';
  /** A negative value: refused (default), or at once (client-go's `AddAfter`). */
  negative?: 'at once';
  /** A fraction (1.5): refused, or accepted (default). */
  fraction?: 'refused';
  /** The name the error message must carry. Default: the option's own. */
  named?: string;
  /** The effect is only looked for up to this much fake time: the code polls a clock (no timer holds the wait). */
  checkedUpToMs?: number;
}

const E = InvalidOptionsError;
type Extra = Partial<Row>;
/** A row whose 2³¹ ms waits it out; `infinity` as in `Row`. */
const waits = (option: string, probe: Probe, infinity: Row['infinity'], extra: Extra = {}): Row => ({
  option,
  probe,
  long: 'waits',
  error: E,
  infinity,
  ...extra,
});
/** A row refused past `limit` (also `Infinity`). */
const upTo = (option: string, probe: Probe, limit: number, extra: Extra = {}): Row => ({
  option,
  probe,
  long: { refusedAbove: limit },
  error: E,
  infinity: 'refused',
  ...extra,
});
/** A row handed on as is (no timer here). */
const handedOn = (option: string, probe: Probe, extra: Extra = {}): Row => ({
  option,
  probe,
  long: 'passed on',
  error: E,
  infinity: 'refused',
  ...extra,
});
/** A refused row whose limit itself cannot start (the other rules around it refuse it). */
const near = (limit: number) => ({ long: { refusedAbove: limit, limitStarts: true as const } });
const s = { unit: 's' } as const;

/** Every timer option of the public API. */
const TABLE: Row[] = [
  // core
  waits('core:CacheSyncOptions.timeoutMs', core.cacheSyncTimeout, 'never'),
  waits('core:InformerFactoryOptions.releaseGraceMs', core.releaseGrace, 'never'),
  upTo('core:SharedInformerOptions.resyncPeriodMs', core.resyncPeriod('informer'), MAX_TIMER_MS),
  upTo('core:InformerFactoryOptions.resyncPeriodMs', core.resyncPeriod('factory'), MAX_TIMER_MS),
  upTo('core:EventHandlerOptions.resyncPeriodMs', core.resyncPeriod('handler'), MAX_TIMER_MS),
  waits('core:HttpLimitOptions.responseTimeoutMs', core.responseTimeout('responseTimeoutMs'), 'refused'),
  waits('core:HttpLimitOptions.watchOpenTimeoutMs', core.responseTimeout('watchOpenTimeoutMs'), 'refused'),
  upTo('core:InformerSnapshotOptions.intervalMs', envtestHub.snapshotInterval('informer'), MAX_TIMER_MS),
  upTo('core:FactorySnapshotOptions.intervalMs', envtestHub.snapshotInterval('factory'), MAX_TIMER_MS),
  waits('core:ChannelClientOptions.heartbeatMs', channel.clientHeartbeat, 'refused'),
  waits('core:ChannelClientOptions.idleTimeoutMs', channel.clientIdle, 'refused'),
  waits('core:InformerServerOptions.bookmarkIntervalMs', channel.serverBookmarks, 'refused'),
  waits('core:InformerServerOptions.continueTtlMs', channel.continueTtl, 'refused'),
  waits('core:InformerServerOptions.rvWaitMs', channel.rvWait, 'refused'),
  waits('core:InformerServerOptions.idleTimeoutMs', channel.serverIdle, 'refused'),
  upTo('core:InformerServerOptions.batchMs', channel.serverBatch, 60_000),
  waits('core:InformerServerOptions.historyMs', channel.serverHistory, 'never'),
  waits('core:ReflectorOptions.idleGraceMs', core.idleWatch('idleGraceMs'), 'refused'),
  waits('core:ReflectorOptions.minWatchTimeoutSeconds', core.idleWatch('minWatchTimeoutSeconds'), 'refused', s),
  waits('core:ReflectorOptions.stallCheck.afterMs', core.stallCheck, 'refused'),
  waits('core:BackoffOptions.initialMs', core.reflectorBackoff('initialMs'), 'refused'),
  waits('core:BackoffOptions.maxMs', core.reflectorBackoff('maxMs'), 'refused'),
  waits('core:BackoffOptions.resetAfterMs', core.backoffReset, 'refused'),
  waits('core:StreamingListMemoryOptions.recheckAfterMs', core.streamingRecheck, 'never'),
  upTo('core:BackoffOptions.jitter', core.backoffJitter, 1),
  waits('core:WorkQueueOptions.baseDelayMs', core.rateLimitedDelay('queue options', 'baseDelayMs'), 'refused'),
  waits('core:WorkQueueOptions.maxDelayMs', core.rateLimitedDelay('queue options', 'maxDelayMs'), 'refused'),
  waits('core:ExponentialFailureOptions.baseDelayMs', core.rateLimitedDelay('exponential limiter', 'baseDelayMs'), 'refused'),
  waits('core:ExponentialFailureOptions.maxDelayMs', core.rateLimitedDelay('exponential limiter', 'maxDelayMs'), 'refused'),
  waits('core:WorkQueue.addAfter(ms)', core.addAfter, 'refused', { negative: 'at once', named: 'addAfter' }),
  waits('core:WorkQueue.addDebounced(ms)', core.addDebounced, 'refused', { negative: 'at once', named: 'addDebounced' }),
  waits('core:WorkQueue.hold(timeoutMs)', core.hold, 'refused', { named: 'hold' }),
  waits('core:scheduleAfter(ms)', core.longTimer('scheduleAfter'), 'never', { named: 'delay' }),
  waits('core:timerAfter(ms)', core.longTimer('timerAfter'), 'never', { named: 'delay' }),
  waits('core:intervalEvery(ms)', core.longTimer('intervalEvery'), 'never', { named: 'period' }),
  waits('core:afterLong(ms)', core.longTimer('afterLong'), 'never', { named: 'delay' }),
  upTo('core:LeaseTiming.leaseDurationMs', core.leaseTiming('leaseDurationMs'), MAX_TIMER_MS, {
    ...near(MAX_TIMER_MS),
    fraction: 'refused',
  }),
  upTo('core:LeaseTiming.renewDeadlineMs', core.leaseTiming('renewDeadlineMs'), MAX_TIMER_MS, near(MAX_TIMER_MS)),
  upTo('core:LeaseTiming.retryPeriodMs', core.leaseTiming('retryPeriodMs'), MAX_TIMER_MS, near(MAX_TIMER_MS)),
  // Refused through retryPeriodMs × (1 + jitter), which one timer must hold.
  upTo('core:LeaseTiming.jitter', core.leaseTiming('jitter'), MAX_TIMER_MS, near(MAX_TIMER_MS)),
  // client-node
  waits('client-node:DiscoveryOptions.timeoutMs', pkg.discoveryTimeout('createDiscovery'), 'never'),
  waits('client-node:KubeInformerFactoryOptions.discoveryTimeoutMs', pkg.discoveryTimeout('factory'), 'never'),
  ...(['readIdleTimeoutMs', 'pingTimeoutMs', 'connectTimeoutMs'] as const).map((o) =>
    upTo(`client-node:Http2Options.${o}`, envtestHub.http2Option(o), MAX_TIMER_MS, { fraction: 'refused' }),
  ),
  waits('client-node:KubeTransportOptions.execTimeoutMs', pkg.execTimeout, 'refused'),
  waits('client-node:KubeconfigFolderOptions.debounceMs', pkg.folderDebounce, 'refused'),
  // controller
  upTo('controller:ControllerBuilderOptions.debounceMs', pkg.builderOption('debounceMs'), MAX_TIMER_MS),
  upTo('controller:ControllerBuilderOptions.readYourWrites.timeoutMs', pkg.builderOption('readYourWrites.timeoutMs'), MAX_TIMER_MS),
  upTo('controller:ControllerBuilderOptions.reconcileTimeoutMs', pkg.builderOption('reconcileTimeoutMs'), MAX_TIMER_MS),
  // A window compared with the clock when a failure is logged: no timer holds it.
  handedOn('controller:ControllerBuilderOptions.logThrottleMs', pkg.builderOption('logThrottleMs')),
  waits('controller:ManagerOptions.gracefulShutdownMs', manager.managerGrace, 'refused'),
  handedOn('controller:ManagerOptions.cacheSyncTimeoutMs', manager.managerCacheSync), // waitForCacheSync's timeoutMs, a row
  waits('controller:ReconcileResult.requeueAfterMs', pkg.builderRequeueAfter, 'refused', { error: InvalidReconcileResultError }),
  waits('controller:EventRecorderOptions.seriesRefreshMs', pkg.seriesRefresh, 'never'),
  waits('controller:EventRecorderOptions.seriesWindowMs', pkg.seriesWindow, 'refused'),
  waits('controller:EventRecorderOptions.refillMs', pkg.spamRefill, 'refused'),
  waits('controller:RetryBackoff.durationMs', pkg.retryBackoff('durationMs'), 'refused'),
  waits('controller:RetryBackoff.capMs', pkg.retryBackoff('capMs'), 'no cap'),
  waits('controller:RetryBackoff.jitter', pkg.retryBackoff('jitter'), 'refused'),
  // prometheus: thresholds compared with the informers' clock
  waits('prometheus:ProbesOptions.failingAfterMs', pkg.healthThreshold('failingAfterMs'), 'never'),
  waits('prometheus:ProbesOptions.silentAfterMs', pkg.healthThreshold('silentAfterMs'), 'never'),
  // envtest: short bounds of its own (it depends on no other package)
  upTo('envtest:TestEnvironmentOptions.startTimeoutMs', pkg.envtestStartTimeout, 3_600_000, {
    ...near(3_600_000),
    error: EnvtestOptionsError,
  }),
  upTo('envtest:CRDInstallOptions.timeoutMs', envtestHub.crdTimeout('install'), MAX_TIMER_MS, { error: EnvtestOptionsError }),
  upTo('envtest:uninstallCRDs.timeoutMs', envtestHub.crdTimeout('uninstall'), MAX_TIMER_MS, { error: EnvtestOptionsError }),
  upTo('envtest:EventuallyOptions.timeoutMs', envtestHub.pollOption('eventually', 'timeoutMs'), MAX_TIMER_MS, {
    error: EnvtestOptionsError,
  }),
  upTo('envtest:EventuallyOptions.intervalMs', envtestHub.pollOption('eventually', 'intervalMs'), MAX_TIMER_MS, {
    error: EnvtestOptionsError,
  }),
  upTo('envtest:ConsistentlyOptions.durationMs', envtestHub.pollOption('consistently', 'durationMs'), MAX_TIMER_MS, {
    error: EnvtestOptionsError,
  }),
  upTo('envtest:ConsistentlyOptions.intervalMs', envtestHub.pollOption('consistently', 'intervalMs'), MAX_TIMER_MS, {
    error: EnvtestOptionsError,
  }),
  upTo('envtest:FaultProxy.setLatency(ms)', pkg.faultProxy('setLatency'), 600_000, { error: EnvtestOptionsError, named: 'latency' }),
  handedOn('envtest:InjectedFailure.retryAfterSeconds', pkg.faultProxy('retryAfterSeconds'), {
    ...s,
    error: EnvtestOptionsError,
    fraction: 'refused',
  }),
  // apiserver-sim, on its default Node timers
  waits('apiserver-sim:ApiServerOptions.bookmarkIntervalMs', sim.bookmarkInterval, 'never'),
  waits('apiserver-sim:ApiServerOptions.defaultWatchTimeoutSeconds', sim.defaultWatchTimeout, 'refused', s),
  // A query parameter: refused as kube-apiserver refuses it, with a 400.
  waits('apiserver-sim:WatchSpec.timeoutSeconds', sim.clientWatchTimeout, 'refused', {
    ...s,
    error: sim.RefusedRequest,
    fraction: 'refused',
    named: 'ParseInt',
  }),
  // Polls the store every 25 ms against a clock deadline: no timer holds the wait, looked at for 10 s.
  waits('apiserver-sim:ApiServerOptions.tooLargeWaitMs', sim.tooLargeWait, 'refused', { checkedUpToMs: 10_000 }),
  waits('apiserver-sim:ApiServerOptions.namespaceDeletionDelayMs', sim.namespaceDeletion, 'refused'),
  waits('apiserver-sim:ObjectStoreOptions.namespaceDeletionDelayMs', sim.namespaceDeletion, 'refused'),
  waits('apiserver-sim:ApiServerOptions.defaultPodGracePeriodSeconds', sim.podGrace('defaultPodGracePeriodSeconds'), 'refused', s),
  waits('apiserver-sim:ObjectStoreOptions.defaultPodGracePeriodSeconds', sim.podGrace('defaultPodGracePeriodSeconds'), 'refused', s),
  waits('apiserver-sim:ApiServerOptions.graceMsPerSecond', sim.podGrace('graceMsPerSecond'), 'refused'),
  waits('apiserver-sim:ObjectStoreOptions.graceMsPerSecond', sim.podGrace('graceMsPerSecond'), 'refused'),
  waits('apiserver-sim:DeleteOptions.gracePeriodSeconds', sim.podGrace('gracePeriodSeconds'), 'refused', {
    ...s,
    error: ApiStatusError,
    fraction: 'refused',
  }),
  waits('apiserver-sim:HistoryOptions.maxAgeMs', sim.historyAge, 'never'),
  waits('apiserver-sim:Faults.latency(ms)', sim.latency('ms'), 'refused', { named: 'latency ms' }),
  // A random part of the same wait as latency(ms): accepted at any length, its moment not predictable.
  handedOn('apiserver-sim:Faults.latency(jitterMs)', sim.latency('jitterMs'), { named: 'latency jitterMs' }),
  handedOn('apiserver-sim:FailOptions.retryAfterSeconds', sim.failRetryAfter, { ...s, fraction: 'refused' }),
  // hub
  waits('hub:HubOptions.metricsIntervalMs', envtestHub.hubMetricsInterval, 'never'),
  waits('hub:SubjectAccessReviewAuthorizerOptions.recheckIntervalMs', envtestHub.reviewRecheck, 'never'),
  waits('hub:TokenReviewAuthenticatorOptions.recheckIntervalMs', envtestHub.tokenRecheck, 'never'),
  // Cache lifetimes compared with the scheduler's clock: no timer holds them; Infinity never expires.
  handedOn('hub:SubjectAccessReviewAuthorizerOptions.allowTtlMs', envtestHub.reviewCacheOption('allowTtlMs'), { infinity: 'no cap' }),
  handedOn('hub:SubjectAccessReviewAuthorizerOptions.denyTtlMs', envtestHub.reviewCacheOption('denyTtlMs'), { infinity: 'no cap' }),
  handedOn('hub:TokenReviewAuthenticatorOptions.successTtlMs', envtestHub.tokenCacheOption('successTtlMs'), { infinity: 'no cap' }),
  handedOn('hub:TokenReviewAuthenticatorOptions.failureTtlMs', envtestHub.tokenCacheOption('failureTtlMs'), { infinity: 'no cap' }),
  // the command line: refused past one timer (run without --duration to run until stopped)
  upTo('cli:rxinformer --duration', flag('live', '--duration'), MAX_TIMER_S, { ...s, error: LiveOptionsError }),
  upTo('cli:rxinformer --interval', flag('live', '--interval'), MAX_TIMER_S, { ...s, error: LiveOptionsError }),
  upTo('cli:rxinformer --fault-every', flag('live', '--fault-every'), 3600, { ...s, error: LiveOptionsError }),
  upTo('cli:rxinformer soak --chaos-seconds', flag('soak', '--chaos-seconds'), MAX_TIMER_S, { ...s, error: SoakArgsError }),
  upTo('cli:rxinformer soak --deadline-seconds', flag('soak', '--deadline-seconds'), MAX_TIMER_S, { ...s, error: SoakArgsError }),
  upTo('cli:rxinformer hub --review-cache-seconds', flag('hub', '--review-cache-seconds'), MAX_TIMER_S, { ...s, error: HubArgsError }),
  upTo('cli:rxinformer hub --recheck-seconds', flag('hub', '--recheck-seconds'), MAX_TIMER_S, { ...s, error: HubArgsError }),
  ...(['--lease-duration-ms', '--renew-deadline-ms', '--retry-period-ms'] as const).map((f) =>
    upTo(`cli:rxinformer demo-sharded ${f}`, flag('demo-sharded', f), MAX_TIMER_MS, { error: ShardedArgsError, fraction: 'refused' }),
  ),
];

/** Names of the walk that are durations but not options a user sets: what they are instead. */
const NOT_OPTIONS: Record<string, string> = {
  'core:CacheSyncTimeoutError.timeoutMs': 'an error records the limit that passed',
  'core:RequestTimeoutError(timeoutMs)': 'an error records the limit that passed',
  'controller:ReadYourWritesTimeoutError(timeoutMs)': 'an error records the limit that passed',
  'controller:ReconcileTimeoutError(timeoutMs)': 'an error records the limit that passed',
  'client-node:ConnectionUnresponsiveError(pingTimeoutMs)': 'an error records the limit that passed',
  'client-node:StreamIdleError(ms)': 'an error records the silence it saw',
  'core:WatchIdleError(ms)': 'an error records the silence it saw',
  'core:WatchStalledError(silentMs)': 'an error records the silence it saw',
  'envtest:StartTimeoutError(waitedMs)': 'an error records how long it waited',
  'core:HandlerMetrics.lagMs': 'a measurement the informer reports',
  'core:ReflectorStatus.backoffMs': 'a measurement the reflector reports (its backoff options are rows)',
  'core:ReflectorState.silentMs': "the reflector's state, for its pure step function",
  'core:ResolvedReflectorOptions.stallCheckMs': 'resolved from ReflectorOptions.stallCheck.afterMs (a row)',
  'core:ListOptions.timeoutSeconds': 'a request parameter the reflector draws from minWatchTimeoutSeconds; the server keeps the time',
  'core:WatchOptions.timeoutSeconds': 'a request parameter the reflector draws from minWatchTimeoutSeconds; the server keeps the time',
  'core:KubeApiError.retryAfterSeconds': "a server's answer; the backoff caps it at its maxMs (a row)",
  'core:Status.details.retryAfterSeconds': "a server's answer",
  'core:LeaseSpec.leaseDurationSeconds': "a Lease's data, written from LeaseTiming.leaseDurationMs (a row)",
  'core:ObjectMeta.deletionGracePeriodSeconds': "an object's data",
  'core:microTime(ms)': 'formats a time',
  'core:ArmTimer(ms)': "the delay afterLong hands the timer a caller arms: at most MAX_TIMER_MS (afterLong's own is a row)",
  'apiserver-sim:createLoadGenerator.churn.ratePerSecond': 'a rate (changes per second), ticking every 1 to 100 ms',
  'controller:DeleteOptions.gracePeriodSeconds': "a request parameter; the server keeps the time (the simulator's is a row)",
  'core:formatAge(nowMs)': 'formats a time',
  'core:humanDuration(ms)': 'formats a duration',
  'core:podCells(nowMs)': 'the time a row is printed at (its Age)',
  'core:nodeCells(nowMs)': 'the time a row is printed at (its Age)',
  'core:deploymentCells(nowMs)': 'the time a row is printed at (its Age)',
  'envtest:CRDNotServedError(waitedMs)': 'an error records how long it waited',
  'envtest:ClusterUnreachableError(waitedMs)': 'an error records how long it waited',
  'envtest:EventuallyTimeoutError(timeoutMs)': 'an error records the limit that passed',
  'envtest:ConsistentlyFailedError(durationMs)': 'an error records how long it checked',
  'hub:HubLimits.maxMessagesPerSecond': 'a rate (messages per second) of a token bucket, no timer',
  'apiserver-sim:timestamp(ms)': 'formats a time',
  'apiserver-sim:WatchSpec.bookmarkIntervalMs': 'set from ApiServerOptions.bookmarkIntervalMs (a row)',
};

const inUnit = (row: Row, ms: number): number => (row.unit === 's' ? Math.ceil(ms / 1000) : ms);
const LONG = (row: Row): number => inUnit(row, LONG_MS);

/** The error `probe(value)` throws or rejects with, or undefined when it starts (then stopped). */
async function refusal(row: Row, value: number): Promise<Error | undefined> {
  let started: Started;
  try {
    started = await row.probe(value);
  } catch (e) {
    return e as Error;
  }
  await started.stop();
  return undefined;
}

async function expectRefused(row: Row, value: number, limit?: number): Promise<void> {
  const error = await refusal(row, value);
  expect(error).toBeInstanceOf(row.error);
  const text = `${error?.message} ${JSON.stringify(error)}`;
  const name =
    row.named ??
    row.option
      .split(/[.:( ]/)
      .at(-1)!
      .replace(/\)$/, '');
  expect(text).toContain(name);
  if (limit !== undefined) expect(text).toContain(String(limit));
}

/** Starts `value`, advances the fake clock `ms`, and answers whether the effect happened. */
async function firedAfter(row: Row, value: number, ms: (s: Started) => number): Promise<boolean> {
  const started = await row.probe(value);
  try {
    await advance(ms(started));
    return await started.fired();
  } finally {
    await started.stop();
  }
}

const dueOf = (row: Row, value: number, s: Started): number => s.dueMs ?? (row.unit === 's' ? value * 1000 : value);

beforeEach(fakeTimers);
afterEach(() => {
  jest.useRealTimers();
});

describe('the table of timer options', () => {
  it('should list every duration option of the public types, and only those', () => {
    const walked = publicTimerOptions();
    const listed = new Set(TABLE.map((r) => r.option).filter((o) => !o.startsWith('cli:')));
    const known = new Set([...listed, ...Object.keys(NOT_OPTIONS)]);
    // Non-empty: a duration option appeared without a row (add one), or a row names an option that is gone.
    expect({ missing: walked.filter((o) => !known.has(o)), stale: [...known].filter((o) => !walked.includes(o)) }).toEqual({
      missing: [],
      stale: [],
    });
  }, 180_000);

  it('should list every duration flag of the command line', () => {
    const usage = {
      rxinformer: LIVE_USAGE,
      'rxinformer soak': SOAK_USAGE,
      'rxinformer demo-sharded': SHARDED_USAGE,
      'rxinformer hub': HUB_USAGE,
    };
    const flags = Object.entries(usage).flatMap(([command, text]) =>
      [...text.matchAll(/^\s+(--[a-z-]+) (\w+)(.*)$/gm)]
        .filter(([, f, arg, said]) => (arg === 'S' && /second/.test(said)) || /-(ms|seconds)$/.test(f))
        .map(([, f]) => `cli:${command} ${f}`),
    );
    expect(flags.length).toBeGreaterThan(5);
    expect(flags.filter((f) => !TABLE.some((r) => r.option === f))).toEqual([]);
  });
});

describe.each(TABLE.map((row) => [row.option, row] as const))('%s', (_name, row) => {
  if (row.long === 'waits') {
    it('should wait a value of 2³¹ ms or more out: not fired a millisecond early, fired when due', async () => {
      const value = LONG(row);
      const early = (s: Started) => Math.min(dueOf(row, value, s) - 1, row.checkedUpToMs ?? Infinity);
      expect(await firedAfter(row, value, early)).toBe(false);
      if (row.checkedUpToMs === undefined) expect(await firedAfter(row, value, (s) => dueOf(row, value, s))).toBe(true);
    }, 60_000);
  } else if (row.long === 'passed on') {
    it('should take a value of 2³¹ ms or more as is (it is handed on, no timer here)', async () => {
      expect(await refusal(row, LONG(row))).toBeUndefined();
    });
  } else {
    const { refusedAbove: limit, limitStarts } = row.long;
    it(`should refuse a value past ${limit}, naming the option and the limit`, async () => {
      await expectRefused(row, Math.max(LONG(row), limit + 1), limit);
      if (!limitStarts) expect(await refusal(row, limit)).toBeUndefined();
    });
  }

  it(`should refuse NaN${row.negative ? '' : ' and a negative value'}${row.fraction ? ' and a fraction' : ''}`, async () => {
    await expectRefused(row, Number.NaN);
    if (!row.negative) await expectRefused(row, -1);
    if (row.fraction) await expectRefused(row, 1.5);
  });

  if (row.negative === 'at once')
    it('should take a negative value as "at once"', async () => {
      expect(await firedAfter(row, -1, () => 0)).toBe(true);
    });

  if (row.infinity === 'never')
    it('should never fire for Infinity', async () => {
      expect(await firedAfter(row, Infinity, () => 10 * LONG_MS)).toBe(false);
    });
  else if (row.infinity === 'refused') it('should refuse Infinity', () => expectRefused(row, Infinity));
  else it('should take Infinity as no cap', async () => expect(await refusal(row, Infinity)).toBeUndefined());
});

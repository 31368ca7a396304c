/**
 * Probes of core's timer options: each starts the part the option drives (a factory, a reflector,
 * a queue, a controller, an election) over a fake ListerWatcher, on core's default schedulers.
 */
import {
  createInformerFactory,
  createSharedInformer,
  createStreamingListMemory,
  KubeApiError,
  type KubeObject,
  type ReflectorStatus,
  type ResourceDescriptor,
} from '@rxinformer/core';
import { httpListerWatcher } from '@rxinformer/core/http';
import { leaderElection, type LeaseTiming } from '@rxinformer/core/leader-election';
import { reflector, type ReflectorOptions } from '@rxinformer/core/reflector';
import { afterLong, backoffSuccess, intervalEvery, nextBackoff, resolveBackoff, scheduleAfter, timerAfter } from '@rxinformer/core/time';
import { exponentialFailureRateLimiter, WorkQueue, type WorkQueueOptions } from '@rxinformer/core/workqueue';
import { fakeListerWatcher, FakeLeaseServer, page, testObject } from '@rxinformer/testing';
import { asyncScheduler, NEVER, of, throwError } from 'rxjs';
import { settledFlag, type Probe } from './probe.ts';

export const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

const serverError = () => new KubeApiError(500, { reason: 'InternalError' });

/** `waitForCacheSync({ timeoutMs })` on a factory whose list never answers: fired once it gives up. */
export const cacheSyncTimeout: Probe = (timeoutMs) => {
  const factory = createInformerFactory(() => fakeListerWatcher());
  factory.informerFor(pods);
  factory.start();
  const waited = factory.waitForCacheSync({ timeoutMs });
  const settled = settledFlag(waited);
  waited.catch(() => {});
  return { fired: settled, stop: () => factory.shutdown() };
};

/** A factory retained, then released: fired when it stops running, `releaseGraceMs` later. */
export const releaseGrace: Probe = (releaseGraceMs) => {
  const factory = createInformerFactory(() => fakeListerWatcher(), { releaseGraceMs });
  factory.informerFor(pods);
  factory.retain()();
  return { fired: () => !factory.isRunning(), stop: () => factory.shutdown() };
};

/** A shared informer, a factory or a handler made with `resyncPeriodMs` (refused or not: nothing runs). */
export const resyncPeriod =
  (where: 'informer' | 'factory' | 'handler'): Probe =>
  (resyncPeriodMs) => {
    if (where === 'informer') createSharedInformer(fakeListerWatcher(), { resyncPeriodMs }).shutdown();
    else if (where === 'factory') createInformerFactory(() => fakeListerWatcher(), { resyncPeriodMs }).shutdown();
    else {
      const informer = createSharedInformer(fakeListerWatcher());
      try {
        informer.addEventHandler({ onAdd: () => {} }, { resyncPeriodMs });
      } finally {
        informer.shutdown();
      }
    }
    return { fired: () => false, stop: () => {} };
  };

/** A list (or a watch) over an HTTP get that never answers: fired when the time limit's error comes. */
export const responseTimeout =
  (option: 'responseTimeoutMs' | 'watchOpenTimeoutMs'): Probe =>
  (ms) => {
    const get = () => new Promise<never>(() => {});
    let failed = false;
    const lw = httpListerWatcher(get, { path: '/api/v1/pods', [option]: ms });
    const onError = { error: () => (failed = true) };
    const sub = option === 'responseTimeoutMs' ? lw.list({}).subscribe(onError) : lw.watch({ resourceVersion: '1' }).subscribe(onError);
    return { fired: () => failed, stop: () => sub.unsubscribe() };
  };

/** A reflector over `lw` with `options`, its statuses collected. */
function runReflector(lw: ReturnType<typeof fakeListerWatcher>, options: ReflectorOptions) {
  const statuses: ReflectorStatus[] = [];
  const sub = reflector(lw, { random: () => 0, ...options }).subscribe((e) => {
    if (e.type === 'STATUS') statuses.push(e.status);
  });
  return { statuses, stop: () => sub.unsubscribe() };
}

/** A reflector watching a silent stream: fired when it gives the watch up as idle (it watches again). */
export const idleWatch =
  (option: 'idleGraceMs' | 'minWatchTimeoutSeconds'): Probe =>
  (value) => {
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([testObject('a', '1')], '1')));
    const options: ReflectorOptions =
      option === 'idleGraceMs'
        ? { idleGraceMs: value, minWatchTimeoutSeconds: 1, stallCheck: false }
        : { minWatchTimeoutSeconds: value, idleGraceMs: 0, stallCheck: false };
    const run = runReflector(lw, options);
    return { fired: () => lw.watchCalls.length > 1, stop: run.stop, dueMs: option === 'idleGraceMs' ? value + 1000 : value * 1000 };
  };

/** A reflector watching a silent stream: fired when the stall check lists (`limit=1`). */
export const stallCheck: Probe = (afterMs) => {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([testObject('a', '1')], '1')));
  const run = runReflector(lw, { stallCheck: { afterMs }, minWatchTimeoutSeconds: 10 ** 9 });
  return { fired: () => lw.listCalls.length > 1, stop: run.stop };
};

/** A reflector whose first list fails: fired when it lists again after its backoff. */
export const reflectorBackoff =
  (option: 'initialMs' | 'maxMs'): Probe =>
  (value) => {
    const lw = fakeListerWatcher();
    if (option === 'initialMs') {
      lw.scriptList(throwError(serverError));
      const run = runReflector(lw, { backoff: { initialMs: value, maxMs: Math.max(value, 30_000) } });
      return { fired: () => lw.listCalls.length > 1, stop: run.stop };
    }
    // 1 ms, then the cap: 2⁶⁰ ms would be next.
    lw.scriptList(throwError(serverError), throwError(serverError));
    const run = runReflector(lw, { backoff: { initialMs: 1, factor: 2 ** 60, maxMs: value } });
    return { fired: () => lw.listCalls.length > 2, stop: run.stop, dueMs: value + 1 };
  };

/** The backoff policy after a healthy period of `resetAfterMs`: fired once a failure starts over from `initialMs`. */
export const backoffReset: Probe = (resetAfterMs) => {
  const options = resolveBackoff({ initialMs: 1, maxMs: 2 ** 40, resetAfterMs });
  const healthy = backoffSuccess({ failures: 30 }, asyncScheduler.now());
  return {
    fired: () => nextBackoff(healthy, serverError(), asyncScheduler.now(), options, () => 0).delayMs === 1,
    stop: () => {},
  };
};

/** A server's refusal of streaming lists, remembered: fired when a list would stream again, `recheckAfterMs` later. */
export const streamingRecheck: Probe = (recheckAfterMs) => {
  const record = createStreamingListMemory({ recheckAfterMs }).of('v1');
  record.refused(asyncScheduler.now());
  return { fired: () => record.shouldStream(asyncScheduler.now()), stop: () => {} };
};

/** `resolveBackoff({ jitter })`: a fraction, checked when the reflector is made. */
export const backoffJitter: Probe = (jitter) => {
  resolveBackoff({ jitter });
  return { fired: () => false, stop: () => {} };
};

/** A queue whose key failed once: fired when `addRateLimited`'s delay (base and cap both `ms`) ends. */
export const rateLimitedDelay =
  (how: 'queue options' | 'exponential limiter', field: 'baseDelayMs' | 'maxDelayMs'): Probe =>
  (ms) => {
    // The other bound fits around `ms`, so the option probed is the one that refuses a bad value.
    const fits = Number.isFinite(ms) && ms >= 0;
    const delays =
      field === 'baseDelayMs' ? { baseDelayMs: ms, maxDelayMs: fits ? ms : 1000 } : { baseDelayMs: fits ? ms : 5, maxDelayMs: ms };
    const options: WorkQueueOptions<string> = how === 'queue options' ? delays : { rateLimiter: exponentialFailureRateLimiter(delays) };
    const queue = new WorkQueue<string>(options);
    queue.addRateLimited('key');
    return { fired: () => queue.length === 1, stop: () => queue.shutdown() };
  };

/** `queue.addAfter(key, ms)`: fired when the key is queued. */
export const addAfter: Probe = (ms) => queueProbe((queue) => queue.addAfter('key', ms));

/** `addDebounced('key', ms)`: fired when the key is queued. */
export const addDebounced: Probe = (ms) => queueProbe((queue) => queue.addDebounced('key', ms));

/** `hold('key', timeoutMs)` with an add put off meanwhile: fired when the hold ends and the add is made. */
export const hold: Probe = (ms) =>
  queueProbe((queue) => {
    queue.hold('key', ms);
    queue.add('key');
  });

/** A work queue after `start(queue)` (which may throw the option's error): fired once a key waits in it. */
function queueProbe(start: (queue: WorkQueue<string>) => void) {
  const queue = new WorkQueue<string>();
  try {
    start(queue);
  } catch (e) {
    void queue.shutdown();
    throw e;
  }
  return { fired: () => queue.length === 1, stop: () => queue.shutdown() };
}

/** A leader election made with one timing field set (the others fitting around it): refused or not, nothing runs. */
export const leaseTiming =
  (field: keyof LeaseTiming): Probe =>
  (value) => {
    // Near the limit, so the other rules (lease > renew deadline > retry period) hold around `value`.
    const timing: LeaseTiming = {
      leaseDurationMs: 2_147_483_000,
      renewDeadlineMs: 2_147_482_000,
      retryPeriodMs: 1000,
      jitter: 0,
      [field]: value,
    };
    const client = new FakeLeaseServer(asyncScheduler).client('me');
    leaderElection({ client, namespace: 'default', name: 'probe', identity: 'me', ...timing });
    return { fired: () => false, stop: () => {} };
  };

/** A shared informer (for the probes' health judged by `@rxinformer/prometheus`). */
export function failingInformer(): { informer: ReturnType<typeof createSharedInformer<KubeObject>>; stop(): void } {
  const lw = fakeListerWatcher();
  lw.scriptList(throwError(serverError));
  const informer = createSharedInformer(lw, { reflector: { backoff: { initialMs: 2 ** 50, maxMs: 2 ** 50 } } });
  informer.start();
  return { informer, stop: () => informer.shutdown() };
}

/** A synced shared informer whose watch stays silent. */
export function silentInformer(): { informer: ReturnType<typeof createSharedInformer<KubeObject>>; stop(): void } {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([testObject('a', '1')], '1')));
  lw.scriptWatch(NEVER);
  const informer = createSharedInformer(lw, { reflector: { minWatchTimeoutSeconds: 10 ** 9, stallCheck: false } });
  informer.start();
  return { informer, stop: () => informer.shutdown() };
}

/** core's timers themselves: fired when the work runs (the first tick of `intervalEvery`). */
export const longTimer =
  (which: 'scheduleAfter' | 'timerAfter' | 'intervalEvery' | 'afterLong'): Probe =>
  (ms) => {
    let fired = false;
    const fire = () => (fired = true);
    if (which === 'afterLong') {
      const cancel = afterLong(
        ms,
        Date.now,
        (d, f) => {
          const t = setTimeout(f, d);
          return () => clearTimeout(t);
        },
        fire,
      );
      return { fired: () => fired, stop: cancel };
    }
    if (which === 'scheduleAfter') {
      const sub = scheduleAfter(asyncScheduler, ms, fire);
      return { fired: () => fired, stop: () => sub.unsubscribe() };
    }
    let error: Error | undefined;
    const source = which === 'timerAfter' ? timerAfter(ms, asyncScheduler) : intervalEvery(ms, asyncScheduler);
    const sub = source.subscribe({ next: fire, error: (e: Error) => (error = e) }); // timerAfter refuses at the subscription
    if (error !== undefined) throw error;
    return { fired: () => fired, stop: () => sub.unsubscribe() };
  };

/**
 * The one reconcile loop in virtual time: retries and their backoff, terminal errors, panics,
 * timeouts, aborts on stop, failures logged by default and throttled per key, and the counts the
 * metrics read.
 */
import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject, NEVER, Subject, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { createInformerFactory, type KubeObject, type ResourceDescriptor } from '@rxinformer/core';
import { whileLeading, type LeaderElection } from '@rxinformer/core/leader-election';
import { fakeListerWatcher, page, testObject, virtualClock } from '@rxinformer/testing';
import { Registry } from 'prom-client';
import { controllerRuntimeMetrics } from '@rxinformer/prometheus';
import { controllerFor, type ControllerBuilderOptions } from '../builder/controllerBuilder.ts';
import type { LogFields, Logger } from '../log/logger.ts';
import { ControllerStoppedError, ReconcileTimeoutError, type ControllerError } from './errors.ts';
import type { Reconcile } from './request.ts';
import { InvalidReconcileResultError, TerminalError } from './result.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A logger that keeps its lines: `level message key`. */
function keptLogger(): Logger & { lines: string[]; fields: LogFields[] } {
  const lines: string[] = [];
  const fields: LogFields[] = [];
  const at = (level: string) => (f: LogFields, message: string) => {
    lines.push(`${level} ${message} ${typeof f.key === 'string' ? f.key : ''}`.trim());
    fields.push(f);
  };
  return { lines, fields, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** A factory whose informer lists pods `names` and then waits; a controller over it reconciling with `reconcile`. */
function setup(
  ts: TestScheduler,
  names: string[],
  reconcile: Reconcile<KubeObject>,
  options: Partial<ControllerBuilderOptions<KubeObject>> = {},
) {
  const lw = fakeListerWatcher();
  lw.scriptList(
    of(
      page(
        names.map((n) => testObject(n, '1')),
        '1',
      ),
    ),
  );
  lw.scriptWatch(NEVER);
  const factory = createInformerFactory(() => lw as never, { scheduler: ts });
  const logger = keptLogger();
  const reports: ControllerError[] = [];
  const ctl = controllerFor(factory, pods, { name: 'loop', scheduler: ts, logger, onError: (e) => reports.push(e), ...options }).reconcile(
    reconcile,
  );
  return { factory, ctl, logger, reports };
}

/** Waits `ms` of virtual time inside a reconcile, or until `signal` aborts (then rejects with its reason). */
function sleep(ts: TestScheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = ts.schedule(() => resolve(), ms);
    signal?.addEventListener('abort', () => {
      timer.unsubscribe();
      reject(signal.reason as Error);
    });
  });
}

describe('the reconcile loop', () => {
  it('should retry a failing key after 5, 10, 20 ms, give it up after maxRetries, and log its failure once per window', async () => {
    const { ts, advance } = virtualClock(1);
    const at: number[] = [];
    const { ctl, factory, logger, reports } = setup(
      ts,
      ['a'],
      async () => {
        at.push(ts.now());
        throw new Error('the cluster said no');
      },
      { maxRetries: 3 },
    );
    const run = ctl.start();
    await advance(200);
    expect(at).toEqual([0, 5, 15, 35]);
    expect(reports.map((r) => [r.retries, r.dropped])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    // Logged by default, once: the same failure of the key again within a minute is only counted.
    expect(logger.lines).toEqual(['error reconcile failed: retried default/a']);
    expect(logger.fields[0]).toMatchObject({ controller: 'loop', key: 'default/a', retries: 0, error: expect.any(Error) });
    expect(ctl.reconcileStats()).toMatchObject({ total: { success: 0, error: 4, requeue: 0, requeue_after: 0 }, errors: 4, panics: 0 });
    await run.stop();
    factory.shutdown();
  });

  it('should log a key failing again after the window with the count of failures not told, and at once after a success', async () => {
    const { ts, advance } = virtualClock(10);
    let fail = true;
    const { ctl, factory, logger } = setup(
      ts,
      ['a'],
      async () => {
        if (fail) throw new Error('down');
        return { requeueAfterMs: 50 };
      },
      { logThrottleMs: 1000, queue: { baseDelayMs: 100, maxDelayMs: 100 } },
    );
    const run = ctl.start();
    await advance(1050); // failures at 0, 100, …, 1000: told at 0, and at 1000 with the 9 between
    expect(logger.lines).toEqual(['error reconcile failed: retried default/a', 'error reconcile failed: retried default/a']);
    expect(logger.fields[1]).toMatchObject({ suppressed: 9 });
    fail = false;
    await advance(1150);
    fail = true;
    await advance(1300);
    expect(logger.lines).toHaveLength(3); // told at once: the success forgot the key
    await run.stop();
    factory.shutdown();
  });

  it('should not retry a terminal error, and count it apart', async () => {
    const { ts, advance } = virtualClock(1);
    let calls = 0;
    const { ctl, factory, logger, reports } = setup(ts, ['a'], async () => {
      calls++;
      throw new TerminalError('spec.replicas is negative');
    });
    const run = ctl.start();
    await advance(500);
    expect(calls).toBe(1);
    expect(reports).toEqual([{ stage: 'reconcile', key: 'default/a', error: expect.any(TerminalError), retries: 0, dropped: true }]);
    expect(logger.lines).toEqual(['error reconcile terminal error: not retried default/a']);
    expect(ctl.reconcileStats()).toMatchObject({ errors: 1, terminalErrors: 1, total: { error: 1 } });
    await run.stop();
    factory.shutdown();
  });

  it('should recover a reconcile that throws a programming error or throws instead of rejecting, count it as a panic, and go on', async () => {
    const { ts, advance } = virtualClock(1);
    const seen: string[] = [];
    const { ctl, factory, logger } = setup(
      ts,
      ['a', 'b', 'c'],
      ((req) => {
        seen.push(req.name);
        if (req.name === 'a') throw new Error('thrown, not rejected'); // not an async function
        if (req.name === 'b')
          return Promise.resolve()
            .then(() => Object.freeze({ n: 1 }) as { n: number })
            .then((o) => void (o.n = 2)); // a frozen object
        return Promise.resolve();
      }) as Reconcile<KubeObject>,
      { maxRetries: 0 },
    );
    const run = ctl.start();
    await advance(100);
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect(ctl.reconcileStats()).toMatchObject({ panics: 2, errors: 2, total: { success: 1, error: 2 } });
    expect(logger.lines.filter((l) => l.includes('panic')).sort()).toEqual([
      'error reconcile panic: recovered default/a',
      'error reconcile panic: recovered default/b',
    ]);
    await run.stop();
    factory.shutdown();
  });

  it('should abort a reconcile that outlives reconcileTimeoutMs, count it, and retry the key once it settled', async () => {
    const { ts, advance } = virtualClock(1);
    const reasons: unknown[] = [];
    let calls = 0;
    const { ctl, factory, reports } = setup(
      ts,
      ['a'],
      async ({ signal }) => {
        calls++;
        if (calls > 1) return;
        signal.addEventListener('abort', () => reasons.push(signal.reason));
        await sleep(ts, 10_000, signal);
      },
      { reconcileTimeoutMs: 100 },
    );
    const run = ctl.start();
    await advance(99);
    expect(reasons).toEqual([]);
    await advance(120);
    expect(reasons).toEqual([expect.any(ReconcileTimeoutError)]);
    expect(String(reasons[0])).toBe('ReconcileTimeoutError: the reconcile of "default/a" ran longer than 100 ms: aborted');
    expect(calls).toBe(2); // retried 5 ms after it settled
    expect(reports[0]).toMatchObject({ key: 'default/a', error: expect.any(ReconcileTimeoutError), dropped: false });
    expect(ctl.reconcileStats()).toMatchObject({ timeouts: 1, errors: 1, total: { error: 1, success: 1 } });
    await run.stop();
    factory.shutdown();
  });

  it('should abort the reconciles in progress when leadership is lost, and start the next term on the warm cache', async () => {
    const { ts, advance } = virtualClock(1);
    const reasons: unknown[] = [];
    const { ctl, factory, logger } = setup(
      ts,
      ['a', 'b'],
      async ({ signal }) => {
        signal.addEventListener('abort', () => reasons.push(signal.reason));
        await sleep(ts, 1000, signal);
      },
      { concurrency: 2 },
    );
    factory.start();
    const isLeader$ = new BehaviorSubject(true);
    const election = Object.assign(new Subject(), { isLeader$ }) as unknown as LeaderElection;
    const leading = whileLeading(election, () => ctl.start()).subscribe();
    await advance(50);
    expect(ctl.reconcileStats().activeWorkers).toBe(2);
    isLeader$.next(false);
    await advance(60);
    expect(reasons).toEqual([expect.any(ControllerStoppedError), expect.any(ControllerStoppedError)]);
    expect([ctl.isRunning(), ctl.reconcileStats().activeWorkers]).toEqual([false, 0]);
    expect(logger.lines.filter((l) => l.startsWith('error'))).toEqual([]); // a stop is no failure to shout about
    leading.unsubscribe();
    factory.shutdown();
  });

  it('should report an answer it cannot act on, retry the key, and count the reconciles by result', async () => {
    const { ts, advance } = virtualClock(1);
    const answers: unknown[] = [{ requeueAfterMs: Infinity }, { requeue: true }, { requeueAfterMs: 10 }, undefined];
    const { ctl, factory, reports } = setup(ts, ['a'], async () => answers.shift() as undefined);
    const registry = new Registry();
    controllerRuntimeMetrics(ctl, { registry });
    const run = ctl.start();
    await advance(100);
    const exposition = await registry.metrics();
    for (const result of ['success', 'error', 'requeue', 'requeue_after'])
      expect(exposition).toContain(`controller_runtime_reconcile_total{controller="loop",result="${result}"} 1`);
    expect(exposition).toContain('controller_runtime_reconcile_time_seconds_count{controller="loop"} 4');
    expect(exposition).toMatch(/^store_resource_version\{controller="loop",group="",version="v1",resource="pods"\} 1$/m);
    expect(reports).toEqual([
      { stage: 'reconcile', key: 'default/a', error: expect.any(InvalidReconcileResultError), retries: 0, dropped: false },
    ]);
    expect(ctl.reconcileStats()).toMatchObject({
      total: { success: 1, error: 1, requeue: 1, requeue_after: 1 },
      errors: 1,
      maxConcurrentReconciles: 1,
    });
    await run.stop();
    factory.shutdown();
  });

  it('should publish each reconcile as it ends, with its result, duration and id, and give each request a child logger', async () => {
    const { ts, advance } = virtualClock(1);
    const { ctl, factory, logger } = setup(ts, ['a'], async ({ log }) => {
      log.info({ step: 1 }, 'working');
      await sleep(ts, 30);
    });
    const events: unknown[] = [];
    ctl.reconciles$.subscribe((e) => events.push(e));
    const run = ctl.start();
    await advance(100);
    expect(events).toEqual([{ controller: 'loop', key: 'default/a', reconcileID: expect.any(String), result: 'success', seconds: 0.03 }]);
    expect(logger.fields[0]).toEqual({
      controller: 'loop',
      key: 'default/a',
      reconcileID: (events[0] as { reconcileID: string }).reconcileID,
      step: 1,
    });
    await run.stop();
    factory.shutdown();
  });

  it('should publish only the reconciles that started once someone listened (only those are timed), and count them all', async () => {
    const { ts, advance } = virtualClock(1);
    const started: string[] = [];
    const events: { key: string; seconds: number }[] = [];
    const { ctl, factory } = setup(ts, ['a', 'b'], async ({ key }) => {
      // the first reconcile is in progress when the listener comes
      if (started.push(key) === 1) ctl.reconciles$.subscribe((e) => events.push(e));
      await sleep(ts, 30);
    });
    const run = ctl.start();
    await advance(100);
    expect(events.map(({ key, seconds }) => [key, seconds])).toEqual([[started[1], 0.03]]);
    expect(ctl.reconcileStats().total.success).toBe(2);
    await run.stop();
    factory.shutdown();
  });
});

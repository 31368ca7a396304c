/**
 * The manager's order in virtual time: warm before campaigning, leading runnables per term, the
 * others throughout, and a shutdown that aborts reconciles, waits up to its deadline, releases the
 * Lease, then stops the rest and the servers last.
 */
import { describe, expect, it } from '@jest/globals';
import { BehaviorSubject, Subject, defer, delay, of } from 'rxjs';
import { createInformerFactory, type ResourceDescriptor } from '@rxinformer/core';
import type { LeaderElection } from '@rxinformer/core/leader-election';
import { fakeListerWatcher, page, testObject, virtualClock } from '@rxinformer/testing';
import type { TestScheduler } from 'rxjs/testing';
import { controllerFor } from '../builder/controllerBuilder.ts';
import type { Logger } from '../log/logger.ts';
import { createManager } from './manager.ts';
import type { Runnable } from './runnable.ts';

const pods: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A factory whose pods list (`a`, `b`) answers after `listMs`, then a watch that stays open. */
function factoryOf(ts: TestScheduler, listMs: number) {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([testObject('a', '1'), testObject('b', '1')], '1')).pipe(delay(listMs, ts)));
  return createInformerFactory(() => lw as never, { scheduler: ts });
}

/** Records what happens, in order, with the virtual time. */
function recorder(ts: TestScheduler) {
  const events: string[] = [];
  const note = (what: string) => events.push(`${what}@${ts.now()}`);
  const logger: Logger = { error: (_, m) => note(`error: ${m}`), warn: () => undefined, info: () => undefined };
  const runnable = (name: string, extra: Partial<Runnable> = {}): Runnable => ({
    name,
    ...extra,
    start: () => {
      note(`${name} started`);
      return { stop: () => void note(`${name} stopped`) };
    },
  });
  /** An election whose leadership the test sets; `stop()` notes the release. */
  const election = (subscribed: () => void) => {
    const isLeader$ = new BehaviorSubject(false);
    const e = Object.assign(new Subject(), {
      isLeader$: defer(() => {
        subscribed();
        return isLeader$;
      }),
      stop: async () => void note('lease released'),
    });
    return { isLeader$, election: e as unknown as LeaderElection };
  };
  return { events, note, logger, runnable, election };
}

/** Starts a manager of `reconcile` (two pods) leading, stops it; resolves with the events and the time of the stop. */
async function leadThenStop(
  stepMs: number,
  reconcile: (name: string, signal: AbortSignal, note: (w: string) => void, ts: TestScheduler) => Promise<void>,
) {
  const { ts, advance } = virtualClock(stepMs);
  const factory = factoryOf(ts, 0);
  const { events, note, logger, election } = recorder(ts);
  const { isLeader$, election: e } = election(() => undefined);
  const ctl = controllerFor(factory, pods, { name: 'pods', scheduler: ts, logger, concurrency: 2 }).reconcile(({ name, signal }) =>
    reconcile(name, signal, note, ts),
  );
  const mgr = createManager({ factory, leaderElection: e, logger, scheduler: ts, gracefulShutdownMs: 1000 }).add(ctl);
  const started = mgr.start();
  await advance(10);
  await started;
  isLeader$.next(true);
  await advance(20);
  const stoppedAt = ts.now();
  const stopped = mgr.stop();
  await advance(2000);
  await stopped;
  factory.shutdown();
  return { events, stoppedAt };
}

describe('the manager in virtual time', () => {
  it('should warm the caches before campaigning, run leading runnables per term and the others throughout', async () => {
    const { ts, advance } = virtualClock(1);
    const factory = factoryOf(ts, 50);
    const { events, note, logger, runnable, election } = recorder(ts);
    const { isLeader$, election: e } = election(() => note('campaigning'));
    const reconciled: string[] = [];
    const ctl = controllerFor(factory, pods, { name: 'pods', scheduler: ts, logger }).reconcile(async ({ name }) => {
      reconciled.push(name);
    });
    const mgr = createManager({ factory, leaderElection: e, logger, scheduler: ts })
      .add(ctl)
      .add(runnable('warmer', { needsLeadership: false }))
      .add(runnable('server', { stage: 'server' }));
    const started = mgr.start();
    await advance(100);
    await started;
    expect(events).toEqual(['server started@0', 'warmer started@0', 'campaigning@50']);
    expect(ctl.isRunning()).toBe(false);
    expect(mgr.isWarm()).toBe(true);

    isLeader$.next(true);
    await advance(150);
    expect(mgr.isLeading()).toBe(true);
    isLeader$.next(false);
    await advance(200);
    expect(reconciled.sort()).toEqual(['a', 'b']);
    expect(ctl.isRunning()).toBe(false); // the term ended with leadership
    expect(mgr.isLeading()).toBe(false);

    isLeader$.next(true);
    await advance(250);
    expect(ctl.isRunning()).toBe(true);
    expect(reconciled).toHaveLength(4); // the new term replayed the caches
    const at = ts.now();
    const stopped = mgr.stop();
    await advance(300);
    await stopped;
    expect(events.slice(3)).toEqual([`lease released@${at}`, `warmer stopped@${at}`, `server stopped@${at}`]);
    expect(ctl.isRunning()).toBe(false);
    factory.shutdown();
  });

  it('should abort a busy reconcile at shutdown and release the Lease once it settled, not before', async () => {
    // Honours its signal, but needs 30 ms to wind down.
    const { events, stoppedAt } = await leadThenStop(1, async (name, signal, note, ts) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => ts.schedule(() => resolve(), 30)));
      note(`${name} wound down`);
    });
    const at = stoppedAt + 30;
    expect([...events.slice(0, 2).sort(), events[2]]).toEqual([`a wound down@${at}`, `b wound down@${at}`, `lease released@${at}`]);
  });

  it('should release the Lease at the deadline when a reconcile ignores its signal, and say so', async () => {
    const { events, stoppedAt } = await leadThenStop(5, () => new Promise<void>(() => undefined));
    const at = stoppedAt + 1000;
    expect(events).toEqual([`error: leading runnables still running after the graceful shutdown period@${at}`, `lease released@${at}`]);
  });

  it('should stop what started when a runnable fails to start, and refuse bad runnables', async () => {
    const { ts, advance } = virtualClock(1);
    const factory = factoryOf(ts, 0);
    const { events, logger, runnable } = recorder(ts);
    const mgr = createManager({ factory, logger, scheduler: ts })
      .add(runnable('server', { stage: 'server' }))
      .add({ name: 'broken', needsLeadership: false, start: () => Promise.reject(new Error('no port')) });
    expect(() => mgr.add({ name: 'server', start: () => ({ stop: () => undefined }) })).toThrow(/already runs a runnable named server/);
    expect(() => mgr.add({ name: 'x' } as Runnable)).toThrow(/needs a start/);
    const failed = expect(mgr.start()).rejects.toMatchObject({ name: 'ManagerError', reason: 'RunnableStartFailed', runnable: 'broken' });
    await advance(10);
    await failed;
    await mgr.done;
    expect(events).toEqual(['server started@0', 'error: the manager failed to start@0', 'server stopped@0']);
    factory.shutdown();
  });
});

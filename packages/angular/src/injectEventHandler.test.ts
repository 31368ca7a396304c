import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createEnvironmentInjector, EnvironmentInjector } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { InvalidOptionsError } from '@rxinformer/core';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { initTestBed, manualSource, pod, podsOver, reader, until } from '../test/angularTestKit.ts';
import { injectEventHandler } from './injectEventHandler.ts';

beforeAll(initTestBed);
afterEach(() => {
  TestBed.resetTestingModule();
});

describe('injectEventHandler', () => {
  it('should deliver the cache and every change, with its sync state and delivery figures as signals', async () => {
    const manual = manualSource([pod('default', 'a', 'Running', '5')]);
    const pods = podsOver(manual);
    const seen: string[] = [];
    const handler = TestBed.runInInjectionContext(() =>
      injectEventHandler(
        pods,
        {
          onAdd: (p, initial) => void seen.push(`add ${p.metadata?.name}${initial ? ' (initial)' : ''}`),
          onDelete: ({ lastKnown: p }) => void seen.push(`delete ${p?.metadata?.name}`),
        },
        { name: 'log' },
      ),
    );
    expect(handler.registration?.name).toBe('log');
    expect(handler.synced()).toBe(false); // the replay is buffered: delivered a microtask later
    await until(() => handler.synced());
    manual.emit({ type: 'ADDED', object: pod('default', 'b', 'Pending', '6') });
    manual.emit({ type: 'DELETED', object: pod('default', 'a', 'Running', '7') });
    await until(() => handler.metrics().delivered === 3);
    expect(seen).toEqual(['add a (initial)', 'add b', 'delete a']);
    expect(handler.metrics()).toEqual({ depth: 0, lagMs: expect.any(Number), delivered: 3, errors: 0 });
    expect(handler.lagMs()).toBe(handler.metrics().lagMs);
  });

  it('should notify readers of lagMs only when the lag changes, and readers of metrics on every delivery', async () => {
    let now = 1000; // the informer's clock: lag is the time between a change's arrival and its delivery
    const clock: SchedulerLike = { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) as SchedulerLike['schedule'] };
    const manual = manualSource([]);
    const pods = podsOver(manual, { scheduler: clock });
    const handler = TestBed.runInInjectionContext(() => injectEventHandler(pods, { onAdd: () => {} }));
    const lag = reader(handler.lagMs);
    const metrics = reader(handler.metrics);
    for (const name of ['a', 'b']) manual.emit({ type: 'ADDED', object: pod('default', name, 'Running', `1${name === 'a' ? 1 : 2}`) });
    await until(() => handler.metrics().delivered === 2);
    expect([lag.notifications, metrics.notifications > 0]).toEqual([0, true]); // delivered at once: the lag stays 0
    manual.emit({ type: 'ADDED', object: pod('default', 'c', 'Running', '13') });
    now += 7; // delivery comes a microtask later, 7 ms on
    await until(() => handler.metrics().delivered === 3);
    expect(lag.notifications).toBe(1);
    expect(handler.lagMs()).toBe(7);
  });

  it('should remove the handler when its injector is destroyed, or when asked', async () => {
    const manual = manualSource([]);
    const pods = podsOver(manual);
    const component = createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const seen: string[] = [];
    injectEventHandler(pods, { onAdd: (p) => void seen.push(p.metadata!.name!) }, { injector: component });
    const other = injectEventHandler(pods, { onAdd: () => {} }, { injector: TestBed.inject(EnvironmentInjector) });
    const witnessed: string[] = []; // a handler that stays: once it has b, a removed one would have it too
    injectEventHandler(pods, { onAdd: (p) => void witnessed.push(p.metadata!.name!) }, { injector: TestBed.inject(EnvironmentInjector) });
    manual.emit({ type: 'ADDED', object: pod('default', 'a', 'Running', '6') });
    await until(() => seen.length === 1);
    component.destroy();
    other.remove();
    manual.emit({ type: 'ADDED', object: pod('default', 'b', 'Running', '7') });
    await until(() => witnessed.includes('b'));
    expect(seen).toEqual(['a']);
    expect(other.metrics().delivered).toBe(1); // the last figures stay
  });

  it('should refuse a handler without callbacks with InvalidOptionsError', () => {
    const pods = podsOver(manualSource([]));
    expect(() => TestBed.runInInjectionContext(() => injectEventHandler(pods, {}))).toThrow(InvalidOptionsError);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { clearFaults, FAULT_KINDS, planFaults } from './faultPlan.ts';
import { runFaultPlan, type AppliedFault } from './faultSchedule.ts';
import { testScheduler } from '@rxinformer/testing';

const steps = (seed: number) => planFaults({ seed, durationMs: 20_000, token: 't' }).map((a) => `${a.atMs} ${a.fault} ${a.step}`);

describe('planFaults', () => {
  it('should plan every kind of fault at least once', () => {
    const kinds = new Set(planFaults({ seed: 3, durationMs: 10_000, token: 't' }).map((a) => a.fault));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('should give the same plan for the same seed and another for another seed', () => {
    expect(steps(42)).toEqual(steps(42));
    expect(steps(42)).not.toEqual(steps(43));
  });

  it('should keep every action inside the chaos phase, in time order, and lasting faults inside their slot', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const plan = planFaults({ seed, durationMs: 5000, token: 't', extra: 10 });
      expect(plan.length).toBeGreaterThanOrEqual(FAULT_KINDS.length + 10);
      for (let i = 0; i < plan.length; i++) {
        expect(plan[i].atMs).toBeGreaterThanOrEqual(0);
        expect(plan[i].atMs).toBeLessThan(5000);
        if (i > 0) expect(plan[i].atMs).toBeGreaterThanOrEqual(plan[i - 1].atMs); // no fault starts before another ended
      }
    }
  });
});

describe('runFaultPlan', () => {
  let sim: ApiServer;
  beforeAll(async () => {
    sim = await startApiServer({ port: 0, seed: 1, auth: { token: 't' } });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('should apply each action to the simulator at its planned time, in plan order', () => {
    const plan = planFaults({ seed: 9, durationMs: 10_000, token: 't' });
    const scheduler = testScheduler();
    scheduler.maxFrames = Infinity; // the plan spans 10 s of virtual time
    const applied: { at: number; fault: AppliedFault }[] = [];
    let tokenDuring401: string | undefined;
    runFaultPlan(sim, plan, scheduler).subscribe((fault) => {
      applied.push({ at: scheduler.now(), fault });
      if (fault.action.step.startsWith('rotate the token')) tokenDuring401 = sim.faults.token;
    });
    scheduler.flush();
    expect(applied.map((a) => a.at)).toEqual(plan.map((a) => a.atMs));
    expect(applied.map((a) => a.fault.action)).toEqual(plan);
    expect(tokenDuring401).toBe('t-rotated');
    expect(sim.faults.token).toBe('t'); // the last 401 phase restored the token
    const watchSteps = applied.filter((a) => a.fault.action.fault === 'stallWatches');
    expect(watchSteps[0].fault.watchesHit).toBe(0); // no watch open here
    // With no client, every failure and watch fault waits unused until its slot ends, is counted
    // there and dropped: nothing leaks into the next slot or past the plan.
    const ends = (kind: string) =>
      applied.filter((a) => a.fault.action.fault === kind && a.fault.action.endsSlot).map((a) => a.fault.unused);
    expect(ends('stallWatches')).toEqual([1]);
    expect(ends('fail500')[0]).toBe(2);
    expect(ends('fail429')[0]).toBe(1);
    expect(sim.faults.clearPending()).toEqual({ failures: 0, watchFaults: 0 });
  });

  it('should stop applying actions when unsubscribed', () => {
    const plan = planFaults({ seed: 9, durationMs: 10_000, token: 't' });
    const scheduler = testScheduler();
    scheduler.maxFrames = Infinity; // the plan spans 10 s of virtual time
    let count = 0;
    const sub = runFaultPlan(sim, plan, scheduler).subscribe(() => {
      count++;
    });
    scheduler.schedule(() => sub.unsubscribe(), (plan[2].atMs + plan[3].atMs) / 2);
    scheduler.flush();
    expect(count).toBe(3);
    clearFaults(sim, 't');
    expect(sim.faults.token).toBe('t');
  });
});

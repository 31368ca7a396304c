import { describe, expect, it } from '@jest/globals';
import { lastValueFrom, toArray } from 'rxjs';
import type { FaultProxy } from '@rxinformer/envtest';
import { runFaultPlan } from './faultSchedule.ts';
import { planRealFaults, REAL_FAULT_KINDS, type RealFaultTarget } from './realFaultPlan.ts';

/** A proxy and an environment that record what the plan does to them; no request ever comes. */
function fakeTarget() {
  const calls: string[] = [];
  const counts = { requests: 0, watches: 0, failed: 0 };
  const proxy = {
    counts,
    cut: () => (calls.push('cut'), 1),
    reset: () => (calls.push('reset'), 1),
    stall: () => (calls.push('stall'), 1),
    setLatency: (ms: number) => void calls.push(`latency ${ms}`),
    failNext: (n: number, f: { code: number }) => void calls.push(`fail ${n}×${f.code}`),
    clear: () => void calls.push('clear'),
  } as unknown as FaultProxy;
  const env = {
    etcd: { compact: () => (calls.push('compact'), Promise.resolve(7)) },
    restartApiServer: (o?: { kill?: boolean }) => (calls.push(`restart kill=${o?.kill}`), Promise.resolve()),
  } as unknown as RealFaultTarget['env'];
  return { target: { env, proxy }, calls };
}

describe('planRealFaults', () => {
  it('should plan every kind, the same for the same seed, in time order inside the chaos phase', () => {
    const plan = planRealFaults({ seed: 4, durationMs: 30_000 });
    expect(new Set(plan.map((a) => a.fault))).toEqual(new Set(REAL_FAULT_KINDS));
    expect(planRealFaults({ seed: 4, durationMs: 30_000 }).map((a) => `${a.atMs} ${a.step}`)).toEqual(
      plan.map((a) => `${a.atMs} ${a.step}`),
    );
    expect(planRealFaults({ seed: 5, durationMs: 30_000 }).map((a) => a.atMs)).not.toEqual(plan.map((a) => a.atMs));
    for (let i = 0; i < plan.length; i++) {
      expect(plan[i].atMs).toBeLessThan(30_000);
      if (i > 0) expect(plan[i].atMs).toBeGreaterThanOrEqual(plan[i - 1].atMs);
    }
  });

  it('should apply each step to the proxy and the servers, and count failures no request met as unused', async () => {
    const { target, calls } = fakeTarget();
    const applied = await lastValueFrom(runFaultPlan(target, planRealFaults({ seed: 4, durationMs: 600, extra: 0 })).pipe(toArray()));
    expect(calls).toEqual(
      expect.arrayContaining([
        'cut',
        'reset',
        'stall',
        'latency 150',
        'latency 0',
        'fail 2×500',
        'fail 1×410',
        'compact',
        'restart kill=true',
      ]),
    );
    const unused = (kind: string) => applied.filter((a) => a.action.fault === kind && a.action.endsSlot).map((a) => a.unused);
    expect(unused('fail500')).toEqual([2]);
    expect(unused('failWatch504')).toEqual([1]);
    // The relist under compaction: 100 ms latency with the 410, compactions, then all cleared.
    const relist = applied.filter((a) => a.action.fault === 'compactDuringList').map((a) => a.action.step);
    expect(relist[0]).toBe('latency 100 ms on, next watch 410, cut watches');
    expect(relist.at(-1)).toBe('end of slot: drop what waits unused');
    expect(calls.lastIndexOf('latency 100')).toBeLessThan(calls.lastIndexOf('clear'));
  });
});

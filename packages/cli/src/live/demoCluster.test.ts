import { describe, expect, it } from '@jest/globals';
import { KubeApiError } from '@rxinformer/core';
import { type BackoffOptions } from '@rxinformer/core/reflector';
import { backoffSuccess, nextBackoff, resolveBackoff, type BackoffState } from '@rxinformer/core/reflector';
import type { KubeObject } from '@rxinformer/core';
import { flushTo, testScheduler } from '@rxinformer/testing';
import { DEMO_BACKOFF, DEMO_NAMESPACES, startDemoCluster } from './demoCluster.ts';

/**
 * The waits of a reflector hit by one failure every `everyMs` (each retry succeeding), for
 * `forMs`: the backoff policy the demo's informer runs, without the network.
 */
function waitsUnderFaults(options: BackoffOptions, everyMs: number, forMs: number): number[] {
  const policy = resolveBackoff(options);
  let state: BackoffState = { failures: 0 };
  const waits: number[] = [];
  for (let now = 0; now < forMs; now += everyMs) {
    const next = nextBackoff(state, new KubeApiError(500), now, policy, () => 1);
    waits.push(next.delayMs);
    state = backoffSuccess(next.state, now + next.delayMs);
  }
  return waits;
}

describe('DEMO_BACKOFF', () => {
  it('should keep the waits of a fault every 5 s under 8 s for minutes, where the default backoff climbs to 45 s', () => {
    const demo = waitsUnderFaults(DEMO_BACKOFF, 5000, 300_000);
    expect(Math.max(...demo)).toBeLessThanOrEqual(7500);
    const defaults = waitsUnderFaults({}, 5000, 300_000);
    expect(Math.max(...defaults)).toBe(45_000);
  });
});

describe('startDemoCluster', () => {
  it('should seed pods over the demo namespaces, move them through phases, and inject every fault in turn', async () => {
    const faults: string[] = [];
    const ts = testScheduler();
    const demo = await startDemoCluster({
      seed: 5,
      pods: 30,
      ratePerSecond: 300,
      faultEveryMs: 20,
      onFault: (d) => faults.push(d),
      scheduler: ts,
    });
    try {
      expect(demo.sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      flushTo(ts, 120);
      expect(faults.map((d) => d.replace(/\d+/g, 'N'))).toEqual([
        'dropped N watch connection(s)',
        'sent watch ERROR N Expired to N watch(es) (relist)',
        'dropped N watch(es); the next watch answers HTTP N (backoff)',
        'wrote a malformed line into N watch(es)',
        'compacted the history and dropped N watch(es) (N on resume, relist)',
        'dropped N watch(es); the next watch answers N with Retry-After: N',
      ]);
      const phases = new Set(demo.sim.storage.list('pods').map((p) => (p as KubeObject & { status?: { phase?: string } }).status?.phase));
      expect(phases.has('Running') && phases.has('Pending')).toBe(true);
      const namespaces = new Set(demo.sim.storage.list('pods').map((p) => p.metadata?.namespace));
      expect([...namespaces].sort()).toEqual([...DEMO_NAMESPACES].sort());
    } finally {
      await demo.close();
    }
    const lastVersion = () => Math.max(...demo.sim.storage.list('pods').map((p) => Number(p.metadata?.resourceVersion)));
    const before = lastVersion();
    flushTo(ts, 1120);
    expect(demo.faultCount).toBe(6); // no fault after close
    expect(lastVersion()).toBe(before); // nor a change of the churn
  });

  it("should serve the simulator's control endpoints, for a user's curl next to the view", async () => {
    const demo = await startDemoCluster({ pods: 0, ratePerSecond: 0, faults: false });
    try {
      expect((await fetch(`${demo.sim.url}/_sim/state`)).status).toBe(200);
    } finally {
      await demo.close();
    }
  });
});

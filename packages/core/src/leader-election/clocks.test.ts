/**
 * Elections and rings on their default clocks while the wall clock is stepped. jest's fake timers
 * stand for the machine: `jest.setSystemTime` steps `Date.now()` as NTP or an operator would,
 * while `performance.now()` and the timers go on undisturbed — in virtual time.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { asyncScheduler, defer, tap, type SchedulerLike } from 'rxjs';
import { leaderElection, type LeaderElectionOptions } from './leaderElection.ts';
import type { LeaseClient } from './leaseClient.ts';
import { startShardRing, type ShardRingOptions } from '../sharding/shardRing.ts';
import { FakeLeaseServer, TermLog } from '@rxinformer/testing';
import { SlotOwners, memberOptions } from '../../test/ringMembers.ts';
import { monotonicScheduler } from './clocks.ts';

/** A machine whose wall clock never moves, its time counted from the test's start. */
let origin = 0;
const steady: SchedulerLike = {
  now: () => performance.now() - origin,
  schedule: ((work: never, delay?: number, state?: unknown) => asyncScheduler.schedule(work, delay, state)) as SchedulerLike['schedule'],
};
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const stepWall = (ms: number) => jest.setSystemTime(Date.now() + ms);
const at = (ms: number, fn: () => void) => void steady.schedule(fn, ms - steady.now());

beforeEach(() => {
  jest.useFakeTimers({ now: Date.UTC(2026, 10, 27, 9) });
  origin = performance.now();
});
afterEach(() => {
  jest.useRealTimers();
});

describe('monotonicScheduler', () => {
  it("should not move when the wall clock is stepped, and run asyncScheduler's timers", async () => {
    const start = monotonicScheduler.now();
    let fired: number | undefined;
    monotonicScheduler.schedule(() => (fired = monotonicScheduler.now() - start), 1000);
    await jest.advanceTimersByTimeAsync(400);
    stepWall(-60_000);
    expect(monotonicScheduler.now() - start).toBe(400);
    await jest.advanceTimersByTimeAsync(600);
    expect(fired).toBe(1000);
  });
});

describe('leaderElection on the default clocks', () => {
  type Setup = { a: Partial<LeaderElectionOptions>; b: Partial<LeaderElectionOptions>; bStartsAt: number };
  /** Candidates a (from 0) and b against one server until `endMs`; who led when, on a steady clock. */
  async function twoCandidates(endMs: number, setup: (server: FakeLeaseServer) => Setup) {
    const server = new FakeLeaseServer(steady);
    const terms = new TermLog(steady);
    const options = setup(server);
    const subs: { unsubscribe(): void }[] = [];
    const start = (who: 'a' | 'b') =>
      subs.push(
        leaderElection({
          client: server.client(who),
          namespace: 'default',
          name: 'ctl',
          identity: who,
          random: () => 0.5,
          ...timing,
          ...options[who],
        }).subscribe((s) => terms.record(who, s.phase === 'leading')),
      );
    start('a');
    at(options.bStartsAt, () => start('b'));
    await jest.advanceTimersByTimeAsync(endMs);
    subs.forEach((s) => s.unsubscribe());
    return terms;
  }

  it('should step down at its renew deadline when its wall clock is stepped back 60 s during a slow renewal', async () => {
    // a's 3rd renewal takes 400 ms (a slow API server); during it a's wall clock goes back 60 s,
    // and a's requests fail from then on. Read from Date.now(), the deadline of that renewal moved
    // 60 s on: a led on for a minute, and b took the Lease beside it.
    let aLeadsUntil: number | undefined;
    const terms = await twoCandidates(10_000, (server) => {
      const fast = server.client('a');
      const slow = server.client('a', 400);
      let renewals = 0;
      const client: LeaseClient = {
        ...fast,
        update: (lease) =>
          defer(() => {
            if (++renewals !== 3) return fast.update(lease);
            aLeadsUntil = steady.now() + timing.renewDeadlineMs; // this renewal's start, plus the deadline
            at(steady.now() + 200, () => stepWall(-60_000));
            return slow.update(lease).pipe(tap(() => server.failing.set('a', 'all')));
          }),
      };
      return { a: { client }, b: { scheduler: steady }, bStartsAt: 1000 };
    });
    expect(terms.overlaps(10_000)).toEqual([]);
    const [a, b] = ['a', 'b'].map((who) => terms.terms.filter((t) => t.who === who));
    expect(a).toEqual([{ who: 'a', from: 10, to: aLeadsUntil }]); // 2420: its last renewal started at 920
    expect(b).toEqual([{ who: 'b', from: 3920 }]); // its first try 2 s after it saw a's last renewal (1320) at 1490
  });

  it("should not take a live holder's Lease when the follower's wall clock is stepped forward", async () => {
    // a's requests fail from 1000 ms: it leads until 2420 (its last renewal started at 920). b saw
    // that renewal at 990; its clock jumps 60 s ahead at 1200. Read from Date.now(), the Lease looked
    // expired at b's next read: b led from 1480 beside a.
    const terms = await twoCandidates(10_000, (server) => {
      at(1000, () => server.failing.set('a', 'all'));
      at(1200, () => stepWall(60_000));
      return { a: { scheduler: steady }, b: {}, bStartsAt: 500 };
    });
    expect(terms.overlaps(10_000)).toEqual([]);
    const [a, b] = ['a', 'b'].map((who) => terms.terms.filter((t) => t.who === who));
    expect(a).toEqual([{ who: 'a', from: 10, to: 2420 }]);
    expect(b).toEqual([{ who: 'b', from: 3420 }]); // its first try 2 s after it saw a's last renewal (990)
  });
});

describe('startShardRing on the default clocks', () => {
  it("should not claim a live member's slots when its wall clock is stepped forward", async () => {
    // a is cut off at 8000 ms and works on its slots until its renew deadline; b's clock jumps 60 s
    // ahead at 8200. Read from Date.now(), a looked dead at b's next tick: b took a's slots while a
    // still worked on them.
    const server = new FakeLeaseServer(steady);
    const owners = new SlotOwners(steady);
    const join = (who: string, extra: Partial<ShardRingOptions>) => {
      const ring = startShardRing({ ...memberOptions(server, who, 16), ...timing, ...extra });
      owners.watch(who, ring);
      return ring;
    };
    const a = join('a', { scheduler: steady });
    const b = join('b', {});
    at(8000, () => server.failing.set('a', 'all'));
    at(8200, () => stepWall(60_000));
    await jest.advanceTimersByTimeAsync(7900);
    expect([owners.active('a').length, owners.active('b').length]).toEqual([8, 8]); // settled
    await jest.advanceTimersByTimeAsync(12_000);
    expect(owners.violations).toEqual([]);
    expect(owners.active('b')).toHaveLength(16); // once a's Lease expired
    const stopped = Promise.all([a.stop(), b.stop()]);
    await jest.advanceTimersByTimeAsync(5000);
    await stopped;
  });
});

import { describe, expect, it } from '@jest/globals';
import { EMPTY, config, first, map, tap, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { InvalidOptionsError } from '../errors.ts';
import { DuplicateIdentityError } from '../leader-election/leaderElectionRules.ts';
import { ShardRingConflictError } from './shardMembers.ts';
import { startShardRing, type ShardRing, type ShardRingOptions } from './shardRing.ts';
import { FakeLeaseServer } from '@rxinformer/testing';
import { SlotOwners, memberOptions } from '../../test/ringMembers.ts';

const SLOTS = 64;

/**
 * Runs ring members against one fake server in virtual time until `endMs`, checking at every state
 * change that no slot is active in two members; returns the last states and the violations.
 */
function ringScenario(
  endMs: number,
  script: (ctx: {
    server: FakeLeaseServer;
    join: (who: string, extra?: Partial<ShardRingOptions>) => ShardRing;
    at: (ms: number, fn: () => void) => void;
    scheduler: TestScheduler;
  }) => void,
) {
  const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
  const owners = new SlotOwners(scheduler);
  const history: { at: number; who: string; active: number }[] = [];
  scheduler.run(() => {
    const server = new FakeLeaseServer(scheduler);
    const rings: ShardRing[] = [];
    const join = (who: string, extra: Partial<ShardRingOptions> = {}) => {
      const ring = startShardRing({
        ...memberOptions(server, who, SLOTS),
        scheduler,
        drain: () => timer(2500, scheduler), // in-flight reconciles take a while to finish
        ...extra,
      });
      rings.push(ring);
      owners.watch(who, ring);
      ring.state$.subscribe((s) => history.push({ at: scheduler.now(), who, active: s.active.length }));
      return ring;
    };
    const at = (ms: number, fn: () => void) => void scheduler.schedule(fn, ms);
    script({ server, join, at, scheduler });
    at(endMs, () => rings.forEach((r) => void r.stop()));
  });
  return { last: owners.last, violations: owners.violations, owners, history };
}

describe('startShardRing', () => {
  it('should split the slots among three members, each active on its own, all covered', () => {
    let snapshot: Map<string, readonly number[]> | undefined;
    const { violations } = ringScenario(120_000, ({ join, at }) => {
      const rings = ['a', 'b', 'c'].map((w) => ({ w, r: join(w) }));
      at(60_000, () => {
        snapshot = new Map();
        for (const { w, r } of rings) r.state$.subscribe((s) => snapshot!.set(w, s.active)).unsubscribe();
      });
    });
    expect(violations).toEqual([]);
    const all = [...snapshot!.values()].flat().sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: SLOTS }, (_, i) => i));
    for (const slots of snapshot!.values()) expect(slots.length).toBeGreaterThan(SLOTS / 3 - 12);
  });

  it("should move a dead member's slots once its Lease expires, and rebalance to a newcomer, never two owners", () => {
    const timeline: { at: number; a: number; b: number; c: number; d: number }[] = [];
    const { violations } = ringScenario(200_000, ({ join, at, server }) => {
      const rings: Record<string, ShardRing> = {};
      for (const w of ['a', 'b', 'c']) rings[w] = join(w);
      const counts: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
      const track = (w: string) => rings[w].state$.subscribe((s) => (counts[w] = s.active.length));
      ['a', 'b', 'c'].forEach(track);
      at(40_000, () => server.failing.set('c', 'all')); // c is cut off: it stops at its renew deadline
      at(100_000, () => {
        rings.d = join('d');
        track('d');
      });
      for (let t = 30_000; t < 200_000; t += 1000)
        at(t, () => timeline.push({ at: t, a: counts.a, b: counts.b, c: counts.c, d: counts.d }));
    });
    expect(violations).toEqual([]);
    const at = (t: number) => timeline.find((x) => x.at === t)!;
    expect(at(39_000).a + at(39_000).b + at(39_000).c).toBe(SLOTS);
    expect(at(60_000).c).toBe(0); // stopped at its deadline, about 10 s after its last renewal
    expect(at(70_000).a + at(70_000).b).toBe(SLOTS); // its Lease expired (15 s) and its slots moved
    expect(at(199_000).d).toBeGreaterThan(SLOTS / 3 - 12); // the newcomer got its share
    expect(at(199_000).a + at(199_000).b + at(199_000).d).toBe(SLOTS);
  });

  it('should not release the slots it is handing over when stopped before their drain finished', () => {
    // a held every slot; b joined and a began draining b's share (its reconciles take 6 s); a was
    // stopped 500 ms later. stop() drained only the active slots (nothing running: at once) and
    // released the Lease: b took every slot while a's reconciles of its share still ran.
    let drainEnds = 0;
    const { violations, history } = ringScenario(60_000, ({ join, at, scheduler }) => {
      let drains = 0;
      const a = join('a', {
        drain: () => (++drains === 1 ? timer(6000, scheduler).pipe(tap({ complete: () => (drainEnds = scheduler.now()) })) : EMPTY),
      });
      at(20_000, () => join('b'));
      a.state$.pipe(first((s) => s.draining.length > 0)).subscribe(() => scheduler.schedule(() => void a.stop(), 500));
    });
    expect(violations).toEqual([]);
    expect(drainEnds).toBeGreaterThan(20_000);
    const b = history.filter((h) => h.who === 'b' && h.active > 0);
    expect(b[0].at).toBeGreaterThan(drainEnds); // a let go of b's share only once its work was done
    expect(Math.max(...b.map((h) => h.active))).toBe(SLOTS); // and of the rest with it
  });

  it('should hold no slot while another controller uses the same ring label, and say so', () => {
    const { last, violations, owners } = ringScenario(60_000, ({ join }) => {
      join('a');
      join('b', { controller: 'another' });
    });
    expect(violations).toEqual([]);
    expect(last.get('a')!.warning).toBeInstanceOf(ShardRingConflictError);
    expect(owners.active('a')).toEqual([]);
    expect(owners.active('b')).toEqual([]);
  });

  it('should keep a second process with a reused identity out of the ring, and say so', () => {
    let warned: Error | undefined;
    let twinActive = 0;
    const { violations } = ringScenario(60_000, ({ join, at }) => {
      join('a');
      at(1000, () => {
        const twin = join('a2', { identity: 'a' });
        twin.state$.subscribe((s) => {
          warned ??= s.warning;
          twinActive = Math.max(twinActive, s.active.length);
        });
      });
    });
    expect(warned).toBeInstanceOf(DuplicateIdentityError);
    expect(violations).toEqual([]);
    expect(twinActive).toBe(0);
  });

  it('should refuse a ring name longer than a label value may be (63), which every write would fail on', () => {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    const server = new FakeLeaseServer(scheduler);
    const base = { client: server.client('a'), leases: server.listerWatcher('a'), namespace: 'default', identity: 'a', scheduler };
    let error: unknown;
    scheduler.run(() => {
      try {
        void startShardRing({ ...base, ring: 'r'.repeat(64) }).stop();
      } catch (e) {
        error = e;
      }
    });
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(String(error)).toMatch(/at most 63/);
  });

  it('should not throw out of its consistent read when a page holds an item that is not an object', () => {
    // Each read after a write threw a TypeError in a subscriber (14 in 30 s): uncaught, it ends a Node process.
    const unhandled: unknown[] = [];
    config.onUnhandledError = (e) => unhandled.push(e);
    try {
      const { history } = ringScenario(30_000, ({ server, join }) => {
        const real = server.listerWatcher('a');
        let lists = 0;
        const leases: ShardRingOptions['leases'] = {
          list: (o) => real.list(o).pipe(map((page) => (++lists === 1 ? page : { ...page, items: [...page.items, null as never] }))),
          watch: (o) => real.watch(o),
        };
        join('a', { leases });
      });
      expect(unhandled).toEqual([]);
      expect(history.filter((h) => h.active > 0)).toEqual([]); // no claim confirmed by a read it could not trust
    } finally {
      config.onUnhandledError = null;
    }
  });
});

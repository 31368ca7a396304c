import { describe, expect, it } from '@jest/globals';
import { EMPTY, NEVER, Observable, map, of, throwError, timer, switchMap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { InvalidObjectError, InvalidOptionsError, RequestTimeoutError } from '../errors.ts';
import { InvalidLeaseError, LEASE_INSTANCE_ANNOTATION, LEASE_RELEASED, type Lease } from './lease.ts';
import { leaderElection, type LeaderElectionOptions, type LeaderElectionState } from './leaderElection.ts';
import { DuplicateIdentityError } from './leaderElectionRules.ts';
import type { LeaseClient } from './leaseClient.ts';
import { FakeLeaseServer, TermLog } from '@rxinformer/testing';

const ts = () => new TestScheduler((a, b) => expect(a).toEqual(b));
const KEY = 'default/ctl';

/** Runs candidates against one fake server in virtual time until `endMs`; returns their states and terms. */
function scenario(
  endMs: number,
  script: (ctx: {
    server: FakeLeaseServer;
    start: (who: string, extra?: Partial<LeaderElectionOptions>) => ReturnType<typeof leaderElection>;
    at: (ms: number, fn: () => void) => void;
    states: Record<string, [number, LeaderElectionState][]>;
  }) => void,
) {
  const scheduler = ts();
  const states: Record<string, [number, LeaderElectionState][]> = {};
  const terms = new TermLog(scheduler);
  let server!: FakeLeaseServer;
  scheduler.run(() => {
    server = new FakeLeaseServer(scheduler);
    const subs: { unsubscribe(): void }[] = [];
    const start = (who: string, extra: Partial<LeaderElectionOptions> = {}) => {
      const election = leaderElection({
        client: server.client(who),
        namespace: 'default',
        name: 'ctl',
        identity: who,
        scheduler,
        random: () => 0.5,
        ...extra,
      });
      states[who] = [];
      subs.push(
        election.subscribe((s) => {
          states[who].push([scheduler.now(), s]);
          terms.record(who, s.phase === 'leading');
        }),
      );
      return election;
    };
    const at = (ms: number, fn: () => void) => void scheduler.schedule(fn, ms);
    script({ server, start, at, states });
    at(endMs, () => subs.forEach((s) => s.unsubscribe()));
  });
  return { states, terms, server };
}

const phases = (list: [number, LeaderElectionState][]) =>
  list.map(([t, s]) => `${t} ${s.phase}${s.phase === 'following' ? ` ${s.holder ?? '-'}${s.lost ? ' lost' : ''}` : ''}`);

describe('leaderElection', () => {
  it('should create the Lease and lead at once when there is none', () => {
    let lease: Lease | undefined;
    const { states } = scenario(1000, ({ start, at, server }) => {
      start('a', { wallClock: () => Date.UTC(2026, 10, 27, 9) });
      at(500, () => (lease = server.leases.get(KEY)));
    });
    expect(phases(states.a)).toEqual(['10 leading']); // get (5 ms) then create (5 ms)
    expect(lease!.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(lease!.spec!.renewTime).toBe('2026-11-27T09:00:00.000000Z'); // the wall clock at the attempt's start
  });

  it('should follow the holder, and take over at once when the leader releases the Lease on stop', () => {
    const { states, terms, server } = scenario(60_000, ({ start, at }) => {
      const a = start('a');
      at(1000, () => start('b'));
      at(20_000, () => void a.stop());
    });
    // b tries every 3200 ms (2000 × (1 + 0.5 × 1.2)): its first try after the release at 20005 wins.
    expect(phases(states.b)).toEqual(['1005 following a', '20240 leading']);
    expect(phases(states.a)).toEqual(['10 leading', '20005 stopped']);
    expect(server.writes.find((w) => w.at === 20_005)).toMatchObject({ holder: '', by: 'a' });
    expect(terms.overlaps()).toEqual([]);
  });

  it('should release on stop even when the renewal it cut short had landed on the server', () => {
    // A server applies a write whose answer the client stops waiting for: stop() aborts a renewal in
    // flight, and the Lease is then newer than what a saw. Its release must still land.
    const { states, terms, server } = scenario(60_000, ({ start, at, server }) => {
      const fast = server.client('a');
      const a = start('a', {
        client: {
          ...fast,
          update: (lease) => {
            let written: Lease;
            try {
              written = server.update(lease, 'a'); // lands now; the answer takes 100 ms
            } catch (e) {
              return throwError(() => e);
            }
            return timer(100, server.scheduler).pipe(map(() => written));
          },
        },
      });
      at(1000, () => start('b'));
      at(2050, () => void a.stop()); // a's renewal went out at 2010: applied, unanswered
    });
    expect(server.writes.filter((w) => w.by === 'a').map((w) => [w.at, w.holder])).toEqual([
      [10, 'a'],
      [2010, 'a'],
      [2055, ''], // the release met a 409 at 2050, read the Lease (5 ms) and released that
    ]);
    // b's next try after 1005 (every 3200 ms) finds the Lease released: it does not wait out 15 s.
    expect(phases(states.b)).toEqual(['1005 following a', '4215 leading']);
    expect(terms.overlaps()).toEqual([]);
  });

  it('should step down at the renew deadline when renewals fail, before the Lease can expire for others', () => {
    const { states, terms, server } = scenario(60_000, ({ start, at, server }) => {
      start('a');
      at(1000, () => start('b'));
      at(6001, () => server.failing.set('a', 'writes'));
    });
    // a renews at 2010 and 4015 (every 2000 ms after an answer); the try at 6020 fails. Its last
    // successful renewal started at 4015: it leads until 14015 and not a moment longer.
    expect(phases(states.a).slice(0, 2)).toEqual(['10 leading', '14015 following a lost']);
    // b read a's renewal of 4020 at 4210 (its tries: 1000, 4205, …): it takes the Lease 15 s after that.
    const bLeads = states.b.find(([, s]) => s.phase === 'leading')![0];
    expect(bLeads).toBeGreaterThanOrEqual(4210 + 15_000);
    expect(bLeads).toBeLessThan(4210 + 15_000 + 3205);
    expect(server.leases.get(KEY)!.spec!.leaseTransitions).toBe(1);
    expect(terms.overlaps()).toEqual([]);
  });

  it('should change the Lease at every renewal while its wall clock stands still, so no follower takes it', () => {
    // A virtual or frozen wall clock wrote the same renewTime every time: the record did not change,
    // so b took the Lease 15 s after it last saw it change, beside a.
    const { states, terms, server } = scenario(60_000, ({ start, at }) => {
      start('a', { wallClock: () => Date.UTC(2026, 10, 27, 9) });
      at(1000, () => start('b'));
    });
    expect(phases(states.b)).toEqual(['1005 following a']);
    expect(terms.overlaps()).toEqual([]);
    expect(server.leases.get(KEY)!.spec!.renewTime).toMatch(/^2026-11-27T09:00:00\.000\d{3}Z$/); // a microsecond a renewal
  });

  it('should judge expiry by when the record was seen changing, not by the times written in it', () => {
    const { states } = scenario(60_000, ({ server, start, at }) => {
      // A holder whose clock runs a day ahead, and that never renews.
      server.create({
        metadata: { namespace: 'default', name: 'ctl' },
        spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15, renewTime: '1970-01-02T00:00:00.000000Z' },
      });
      at(3000, () => start('b'));
    });
    const [first, second] = phases(states.b);
    expect(first).toBe('3005 following ghost');
    const leadAt = Number(second.split(' ')[0]);
    expect(second.endsWith('leading')).toBe(true);
    expect(leadAt).toBeGreaterThanOrEqual(3005 + 15_000); // first seen at 3005
    expect(leadAt).toBeLessThan(3005 + 15_000 + 3200);
  });

  it('should treat a nonsense duration as its own, and report the Lease as invalid', () => {
    const { states } = scenario(60_000, ({ server, start }) => {
      server.create({ metadata: { namespace: 'default', name: 'ctl' }, spec: { holderIdentity: 'ghost', leaseDurationSeconds: -5 } });
      start('b');
    });
    const [, first] = states.b[0];
    expect(first.phase === 'following' && first.warning).toBeInstanceOf(InvalidLeaseError);
    const leadAt = states.b.find(([, s]) => s.phase === 'leading')![0];
    expect(leadAt).toBeGreaterThanOrEqual(5 + 15_000); // never sooner than our own duration
  });

  it('should never lead beside another process that uses the same identity, and say so', () => {
    const { states, terms } = scenario(120_000, ({ start, at }) => {
      start('a');
      at(500, () => start('a2', { identity: 'a' }));
    });
    const warnings = states.a2.map(([, s]) => (s.phase === 'following' ? s.warning : undefined));
    expect(warnings[0]).toBeInstanceOf(DuplicateIdentityError);
    expect(states.a2.some(([, s]) => s.phase === 'leading')).toBe(false);
    expect(terms.overlaps()).toEqual([]);
  });

  it('should let exactly one of two candidates win a free Lease (a 409 loses the race)', () => {
    const { states, terms } = scenario(30_000, ({ start }) => {
      start('a');
      start('b');
    });
    const leaders = Object.entries(states).filter(([, l]) => l.some(([, s]) => s.phase === 'leading'));
    expect(leaders).toHaveLength(1);
    expect(terms.overlaps()).toEqual([]);
  });

  it('should wait out an emptied holder that was not released on purpose (a hand edit), but not a release', () => {
    const { states } = scenario(60_000, ({ server, start, at }) => {
      server.create({ metadata: { namespace: 'default', name: 'ctl' }, spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15 } });
      start('b');
      at(4000, () => server.edit(KEY, { holderIdentity: '' }));
    });
    expect(states.b.find(([, s]) => s.phase === 'leading')![0]).toBeGreaterThanOrEqual(4000 + 15_000);
    const released = scenario(60_000, ({ server, start }) => {
      server.create({
        metadata: { namespace: 'default', name: 'ctl', annotations: { [LEASE_INSTANCE_ANNOTATION]: LEASE_RELEASED } },
        spec: { holderIdentity: '' },
      });
      start('b');
    });
    expect(phases(released.states.b)).toEqual(['10 leading']);
  });

  it('should never have two leaders through random failures, latencies and stops', () => {
    for (let seed = 1; seed <= 20; seed++) {
      let x = seed;
      const rand = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const { terms } = scenario(300_000, ({ start, at, server }) => {
        for (const who of ['a', 'b', 'c']) at(Math.floor(rand() * 5000), () => start(who, { random: rand }));
        for (let t = 0; t < 300_000; t += 3000) {
          const who = ['a', 'b', 'c'][Math.floor(rand() * 3)];
          const mode = rand();
          at(t, () => (mode < 0.3 ? server.failing.set(who, mode < 0.1 ? 'all' : 'writes') : server.failing.delete(who)));
        }
      });
      expect({ seed, overlaps: terms.overlaps(300_000) }).toEqual({ seed, overlaps: [] });
      expect(terms.terms.length).toBeGreaterThan(1);
    }
  });

  it('should refuse options that break the rules', () => {
    const base = { client: new FakeLeaseServer(ts()).client('x'), namespace: 'default', name: 'ctl', identity: 'x' };
    expect(() => leaderElection({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(InvalidOptionsError);
    expect(() => leaderElection({ ...base, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toThrow(/jitter/);
    expect(() => leaderElection({ ...base, leaseDurationMs: 15_500 })).toThrow(/whole seconds/);
    expect(() => leaderElection({ ...base, identity: '' })).toThrow(/identity/);
    expect(() => leaderElection({ ...base, wallClock: 0 as never })).toThrow(/wallClock must be a function/);
    expect(() => leaderElection({ ...base, scheduler: Date as never })).toThrow(/scheduler must be an RxJS scheduler/);
  });

  it('should refuse a retry period as long as the renew deadline, which would end every term', () => {
    // With jitter 0 and retryPeriodMs 12000 (renewDeadlineMs 10000) it was accepted, and the leader
    // lost every term at its deadline before its first renewal: 5 lost terms in 120 s.
    const base = { client: new FakeLeaseServer(ts()).client('x'), namespace: 'default', name: 'ctl', identity: 'x' };
    expect(() => leaderElection({ ...base, jitter: 0, retryPeriodMs: 12_000 })).toThrow(InvalidOptionsError);
    expect(() => leaderElection({ ...base, jitter: 0.5, retryPeriodMs: 10_000 })).toThrow(/greater than retryPeriodMs/);
    expect(() => leaderElection({ ...base, jitter: 0, retryPeriodMs: 8_000 })).not.toThrow();
  });

  it('should refuse durations longer than a JavaScript timer holds, which would fire at once', () => {
    const base = { client: new FakeLeaseServer(ts()).client('x'), namespace: 'default', name: 'ctl', identity: 'x' };
    const long = { leaseDurationMs: 3_000_000_000, renewDeadlineMs: 2_500_000_000 };
    expect(() => leaderElection({ ...base, ...long })).toThrow(InvalidOptionsError);
    expect(() => leaderElection({ ...base, jitter: 0, retryPeriodMs: 3e9, renewDeadlineMs: 2e9, leaseDurationMs: 2_100_000_000 })).toThrow(
      /longest a JavaScript timer holds/,
    );
  });
});

describe('leaderElection with a careless LeaseClient', () => {
  /** Counts the requests of one candidate over `endMs` of virtual time against `client`, each answered after 5 ms. */
  function against(
    endMs: number,
    answer: (verb: 'get' | 'create' | 'update', lease?: Lease) => Observable<Lease | undefined>,
    random = () => 0.5,
  ) {
    const scheduler = ts();
    let requests = 0;
    const states: LeaderElectionState[] = [];
    scheduler.run(() => {
      const call = (verb: 'get' | 'create' | 'update', lease?: Lease) =>
        timer(5, scheduler).pipe(switchMap(() => (requests++, answer(verb, lease))));
      const client = { get: () => call('get'), create: (l) => call('create', l), update: (l) => call('update', l) } as LeaseClient;
      const sub = leaderElection({ client, namespace: 'default', name: 'ctl', identity: 'me', scheduler, random }).subscribe((s) =>
        states.push(s),
      );
      scheduler.schedule(() => sub.unsubscribe(), endMs);
    });
    return { requests, states };
  }
  const held = (rv: string): Lease => ({
    metadata: { namespace: 'default', name: 'ctl', resourceVersion: rv },
    spec: { holderIdentity: 'other', leaseDurationSeconds: 15 },
  });

  it('should wait a retry period between tries whatever the random function answers', () => {
    // NaN or 4e9 made the delay NaN or 10^13 ms: a timer that fires at once, 400 requests a second.
    for (const r of [NaN, 4e9, -1]) {
      const { requests } = against(
        10_000,
        () => of(held('1')),
        () => r,
      );
      expect({ r, requests }).toEqual({ r, requests: 5 }); // reads every 2005 ms
    }
    const base = { client: new FakeLeaseServer(ts()).client('x'), namespace: 'default', name: 'ctl', identity: 'x' };
    expect(() => leaderElection({ ...base, random: 0.5 as unknown as () => number })).toThrow(/random must be a function/);
  });

  it('should try once per retry period when a read answers twice', () => {
    // Each answer forked the loop: 184 requests in 10 s, doubling every try.
    const { requests } = against(10_000, (verb, lease) => (verb === 'get' ? of(held('1'), held('1')) : of(lease)));
    expect(requests).toBe(4); // reads at 0, 3205, 6410, 9615 (every 3200 ms plus 5 ms latency)
  });

  it('should keep trying, and say why, when the client completes without an answer', () => {
    // It stalled for good after one request, with no state at all.
    const { requests, states } = against(10_000, () => EMPTY);
    expect(requests).toBe(4);
    expect(states[0]).toMatchObject({ phase: 'following', lastError: expect.any(InvalidObjectError) });
  });

  it('should report an attempt with no answer by the renew deadline as a RequestTimeoutError', () => {
    // rxjs's untyped TimeoutError ("Timeout has occurred") before.
    const { requests, states } = against(30_000, () => NEVER);
    expect(requests).toBe(3); // an attempt per 10 s deadline and 3.2 s wait: at 0, 13200 and 26400
    expect(states[0]).toMatchObject({ phase: 'following', lastError: expect.any(RequestTimeoutError) });
    const error = (states[0] as { lastError?: Error }).lastError as RequestTimeoutError;
    expect([error.reason, error.path]).toEqual(['Timeout', 'the Lease /apis/coordination.k8s.io/v1/namespaces/default/leases/ctl']);
  });

  it('should not write over a read that is not a Lease with a resourceVersion', () => {
    let writes = 0;
    const { states } = against(30_000, (verb, lease) => {
      if (verb !== 'get') writes++;
      return verb === 'get' ? of(null as unknown as Lease) : of(lease);
    });
    expect(writes).toBe(0); // it wrote a Lease without a resourceVersion: an unconditional write, after 15 s
    expect(states.every((s) => s.phase === 'following' && s.lastError instanceof InvalidObjectError)).toBe(true);
  });
});

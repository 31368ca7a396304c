import { describe, expect, it } from '@jest/globals';
import { Registry, register } from 'prom-client';
import { Subject, of, type Observable } from 'rxjs';
import { leaderElection, type LeaderElection, type LeaderElectionState } from '@rxinformer/core/leader-election';
import { type ShardRing } from '@rxinformer/core/sharding';
import { FakeLeaseServer, virtualClock } from '@rxinformer/testing';
import { parseExposition, sampleValue } from '../test/exposition.ts';
import { leaderElectionMetrics } from './leaderElectionMetrics.ts';

/**
 * What the metric's type refuses: checked by `tsc -b` (each line must be an error), never run.
 * Observables of anything but booleans — a `LeaderElection`'s own states above all, read as
 * booleans they were always 0 — and whatever has no `isLeader$`.
 */
export function refusedAtCompileTime(states: Observable<LeaderElectionState>, ring: ShardRing, o = { name: 'x' }): void {
  // @ts-expect-error an election's states are not booleans: pass the election itself
  leaderElectionMetrics(states, o);
  // @ts-expect-error a ring's states neither
  leaderElectionMetrics(ring.state$, o);
  // @ts-expect-error nor numbers
  leaderElectionMetrics(of(1), o);
  // @ts-expect-error nor anything unknown
  leaderElectionMetrics(of<unknown>(true), o);
  // @ts-expect-error an isLeader$ must be of booleans
  leaderElectionMetrics({ isLeader$: of('yes') }, o);
  // @ts-expect-error a promise is not a stream
  leaderElectionMetrics(Promise.resolve(true), o);
  // @ts-expect-error nor a value
  leaderElectionMetrics(true, o);
}

/** What it takes: a `LeaderElection`, anything with an `isLeader$`, an `Observable<boolean>`. */
export function acceptedAtCompileTime(election: LeaderElection, o = { name: 'x' }): void {
  leaderElectionMetrics(election, o);
  leaderElectionMetrics(election.isLeader$, o);
  leaderElectionMetrics({ isLeader$: election.isLeader$ }, o);
  leaderElectionMetrics(new Subject<boolean>(), o);
}

describe('leaderElectionMetrics', () => {
  it("should report client-go's leader_election_master_status: 1 while leading, 0 otherwise", async () => {
    const registry = new Registry();
    const leading = new Subject<boolean>();
    const metrics = leaderElectionMetrics({ isLeader$: leading }, { name: 'my-controller', registry });
    const status = async () =>
      sampleValue(parseExposition(await registry.metrics()), 'leader_election_master_status', { name: 'my-controller' });
    expect(await status()).toBe(0);
    leading.next(true);
    expect(await status()).toBe(1);
    leading.next(false);
    expect(await status()).toBe(0);
    leading.next(true);
    leading.complete();
    expect(await status()).toBe(0);
    metrics.unregister();
    expect(leading.observed).toBe(false);
    expect(() => leaderElectionMetrics({} as never, { name: 'x', registry })).toThrow(/isLeader\$/);
  });

  it("should follow the election's isLeader$ when given the election, as the README shows", async () => {
    // A LeaderElection is an Observable of states: the metric read them as booleans, always 0.
    const { ts, advance } = virtualClock(5);
    const server = new FakeLeaseServer(ts);
    const podName = 'pod-a';
    const client = server.client(podName);
    const status = async () =>
      sampleValue(parseExposition(await register.metrics()), 'leader_election_master_status', { name: 'my-controller' });
    const election = leaderElection({ client, namespace: 'kube-system', name: 'my-controller', identity: podName, scheduler: ts });
    const metrics = leaderElectionMetrics(election, { name: 'my-controller' });
    try {
      expect(await status()).toBe(0); // not leading yet: it reads and creates the Lease first (10 ms)
      await advance(100);
      expect(await status()).toBe(1);
      const stopped = election.stop();
      await advance(200);
      await stopped;
      expect(await status()).toBe(0);
    } finally {
      metrics.unregister();
    }
  });
});

import { describe, expect, it } from '@jest/globals';
import { Observable, asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { leaderElection } from './leaderElection.ts';
import { whileLeading } from './whileLeading.ts';
import { FakeLeaseServer } from '@rxinformer/testing';

describe('whileLeading', () => {
  it('should run the work only while leading, stop it at the renew deadline, and start it again with the next term', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    const log: string[] = [];
    ts.run(() => {
      const server = new FakeLeaseServer(ts);
      const election = leaderElection({
        client: server.client('a'),
        namespace: 'default',
        name: 'ctl',
        identity: 'a',
        scheduler: ts,
        random: () => 0,
      });
      const work = new Observable<string>((sub) => {
        log.push(`${ts.now()} start`);
        sub.next('working');
        return () => log.push(`${ts.now()} stop`);
      });
      const run = whileLeading(election, () => work).subscribe((v) => log.push(`${ts.now()} ${v}`));
      ts.schedule(() => server.failing.set('a', 'writes'), 6001);
      ts.schedule(() => server.failing.delete('a'), 20_000);
      ts.schedule(() => run.unsubscribe(), 40_000);
    });
    // Renewals at 2010 and 4015 succeed, 6020 fails: the term ends at 4015 + 10000. The Lease is still
    // ours when writes work again: the try of 20035 (one every 2000 ms after each 15 ms answer:
    // update, read, update) renews it.
    expect(log).toEqual(['10 start', '10 working', '14015 stop', '20050 start', '20050 working', '40000 stop']);
  });

  it('should release the Lease only after a controller stopped, and not start the next term before', async () => {
    const server = new FakeLeaseServer(asyncScheduler, 1);
    const events: string[] = [];
    const election = leaderElection({
      client: server.client('a'),
      namespace: 'default',
      name: 'ctl',
      identity: 'a',
      retryPeriodMs: 50,
      renewDeadlineMs: 100,
      leaseDurationMs: 1000,
    });
    let release!: () => void;
    const run = whileLeading(election, () => {
      events.push('start');
      return {
        stop: () => {
          events.push('stopping');
          return new Promise<void>((r) => (release = r));
        },
      };
    }).subscribe();
    while (!events.includes('start')) await new Promise((r) => setTimeout(r, 5));
    run.unsubscribe();
    await new Promise((r) => setTimeout(r, 100));
    expect(server.leases.get('default/ctl')!.spec!.holderIdentity).toBe('a'); // still held while stopping
    events.push('stopped');
    release();
    while (server.leases.get('default/ctl')!.spec!.holderIdentity !== '') await new Promise((r) => setTimeout(r, 5));
    expect(events).toEqual(['start', 'stopping', 'stopped']);
  });
});

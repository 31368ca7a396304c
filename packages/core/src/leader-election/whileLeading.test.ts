import { describe, expect, it } from '@jest/globals';
import { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { leaderElection } from './leaderElection.ts';
import { whileLeading } from './whileLeading.ts';
import { FakeLeaseServer, virtualClock } from '@rxinformer/testing';

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
    const { ts, advance } = virtualClock(50);
    const server = new FakeLeaseServer(ts, 1);
    const holder = () => server.leases.get('default/ctl')?.spec?.holderIdentity;
    const events: string[] = [];
    const election = leaderElection({
      client: server.client('a'),
      namespace: 'default',
      name: 'ctl',
      identity: 'a',
      retryPeriodMs: 50,
      renewDeadlineMs: 100,
      leaseDurationMs: 1000,
      scheduler: ts,
      random: () => 0,
    });
    let release!: () => void;
    const run = whileLeading(election, () => {
      events.push(`${ts.now()} start`);
      return {
        stop: () => {
          events.push('stopping');
          return new Promise<void>((r) => (release = r));
        },
      };
    }).subscribe();
    await advance(100);
    expect(events).toEqual(['2 start']); // acquired at 2: a read and a create, 1 ms each
    run.unsubscribe();
    await advance(3000); // past the renew deadline and the Lease's duration: still renewed while stopping
    expect(holder()).toBe('a');
    expect(events).toEqual(['2 start', 'stopping']);
    release();
    await advance(3100);
    expect(holder()).toBe(''); // released once stop() settled
    expect(events).toEqual(['2 start', 'stopping']); // and no next term began
  });
});

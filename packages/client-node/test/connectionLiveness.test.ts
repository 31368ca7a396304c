import { describe, expect, it } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { flushTo } from '@rxinformer/testing';
import { ConnectionUnresponsiveError, watchLiveness, type LivenessTarget } from '../src/connectionLiveness.ts';

// The health check in virtual time: a connection whose reads and PING acks come when the test says.
const times = { readIdleTimeoutMs: 30_000, pingTimeoutMs: 15_000 };

/** A connection on `scheduler`: reads at `readsAt`, an ack `ackAfterMs` after each PING (never when undefined). */
function connection(scheduler: VirtualTimeScheduler, readsAt: number[], ackAfterMs?: number) {
  let bytes = 0;
  const log: string[] = [];
  for (const at of readsAt) scheduler.schedule(() => (bytes += 100), at);
  const target: LivenessTarget = {
    bytesRead: () => bytes,
    ping: (onAck) => {
      log.push(`${scheduler.now()} ping`);
      if (ackAfterMs !== undefined)
        scheduler.schedule(() => {
          bytes += 17; // the ack is a frame read too
          onAck(null);
        }, ackAfterMs);
    },
    unresponsive: (error) => log.push(`${scheduler.now()} unresponsive: ${error.message}`),
  };
  return { target, log };
}

describe('watchLiveness', () => {
  it('should ping a connection once it has read nothing for readIdleTimeoutMs, and keep pinging a quiet one while the acks come', () => {
    const scheduler = new VirtualTimeScheduler();
    const { target, log } = connection(scheduler, [10_000, 20_000], 1_000);
    watchLiveness(target, times, scheduler);
    flushTo(scheduler, 130_000);
    // Looks every 7.5 s: the last read (20 s) is seen at 22.5 s, and 30 s of silence from there
    // send a PING at 52.5 s; its ack (53.5 s) is a read, so the next PING is 30 s after it.
    expect(log).toEqual(['52500 ping', '83500 ping', '114500 ping']);
  });

  it('should not ping while bytes keep coming', () => {
    const scheduler = new VirtualTimeScheduler();
    const { target, log } = connection(
      scheduler,
      Array.from({ length: 20 }, (_, i) => (i + 1) * 5_000),
      1_000,
    );
    watchLiveness(target, times, scheduler);
    flushTo(scheduler, 125_000);
    expect(log).toEqual([]); // reads every 5 s until 100 s; silence from there is not 30 s long yet
  });

  it('should declare the connection unresponsive, once, when an ack does not come within pingTimeoutMs', () => {
    const scheduler = new VirtualTimeScheduler();
    const { target, log } = connection(scheduler, [], undefined);
    watchLiveness(target, times, scheduler);
    flushTo(scheduler, 300_000);
    expect(log).toEqual(['30000 ping', `45000 unresponsive: ${new ConnectionUnresponsiveError(15_000).message}`]);
  });

  it('should take a late ack as no ack, and a byte read while waiting as no ack either', () => {
    const scheduler = new VirtualTimeScheduler();
    const { target, log } = connection(scheduler, [40_000], 20_000);
    watchLiveness(target, times, scheduler);
    flushTo(scheduler, 300_000);
    expect(log).toEqual(['30000 ping', '45000 unresponsive: the HTTP/2 connection is unresponsive: no PING ack within 15000 ms']);
  });

  it('should stop on stop(), and never start with readIdleTimeoutMs 0', () => {
    const scheduler = new VirtualTimeScheduler();
    const stopped = connection(scheduler, []);
    watchLiveness(stopped.target, times, scheduler).stop();
    const off = connection(scheduler, []);
    watchLiveness(off.target, { ...times, readIdleTimeoutMs: 0 }, scheduler);
    flushTo(scheduler, 300_000);
    expect([stopped.log, off.log]).toEqual([[], []]);
  });

  it('should leave a connection whose PING failed to be sent to its own close', () => {
    const scheduler = new VirtualTimeScheduler();
    const log: string[] = [];
    const target: LivenessTarget = {
      bytesRead: () => 0,
      ping: (onAck) => onAck(new Error('ERR_HTTP2_PING_CANCEL')),
      unresponsive: () => log.push('unresponsive'),
    };
    watchLiveness(target, times, scheduler);
    flushTo(scheduler, 300_000);
    expect(log).toEqual([]);
  });

  it('should type an unresponsive connection with a code core makes a NetworkError of', () => {
    const error = new ConnectionUnresponsiveError(15_000);
    expect([error.name, error.code, error.pingTimeoutMs, error instanceof Error]).toEqual([
      'ConnectionUnresponsiveError',
      'ERR_HTTP2_PING_TIMEOUT',
      15_000,
      true,
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, servedInformer } from '../../test/channelKit.ts';
import { inProcessConnections } from './connection.ts';
import { createInformerServer } from './informerServer.ts';
import type { ServerMessage } from './protocol.ts';
import type { KubeObject } from '../types.ts';

/** A server whose connection reports a backlog the test sets, and a client recording what arrives. */
function congestible(maxPendingBytes: number) {
  const ts = testScheduler();
  const { api, informer } = servedInformer(ts);
  const reports: string[] = [];
  const server = createInformerServer({
    informerFor: () => informer,
    scheduler: ts,
    highWaterBytes: 1000,
    maxPendingBytes,
    onBackpressure: (what, n) => reports.push(`${what} ${n}`),
  });
  const [client, end] = inProcessConnections({ scheduler: ts });
  const drained$ = new Subject<void>();
  const link = { buffered: 0 };
  server.serve({ ...end, backpressure: { buffered: () => link.buffered, drained$, sizeOf: () => 100 } });
  const received: ServerMessage[] = [];
  client.messages$.subscribe((m) => received.push(m as ServerMessage));
  client.send({ t: 'hello', v: 1 });
  client.send({ t: 'watch', id: 'w', resource: PODS, scope: {}, options: {} });
  const events = () =>
    received.flatMap((m): string[] => {
      if (m.t === 'error') return [`error ${m.status.code}`];
      if (m.t !== 'events') return [];
      return m.events.map((e) => `${e.type} ${(e.object as KubeObject).metadata?.name}@${e.object.metadata?.resourceVersion}`);
    });
  return { ts, api, informer, link, drained$, events, reports };
}

describe('a watch over a congested connection', () => {
  it('should hold its events coalesced by key while the backlog is over the high water, and send them when it drains', () => {
    const { ts, api, informer, link, drained$, events, reports } = congestible(1 << 20);
    api.create('a'); // 2
    informer.start();
    advance(ts, 5);
    expect(events()).toEqual(['ADDED a@2']);
    link.buffered = 5000;
    api.update('a'); // 3
    api.create('b'); // 4
    advance(ts, 10);
    api.update('a'); // 5
    api.update('b'); // 6
    api.delete('b'); // 7
    advance(ts, 20);
    expect(events()).toEqual(['ADDED a@2']); // held
    link.buffered = 0;
    drained$.next();
    advance(ts, 30);
    // b was added and deleted while held: its client never had it, and hears nothing of it.
    expect(events()).toEqual(['ADDED a@2', 'MODIFIED a@5']);
    expect(reports).toEqual(['coalesced 4']); // a@3 by a@5; b@4 by b@6, then both by b@7
  });

  it('should fail the stream with 410 past its budget of held bytes, so that its client relists', () => {
    const { ts, api, informer, link, events, reports } = congestible(250);
    informer.start();
    advance(ts, 5);
    link.buffered = 5000;
    for (const n of ['a', 'b']) api.create(n);
    advance(ts, 10);
    expect(events()).toEqual([]);
    api.create('c'); // 300 bytes held: over
    advance(ts, 20);
    expect(events()).toEqual(['error 410']);
    expect(reports).toEqual(['resync 1']);
  });
});

import { describe, expect, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, rawClient, servedInformer } from '../../test/channelKit.ts';
import { InvalidOptionsError } from '../errors.ts';
import { createInformerServer } from './informerServer.ts';

describe('a watch served in batches (batchMs)', () => {
  it('should send the events of each interval as one message, coalesced by key, nothing of an object added and deleted in it', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, { batchMs: 16 });
    api.create('a'); // 2
    informer.start();
    const c = rawClient(server, ts);
    c.send({ t: 'watch', id: 'w', resource: PODS, scope: {}, options: { resourceVersion: '2' } });
    advance(ts, 5);
    expect(c.of('w').map((m) => m.t)).toEqual(['open']);
    api.update('a'); // 3, at 5: the batch is sent at 21
    api.create('b'); // 4
    advance(ts, 10);
    api.update('a'); // 5
    api.create('c'); // 6
    api.delete('c'); // 7
    advance(ts, 20);
    expect(c.of('w').map((m) => m.t)).toEqual(['open']); // still gathering
    advance(ts, 21);
    expect(c.of('w').map((m) => m.t)).toEqual(['open', 'events']);
    expect(c.events('w')).toEqual(['ADDED b@4', 'MODIFIED a@5']);
    api.delete('b'); // 8, at 21: sent at 37
    advance(ts, 36);
    expect(c.events('w')).toEqual(['ADDED b@4', 'MODIFIED a@5']);
    advance(ts, 37);
    expect(c.of('w').map((m) => m.t)).toEqual(['open', 'events', 'events']);
    expect(c.events('w').slice(2)).toEqual(['DELETED b@8']);
  });

  it('should refuse a batch longer than a minute, or not a number', () => {
    for (const batchMs of [60_001, Infinity, NaN, -1])
      expect(() => createInformerServer({ informerFor: () => undefined as never, batchMs })).toThrow(InvalidOptionsError);
  });
});

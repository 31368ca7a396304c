import { describe, expect, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, rawClient, servedInformer } from '../../test/channelKit.ts';
import type { ListPage } from '../types.ts';
import type { ServerMessage } from './protocol.ts';

const pageOf = (m: ServerMessage | undefined): ListPage => {
  if (m?.t !== 'page') throw new Error(`expected a page, got ${JSON.stringify(m)}`);
  return m.page;
};
const names = (p: ListPage) => p.items.map((o) => o.metadata?.name);
const statusOf = (m: ServerMessage | undefined) => (m?.t === 'error' ? { code: m.status.code, reason: m.status.reason } : m);

describe('a list served from the informer cache', () => {
  it('should page the cache at its resource version, from a snapshot pinned while the cache moves on, without asking the API', () => {
    const ts = testScheduler();
    const { api, calls, informer, server } = servedInformer(ts);
    for (const n of ['a', 'b', 'c', 'd', 'e']) api.create(n);
    informer.start();
    const c = rawClient(server, ts);
    const list = (id: string, options: object) => c.send({ t: 'list', id, resource: PODS, scope: {}, options });
    list('1', { limit: 2 });
    advance(ts, 0);
    const first = pageOf(c.of('1')[0]);
    expect(first.metadata).toEqual({ resourceVersion: '6', continue: expect.any(String), remainingItemCount: 3 });
    api.update('a');
    api.delete('b');
    api.create('f');
    advance(ts, 10);
    list('2', { limit: 2, continue: first.metadata!.continue });
    advance(ts, 20);
    const second = pageOf(c.of('2')[0]);
    list('3', { limit: 2, continue: second.metadata!.continue });
    advance(ts, 30);
    const third = pageOf(c.of('3')[0]);
    // The pages of the snapshot at 6, whatever changed since: every object once, none of the later ones.
    expect([...names(first), ...names(second), ...names(third)].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([second.metadata?.resourceVersion, third.metadata]).toEqual(['6', { resourceVersion: '6' }]);
    // A new list is at the cache's newest, in one page without a limit.
    list('4', {});
    advance(ts, 40);
    expect(pageOf(c.of('4')[0])).toMatchObject({ metadata: { resourceVersion: '9' }, apiVersion: 'v1', kind: 'PodList' });
    expect(names(pageOf(c.of('4')[0])).sort()).toEqual(['a', 'c', 'd', 'e', 'f']);
    expect(calls.list).toBe(1); // the informer's own list; every page came from its cache
  });

  it('should answer 410 Expired for a continue token past its time or already used up, and 400 for one it never gave', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, { continueTtlMs: 1000 });
    for (const n of ['a', 'b', 'c']) api.create(n);
    informer.start();
    const c = rawClient(server, ts);
    const list = (id: string, options: object) => c.send({ t: 'list', id, resource: PODS, scope: {}, options });
    list('1', { limit: 2 });
    advance(ts, 0);
    const token = pageOf(c.of('1')[0]).metadata!.continue!;
    list('2', { limit: 2, continue: token });
    advance(ts, 10);
    expect(pageOf(c.of('2')[0]).metadata?.continue).toBeUndefined();
    list('3', { limit: 2, continue: token }); // the snapshot was let go with its last page
    list('4', { limit: 1 });
    advance(ts, 20);
    const late = pageOf(c.of('4')[0]).metadata!.continue!;
    advance(ts, 1100);
    list('5', { limit: 1, continue: late });
    list('6', { limit: 1, continue: 'forged' });
    advance(ts, 1200);
    expect(['3', '5', '6'].map((id) => statusOf(c.of(id)[0]))).toEqual([
      { code: 410, reason: 'Expired' },
      { code: 410, reason: 'Expired' },
      { code: 400, reason: 'BadRequest' },
    ]);
  });

  it('should serve a resource version the cache has reached, wait for one ahead, and answer 410 when it is not reached in time', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, { rvWaitMs: 3000 });
    api.create('a'); // rv 2
    informer.start();
    const c = rawClient(server, ts);
    const list = (id: string, options: object) => c.send({ t: 'list', id, resource: PODS, scope: {}, options });
    list('now', { resourceVersion: '2' });
    list('ahead', { resourceVersion: '3', resourceVersionMatch: 'NotOlderThan' });
    list('never', { resourceVersion: '99' });
    list('exact', { resourceVersion: '1', resourceVersionMatch: 'Exact' });
    advance(ts, 1000);
    expect(pageOf(c.of('now')[0]).metadata?.resourceVersion).toBe('2');
    expect(c.of('ahead')).toEqual([]);
    api.create('b'); // rv 3
    advance(ts, 1010);
    expect(pageOf(c.of('ahead')[0]).metadata?.resourceVersion).toBe('3');
    advance(ts, 5000);
    expect([statusOf(c.of('never')[0]), statusOf(c.of('exact')[0])]).toEqual([
      { code: 410, reason: 'Expired' },
      { code: 410, reason: 'Expired' },
    ]);
  });

  it('should wait for the informer to sync, and answer 503 with its last error while it fails to', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, {}, { backoff: { initialMs: 1000, jitter: 0 } });
    api.create('a');
    api.failNext(1);
    informer.start(); // its list fails: backing off for 1 s
    const c = rawClient(server, ts);
    c.send({ t: 'list', id: '1', resource: PODS, scope: {}, options: {} });
    advance(ts, 10);
    const failed = c.of('1')[0];
    expect(statusOf(failed)).toEqual({ code: 503, reason: 'ServiceUnavailable' });
    expect(failed?.t === 'error' && failed.status.message).toMatch(/has not synced: .*500/);
    advance(ts, 2000);
    c.send({ t: 'list', id: '2', resource: PODS, scope: {}, options: {} });
    advance(ts, 2010);
    expect(names(pageOf(c.of('2')[0]))).toEqual(['a']);
  });
});

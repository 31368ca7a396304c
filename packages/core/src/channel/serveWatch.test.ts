import { describe, expect, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, rawClient, servedInformer, type RawClient } from '../../test/channelKit.ts';
import type { ServerMessage } from './protocol.ts';
import type { KubeObject } from '../types.ts';

const watch = (c: RawClient, id: string, options: object) => c.send({ t: 'watch', id, resource: PODS, scope: {}, options });
const kinds = (ms: ServerMessage[]) => ms.map((m) => (m.t === 'error' ? `error ${m.status.code}` : m.t));

describe('a watch served from the informer history', () => {
  it('should replay the events after its resource version, then go live, all events of one task in one message', () => {
    const ts = testScheduler();
    const { api, calls, informer, server } = servedInformer(ts);
    for (const n of ['a', 'b']) api.create(n); // rv 3
    informer.start();
    const c = rawClient(server, ts);
    c.send({ t: 'list', id: 'list', resource: PODS, scope: {}, options: {} }); // the server follows the informer from now on
    advance(ts, 5);
    api.create('c'); // 4
    api.update('a'); // 5
    api.delete('b'); // 6
    watch(c, 'from4', { resourceVersion: '4' });
    watch(c, 'from3', { resourceVersion: '3' });
    advance(ts, 10);
    expect(kinds(c.of('from4'))).toEqual(['open', 'events']);
    expect(c.events('from4')).toEqual(['MODIFIED a@5', 'DELETED b@6']);
    expect(c.events('from3')).toEqual(['ADDED c@4', 'MODIFIED a@5', 'DELETED b@6']);
    api.create('d');
    api.update('c');
    advance(ts, 20);
    expect(kinds(c.of('from4'))).toEqual(['open', 'events', 'events']); // the two writes of one task: one message
    expect(c.events('from4').slice(2)).toEqual(['ADDED d@7', 'MODIFIED c@8']);
    expect(calls).toEqual({ list: 1, watch: 1 }); // the informer's own
  });

  it('should start a watch without a resource version with the cache as ADDED, and a streaming list with the end bookmark', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts);
    for (const n of ['a', 'b']) api.create(n);
    informer.start();
    const c = rawClient(server, ts);
    watch(c, 'plain', {});
    watch(c, 'stream', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, resourceVersion: '' });
    watch(c, 'refused', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' });
    advance(ts, 10);
    expect(c.events('plain').sort()).toEqual(['ADDED a@2', 'ADDED b@3']);
    const streamed = c.of('stream').flatMap((m) => (m.t === 'events' ? m.events : []));
    expect(streamed.at(-1)).toEqual({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: '3', annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    expect(
      streamed
        .slice(0, -1)
        .map((e) => (e.object as KubeObject).metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(kinds(c.of('refused'))).toEqual(['error 422']);
    api.create('c');
    advance(ts, 20);
    expect([c.events('plain').at(-1), c.events('stream').at(-1)]).toEqual(['ADDED c@4', 'ADDED c@4']);
  });

  it('should answer 410 for a resource version older than the history or not an integer, and wait a bounded time for one ahead', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, { historySize: 2, rvWaitMs: 3000 });
    api.create('a'); // 2
    informer.start();
    const c = rawClient(server, ts);
    watch(c, 'first', { resourceVersion: '2' });
    advance(ts, 5);
    for (const n of ['b', 'c', 'd']) api.create(n); // 3, 4, 5: only 4 and 5 are held
    watch(c, 'old', { resourceVersion: '2' });
    watch(c, 'oldest', { resourceVersion: '3' });
    watch(c, 'opaque', { resourceVersion: 'abc' });
    watch(c, 'ahead', { resourceVersion: '6' });
    watch(c, 'never', { resourceVersion: '60' });
    advance(ts, 10);
    expect(kinds(c.of('old'))).toEqual(['error 410']);
    expect(c.events('oldest')).toEqual(['ADDED c@4', 'ADDED d@5']);
    expect(kinds(c.of('opaque'))).toEqual(['error 410']);
    expect(c.of('ahead')).toEqual([]);
    api.create('e'); // 6
    api.create('f'); // 7
    advance(ts, 20);
    expect(c.events('ahead')).toEqual(['ADDED f@7']);
    advance(ts, 3100);
    expect(kinds(c.of('never'))).toEqual(['error 410']);
  });

  it('should send a relist of the server informer as its differences and a bookmark, and answer 410 inside its gap', () => {
    const ts = testScheduler();
    const { api, calls, informer, server } = servedInformer(ts, {}, { backoff: { initialMs: 1000, jitter: 0 } });
    for (const n of ['a', 'b', 'c']) api.create(n); // 4
    informer.start();
    const c = rawClient(server, ts);
    watch(c, 'live', { resourceVersion: '4', allowWatchBookmarks: true });
    advance(ts, 10);
    api.breakWatches(); // the informer backs off (1 s), blind to what follows
    api.update('a'); // 5
    api.delete('b'); // 6
    api.create('d'); // 7
    api.create('x'); // 8
    api.delete('x'); // 9: never seen by the informer
    api.compact(); // its watch from 4 answers 410 (after 1 s), it relists at 9 (after 1 s more: a second failure)
    advance(ts, 3000);
    expect(calls.list).toBe(2);
    expect(c.events('live').sort()).toEqual(['ADDED d@7', 'BOOKMARK @9', 'DELETED b@9', 'MODIFIED a@5']);
    expect(c.events('live').at(-1)).toBe('BOOKMARK @9');
    watch(c, 'before', { resourceVersion: '4' });
    watch(c, 'gap', { resourceVersion: '8' });
    watch(c, 'after', { resourceVersion: '9' });
    advance(ts, 3010);
    expect(c.events('before').sort()).toEqual(['ADDED d@7', 'DELETED b@9', 'MODIFIED a@5']);
    expect(kinds(c.of('gap'))).toEqual(['error 410']);
    expect(kinds(c.of('after'))).toEqual(['open']);
  });

  it('should send bookmarks when the informer resource version moves without a change and every interval, only when allowed', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts, { bookmarkIntervalMs: 60_000 });
    api.create('a'); // 2
    informer.start();
    const c = rawClient(server, ts);
    watch(c, 'bookmarks', { resourceVersion: '2', allowWatchBookmarks: true });
    watch(c, 'none', { resourceVersion: '2' });
    advance(ts, 10);
    api.bookmark(); // 3: the informer's own watch gets a BOOKMARK
    advance(ts, 20);
    expect(c.events('bookmarks')).toEqual(['BOOKMARK @3']);
    api.create('b'); // 4
    advance(ts, 60_100);
    expect(c.events('bookmarks')).toEqual(['BOOKMARK @3', 'ADDED b@4', 'BOOKMARK @4']);
    expect(c.events('none')).toEqual(['ADDED b@4']);
  });

  it('should end a watch cleanly after its timeoutSeconds, and send nothing more on a cancelled one', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts);
    informer.start();
    const c = rawClient(server, ts);
    watch(c, 'timed', { resourceVersion: '1', timeoutSeconds: 5 });
    watch(c, 'cancelled', { resourceVersion: '1' });
    advance(ts, 10);
    c.send({ t: 'cancel', id: 'cancelled' });
    advance(ts, 20);
    api.create('a');
    advance(ts, 5100);
    expect(kinds(c.of('timed'))).toEqual(['open', 'events', 'end']);
    expect(kinds(c.of('cancelled'))).toEqual(['open']);
  });
});

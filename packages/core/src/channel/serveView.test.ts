import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, rawClient, servedInformer } from '../../test/channelKit.ts';
import { KubeApiError } from '../errors.ts';
import { createInformerServer } from './informerServer.ts';
import { failureStatus, type ServerMessage, type StreamRequest } from './protocol.ts';
import type { KubeObject } from '../types.ts';

const kinds = (ms: ServerMessage[]) => ms.map((m) => (m.t === 'error' ? `error ${m.status.code}` : m.t));
const request = (t: 'list' | 'watch', id: string, options: object, more: object = {}) => ({
  t,
  id,
  resource: PODS,
  scope: {},
  options,
  ...more,
});

describe('a stream served through an informer view', () => {
  it('should carry only the objects the view admits, as it transforms them, in pages, first events, replays and live', () => {
    const ts = testScheduler();
    const { api, informer } = servedInformer(ts);
    const view = {
      informer,
      admit: (o: KubeObject) => o.metadata?.name !== 'hidden',
      transform: (o: KubeObject): KubeObject => ({ metadata: { ...o.metadata, labels: { seen: 'yes' } } }),
    };
    const server = createInformerServer({ informerFor: () => view, scheduler: ts });
    for (const n of ['a', 'hidden']) api.create(n); // rv 3
    informer.start();
    const c = rawClient(server, ts);
    c.send(request('list', 'list', {}));
    c.send(request('watch', 'initial', {}));
    advance(ts, 5);
    api.update('hidden'); // 4: nothing the view admits
    api.update('a'); // 5
    c.send(request('watch', 'replay', { resourceVersion: '3', allowWatchBookmarks: true }));
    advance(ts, 10);
    const page = c.of('list')[0];
    expect(page.t === 'page' && page.page.items.map((o) => [o.metadata?.name, o.metadata?.labels])).toEqual([['a', { seen: 'yes' }]]);
    expect(c.events('initial')).toEqual(['ADDED a@2', 'MODIFIED a@5']);
    expect(c.events('replay')).toEqual(['MODIFIED a@5']);
    api.update('hidden'); // 6: left out entirely, not even a BOOKMARK
    advance(ts, 20);
    expect(kinds(c.of('replay'))).toEqual(['open', 'events']);
    const live = c.of('initial').flatMap((m) => (m.t === 'events' ? m.events : []));
    expect(live.every((e) => (e.object as KubeObject).metadata?.labels?.seen === 'yes')).toBe(true);
  });

  it('should fail a stream with the error its end$ emits, and hand informerFor the request extra fields and the peer', () => {
    const ts = testScheduler();
    const { api, informer } = servedInformer(ts);
    const end$ = new Subject<unknown>();
    const seen: { request: StreamRequest; peer: string }[] = [];
    const server = createInformerServer<string>({
      informerFor: (_r, _s, req, peer) => (seen.push({ request: req, peer }), { informer, end$ }),
      scheduler: ts,
    });
    api.create('a');
    informer.start();
    const c = rawClient({ serve: (conn) => server.serve(conn, 'alice'), shutdown: server.shutdown }, ts);
    c.send(request('watch', 'w', {}, { cluster: 'prod', projection: { fields: ['metadata.name'] } }));
    c.send(request('watch', 'bad', {}, { 'not a name': 1 }));
    advance(ts, 5);
    end$.next(new KubeApiError(403, { status: failureStatus(403, 'Forbidden', 'withdrawn') }));
    advance(ts, 10);
    expect(kinds(c.of('w'))).toEqual(['open', 'events', 'error 403']);
    expect(kinds(c.of('bad'))).toEqual(['error 400']);
    expect(seen).toEqual([
      { request: expect.objectContaining({ extra: { cluster: 'prod', projection: { fields: ['metadata.name'] } } }), peer: 'alice' },
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import { advance, PODS, rawClient, servedInformer, sourceOf } from '../../test/channelKit.ts';
import { ModelServer } from '../../test/modelServer.ts';
import { KubeApiError } from '../errors.ts';
import { createInformerFactory } from '../informer/informerFactory.ts';
import { createInformerServer } from './informerServer.ts';
import type { ServerMessage } from './protocol.ts';

const errorOf = (m: ServerMessage | undefined) => (m?.t === 'error' ? `${m.id ?? '-'} ${m.status.code} ${m.status.reason}` : m?.t);

describe('a connection of the informer server', () => {
  it('should answer every hostile or malformed message with a typed error, and keep serving the other streams', () => {
    const ts = testScheduler();
    const api = new ModelServer();
    const factory = createInformerFactory(sourceOf(api), { scheduler: ts });
    factory.start();
    const server = createInformerServer({ informerFor: (resource, scope) => factory.informerFor(resource, scope), scheduler: ts });
    const c = rawClient(server, ts);
    c.send({ t: 'watch', id: 'w', resource: PODS, scope: {}, options: { resourceVersion: '1' } });
    advance(ts, 5);
    const hostile: unknown[] = [
      42,
      null,
      [1, 2],
      'hello',
      { t: 'nope', id: 'x1' },
      { t: 'list', resource: PODS, scope: {}, options: {} },
      { t: 'list', id: 'x'.repeat(65), resource: PODS },
      { t: 'list', id: 'x2', resource: { ...PODS, namespaced: 'yes' }, scope: {}, options: {} },
      { t: 'list', id: 'x3', resource: PODS, scope: { namespace: 7 }, options: {} },
      { t: 'list', id: 'x4', resource: PODS, scope: {}, options: { limit: -1 } },
      { t: 'watch', id: 'x5', resource: PODS, scope: {}, options: { timeoutSeconds: 'soon' } },
      { t: 'watch', id: 'x6', resource: { ...PODS, resource: '' }, scope: {}, options: {} },
      { t: 'list', id: 'x7', resource: PODS, scope: { labelSelector: 'a in (' }, options: {} },
      { t: 'cancel' },
      { t: 'cancel', id: 'unknown' },
      { t: 'hello', v: '1' },
    ];
    for (const m of hostile) c.send(m);
    advance(ts, 10);
    expect(c.received.slice(2).map(errorOf)).toEqual([
      '- 400 BadRequest', // 42
      '- 400 BadRequest', // null
      '- 400 BadRequest', // an array
      '- 400 BadRequest', // a string
      'x1 400 BadRequest', // an unknown type
      '- 400 BadRequest', // no id
      '- 400 BadRequest', // an id too long
      'x2 400 BadRequest',
      'x3 400 BadRequest',
      'x4 400 BadRequest',
      'x5 400 BadRequest',
      'x6 400 BadRequest',
      'x7 400 BadRequest', // the factory refused the selector
      '- 400 BadRequest', // cancel without an id
      '- 400 BadRequest', // hello with a string version
    ]);
    // The open watch goes on.
    api.create('a');
    advance(ts, 20);
    expect(c.events('w')).toEqual(['ADDED a@2']);
    expect(c.closed).toBe(false);
  });

  it('should refuse streams before hello, a used id, past maxStreams (429), and end the connection on another version', () => {
    const ts = testScheduler();
    const { informer, server } = servedInformer(ts, { maxStreams: 2 });
    informer.start();
    const early = rawClient(server, ts, false);
    early.send({ t: 'list', id: '1', resource: PODS, scope: {}, options: {} });
    advance(ts, 5);
    expect(errorOf(early.received[0])).toBe('1 400 BadRequest');
    const c = rawClient(server, ts);
    for (const id of ['a', 'b', 'c']) c.send({ t: 'watch', id, resource: PODS, scope: {}, options: {} });
    c.send({ t: 'watch', id: 'a', resource: PODS, scope: {}, options: {} });
    advance(ts, 10);
    expect(c.of('c').map(errorOf)).toEqual(['c 429 TooManyRequests']);
    expect(c.of('c')[0]).toMatchObject({ status: { details: { retryAfterSeconds: 1 } } });
    expect(c.of('a').map(errorOf)).toEqual(['open', 'a 400 BadRequest']); // both ended
    const old = rawClient(server, ts, false);
    old.send({ t: 'hello', v: 2 });
    advance(ts, 20);
    expect(old.received.map(errorOf)).toEqual(['- 400 UnsupportedVersion', 'bye']);
    expect(old.closed).toBe(true);
  });

  it('should answer the refusal of informerFor as its Status, and a failure of it as 500', () => {
    const ts = testScheduler();
    let answer: () => never = () => {
      throw new KubeApiError(403, { message: 'pods is forbidden: User "tab" cannot list resource "pods"' });
    };
    const server = createInformerServer({ informerFor: () => answer(), scheduler: ts });
    const c = rawClient(server, ts);
    c.send({ t: 'list', id: '1', resource: PODS, scope: {}, options: {} });
    advance(ts, 5);
    answer = () => {
      throw new TypeError('undefined is not a function');
    };
    c.send({ t: 'watch', id: '2', resource: PODS, scope: {}, options: {} });
    advance(ts, 10);
    expect([errorOf(c.of('1')[0]), errorOf(c.of('2')[0])]).toEqual(['1 403 Forbidden', '2 500 InternalError']);
    expect(c.of('1')[0]).toMatchObject({ status: { message: 'pods is forbidden: User "tab" cannot list resource "pods"' } });
  });

  it('should answer ping with pong, and close a connection silent past idleTimeoutMs with a bye', () => {
    const ts = testScheduler();
    const { informer, server } = servedInformer(ts, { idleTimeoutMs: 10_000 });
    informer.start();
    const c = rawClient(server, ts);
    c.send({ t: 'watch', id: 'w', resource: PODS, scope: {}, options: {} });
    advance(ts, 9000);
    c.send({ t: 'ping' });
    advance(ts, 18_000);
    expect(c.closed).toBe(false);
    advance(ts, 19_100);
    expect(c.received.map((m) => m.t)).toEqual(['hello', 'open', 'pong', 'bye']);
    expect(c.closed).toBe(true);
  });

  it('should say bye to every connection and stop on shutdown', () => {
    const ts = testScheduler();
    const { informer, server } = servedInformer(ts);
    informer.start();
    const [a, b] = [rawClient(server, ts), rawClient(server, ts)];
    advance(ts, 5);
    server.shutdown();
    const late = rawClient(server, ts);
    advance(ts, 10);
    expect([a, b, late].map((c) => [c.received.at(-1)?.t, c.closed])).toEqual([
      ['bye', true],
      ['bye', true],
      ['bye', true],
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { testScheduler } from '@rxinformer/testing';
import type { Observable, VirtualTimeScheduler } from 'rxjs';
import { advance, PODS, servedInformer } from '../../test/channelKit.ts';
import { NetworkError } from '../errors.ts';
import { createInformerFactory } from '../informer/informerFactory.ts';
import type { InformerServer } from './informerServer.ts';
import { ChannelProtocolError } from './channelErrors.ts';
import { channelListerWatcherSource, type ChannelClientOptions, type ChannelConnect } from './channelListerWatcher.ts';
import { inProcessConnections, type ChannelConnection } from './connection.ts';
import type { ChannelMessage, ServerMessage } from './protocol.ts';
import type { ReflectorOptions } from '../reflector/reflectorOptions.ts';
import type { KubeObject, ReflectorStatus } from '../types.ts';

/** Connections to `server`, each recorded, with what went each way and a hook on what the server sends. */
function connections(server: InformerServer, ts: VirtualTimeScheduler, tamper: (m: ServerMessage) => ServerMessage | undefined = (m) => m) {
  const made: ChannelConnection[] = [];
  const toServer: ChannelMessage[] = [];
  const toClient: ServerMessage[] = [];
  const connect: ChannelConnect = () => {
    const [client, end] = inProcessConnections({ scheduler: ts });
    server.serve({
      ...end,
      send: (m) => {
        const sent = tamper(m as ServerMessage);
        if (sent === undefined) return;
        toClient.push(sent);
        end.send(sent);
      },
    });
    const recorded = { ...client, send: (m: ChannelMessage) => (toServer.push(m), client.send(m)) };
    made.push(recorded);
    return recorded;
  };
  /** Objects sent to clients: list items and events other than bookmarks. */
  const objectsSent = () =>
    toClient.reduce(
      (n, m) => n + (m.t === 'page' ? m.page.items.length : m.t === 'events' ? m.events.filter((e) => e.type !== 'BOOKMARK').length : 0),
      0,
    );
  return { connect, made, toServer, toClient, objectsSent };
}

/** A tab's factory over the channel, with one informer of pods. */
function tab(connect: ChannelConnect, ts: VirtualTimeScheduler, options: ChannelClientOptions = {}, reflector: ReflectorOptions = {}) {
  const source = channelListerWatcherSource(connect, { scheduler: ts, random: () => 0, ...options });
  const factory = createInformerFactory(source, { scheduler: ts });
  const informer = factory.informerFor(PODS, { reflector: { random: () => 0, stallCheck: false, ...reflector } });
  const statuses: ReflectorStatus[] = [];
  informer.status$.subscribe((s) => statuses.push(s));
  factory.start();
  return { source, factory, informer, statuses };
}

const lastErrorOf = (informer: { status$: Observable<ReflectorStatus> }): Error | undefined => {
  let error: Error | undefined;
  informer.status$.subscribe((s) => (error = s.lastError)).unsubscribe();
  return error;
};

const view = (objects: Iterable<KubeObject>) => [...objects].map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();

describe('channelListerWatcherSource', () => {
  it("should keep a watch connecting until the server's open, then watching", () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts);
    api.create('a');
    informer.start();
    let held = true;
    const wire = connections(server, ts, (m) => (held && m.t === 'open' ? undefined : m)); // the server's open, held back
    const { statuses } = tab(wire.connect, ts, {}, { useStreamingList: false }); // a list, then the watch
    advance(ts, 100);
    expect(statuses.at(-1)?.phase).toBe('connecting');
    held = false;
    wire.made[0].close(); // a new connection, whose open comes through
    advance(ts, 5000);
    expect(statuses.map((s) => s.phase)).toContain('watching');
    expect(statuses.at(-1)?.phase).toBe('watching');
  });

  it('should give an informer the server informer cache, and resume after a dropped connection without a resend', () => {
    const ts = testScheduler();
    const { api, calls, informer, server } = servedInformer(ts);
    for (const n of ['a', 'b', 'c', 'd', 'e']) api.create(n);
    informer.start();
    const wire = connections(server, ts);
    const { informer: mirror, statuses } = tab(wire.connect, ts);
    advance(ts, 100);
    expect(view(mirror.getStore().list())).toEqual(view(api.objects.values()));
    expect(wire.objectsSent()).toBe(5);
    wire.made[0].close(); // the connection drops (the worker restarted, the network went)
    api.update('a');
    api.create('f');
    advance(ts, 5000);
    expect(wire.made).toHaveLength(2);
    expect(view(mirror.getStore().list())).toEqual(view(api.objects.values()));
    expect(wire.objectsSent()).toBe(7); // the two changes, from the history: no relist
    expect(statuses.at(-1)).toMatchObject({ relistCount: 0, phase: 'watching' });
    expect(statuses.some((s) => s.lastError instanceof NetworkError && s.lastError.reason === 'ConnectionReset')).toBe(true);
    expect(calls).toEqual({ list: 1, watch: 1 }); // the server informer's own, never the tab's
  });

  it('should resume across a relist of the server informer from its differences, without a resend', () => {
    const ts = testScheduler();
    const { api, calls, informer, server } = servedInformer(ts, {}, { backoff: { initialMs: 500, jitter: 0 } });
    for (const n of ['a', 'b', 'c', 'd']) api.create(n);
    informer.start();
    const wire = connections(server, ts);
    const { informer: mirror, statuses } = tab(wire.connect, ts, {}, { backoff: { initialMs: 10_000, jitter: 0 } });
    advance(ts, 100);
    wire.made[0].close(); // the tab is away for 10 s
    api.breakWatches(); // the server's informer too, for 500 ms: it misses what follows
    api.update('a');
    api.delete('b');
    api.create('e');
    api.compact(); // so it relists
    advance(ts, 5000);
    expect(calls.list).toBe(2);
    expect(wire.made).toHaveLength(1);
    advance(ts, 20_000);
    expect(wire.made).toHaveLength(2);
    expect(view(mirror.getStore().list())).toEqual(view(api.objects.values()));
    expect(wire.objectsSent()).toBe(4 + 3); // the list, then the relist's three differences
    expect(statuses.at(-1)).toMatchObject({ relistCount: 0 });
  });

  it('should cancel the server stream when the informer stops, and say bye when closed', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts);
    informer.start();
    const wire = connections(server, ts);
    const { source, informer: mirror } = tab(wire.connect, ts, {}, { useStreamingList: false }); // its watch sends nothing
    advance(ts, 100);
    mirror.stop();
    advance(ts, 200);
    api.create('a');
    advance(ts, 300);
    const watch = wire.toServer.find((m) => m.t === 'watch');
    expect(wire.toServer.filter((m) => m.t === 'cancel')).toEqual([{ t: 'cancel', id: watch && 'id' in watch ? watch.id : '?' }]);
    expect(wire.toClient.filter((m) => m.t === 'events')).toEqual([]);
    source.close();
    advance(ts, 400);
    expect(wire.toServer.at(-1)).toEqual({ t: 'bye' });
  });

  it('should share one connection attempt among informers and wait longer after each failure', () => {
    const ts = testScheduler();
    const attempts: number[] = [];
    const connect: ChannelConnect = () => {
      attempts.push(ts.now());
      throw new Error('no worker');
    };
    const source = channelListerWatcherSource(connect, { scheduler: ts, random: () => 0, reconnectBackoff: { initialMs: 500 } });
    const factory = createInformerFactory(source, { scheduler: ts });
    const informers = ['one', 'two'].map((namespace) => factory.informerFor(PODS, { namespace, reflector: { random: () => 0 } }));
    factory.start();
    advance(ts, 10_000);
    // Both informers' requests wait for the same attempts; each failure doubles the client's wait
    // (500, 1000, 2000 ms), after the reflectors' own backoff (800, 1600, 3200 ms).
    expect(attempts).toEqual([0, 1300, 3900, 9100]);
    const error = lastErrorOf(informers[0]);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error?.message).toMatch(/could not connect the channel: no worker/);
  });

  it('should fail with ChannelProtocolError when the server speaks another version', () => {
    const ts = testScheduler();
    const connect: ChannelConnect = () => {
      const [client, end] = inProcessConnections({ scheduler: ts });
      end.messages$.subscribe((m) => (m as ChannelMessage).t === 'hello' && end.send({ t: 'hello', v: 2 }));
      return client;
    };
    const { statuses } = tab(connect, ts);
    advance(ts, 100);
    const error = statuses.find((s) => s.lastError)?.lastError;
    expect(error).toBeInstanceOf(ChannelProtocolError);
    expect((error as ChannelProtocolError).reason).toBe('UnsupportedVersion');
  });

  it('should close a connection whose server goes silent, and connect again', () => {
    const ts = testScheduler();
    const { informer, server } = servedInformer(ts);
    informer.start();
    // The first connection's server stops answering after its hello (a crashed worker, a half-open socket).
    const wire = connections(server, ts, (m) => (wire.made.length === 1 && m.t !== 'hello' ? undefined : m));
    const { informer: mirror, statuses } = tab(wire.connect, ts, { heartbeatMs: 1000, idleTimeoutMs: 3000 });
    advance(ts, 10_000);
    expect(wire.made).toHaveLength(2);
    expect(
      statuses.some((s) => s.lastError instanceof NetworkError && /no message from the channel's server/.test(s.lastError.message)),
    ).toBe(true);
    expect(mirror.hasSynced()).toBe(true);
  });

  it('should fail one stream on a malformed message with a ChannelProtocolError, and keep the others', () => {
    const ts = testScheduler();
    const { api, informer, server } = servedInformer(ts);
    informer.start();
    let spoiled = false;
    const wire = connections(server, ts, (m) => {
      if (spoiled || m.t !== 'events') return m;
      spoiled = true;
      return { ...m, events: 'garbage' } as unknown as ServerMessage;
    });
    const source = channelListerWatcherSource(wire.connect, { scheduler: ts, random: () => 0 });
    const factory = createInformerFactory(source, { scheduler: ts });
    const [one, two] = ['one', 'two'].map((namespace) => factory.informerFor(PODS, { namespace, reflector: { random: () => 0 } }));
    const errors: Record<string, (Error | undefined)[]> = { one: [], two: [] };
    one.status$.subscribe((s) => errors.one.push(s.lastError));
    two.status$.subscribe((s) => errors.two.push(s.lastError));
    factory.start();
    advance(ts, 100);
    api.create('a');
    advance(ts, 5000);
    const malformed = [...new Set(errors.one.concat(errors.two))].filter((e) => e instanceof ChannelProtocolError);
    expect(malformed.map((e) => (e as ChannelProtocolError).reason)).toEqual(['MalformedMessage']);
    expect(view(one.getStore().list())).toEqual(view(api.objects.values()));
    expect(view(two.getStore().list())).toEqual(view(api.objects.values()));
    expect(wire.made).toHaveLength(1);
  });
});

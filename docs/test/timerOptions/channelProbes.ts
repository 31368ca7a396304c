/**
 * Probes of the channel's timer options (`@rxinformer/core/channel`): a server over a synced
 * informer of two pods, reached over in-process connections by a raw client speaking the protocol
 * or by the channel ListerWatcher.
 */
import { createSharedInformer, type WatchItem } from '@rxinformer/core';
import {
  CHANNEL_PROTOCOL_VERSION,
  channelListerWatcherSource,
  createInformerServer,
  inProcessConnections,
  type ChannelClientOptions,
  type ChannelConnection,
  type InformerServerOptions,
  type ServerMessage,
} from '@rxinformer/core/channel';
import { fakeListerWatcher, page, testObject } from '@rxinformer/testing';
import { asapScheduler, finalize, NEVER, of, Subject, tap, type Observable } from 'rxjs';
import { pods } from './coreProbes.ts';
import { type Probe, type Started } from './probe.ts';

/** Lets the microtasks of in-process deliveries run (a few rounds: a message answers a message). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** Long enough that the other side's timers stay out of a probe's way (~1,100 years). */
const QUIET = 2 ** 45;

/** A server of a synced informer of pods `a` and `b` at resourceVersion 2 (its watch: `watch$`). */
function server(options: Partial<InformerServerOptions>, watch$: Observable<WatchItem> = NEVER) {
  const lw = fakeListerWatcher();
  lw.scriptList(of(page([testObject('a', '1'), testObject('b', '2')], '2')));
  lw.scriptWatch(watch$);
  const informer = createSharedInformer(lw, { reflector: { minWatchTimeoutSeconds: 10 ** 9, stallCheck: false } });
  informer.start();
  const served = createInformerServer({ informerFor: () => informer, idleTimeoutMs: QUIET, bookmarkIntervalMs: QUIET, ...options });
  return { served, stop: () => (served.shutdown(), informer.shutdown()) };
}

/** A raw client of `options`' server, greeted: what it sends and what it got. */
async function rawClient(options: Partial<InformerServerOptions>, watch$?: Observable<WatchItem>) {
  const s = server(options, watch$);
  const [client, end] = inProcessConnections({ scheduler: asapScheduler });
  s.served.serve(end);
  const received: ServerMessage[] = [];
  let closed = false;
  client.messages$.subscribe({ next: (m) => received.push(m as ServerMessage), complete: () => (closed = true) });
  const send = async (m: unknown) => {
    client.send(m as never);
    await settle(); // in-process deliveries, on microtasks (fake timers of 0 ms would move the clock)
  };
  await send({ t: 'hello', v: CHANNEL_PROTOCOL_VERSION });
  const about = (id: string) => received.filter((m) => 'id' in m && m.id === id);
  return { send, received, about, closed: () => closed, stop: () => (client.close(), s.stop()) };
}

const request = (t: 'list' | 'watch', id: string, options: object) => ({ t, id, resource: pods, scope: {}, options });

/** A watch that allows bookmarks: fired at the server's first BOOKMARK. */
export const serverBookmarks: Probe = async (bookmarkIntervalMs) => {
  const c = await rawClient({ bookmarkIntervalMs });
  await c.send(request('watch', 'w', { resourceVersion: '2', allowWatchBookmarks: true }));
  const bookmarks = () => c.about('w').filter((m) => m.t === 'events' && m.events.some((e) => e.type === 'BOOKMARK')).length;
  return { fired: () => bookmarks() > 0, stop: c.stop };
};

/** A paged list's first page: fired when its continue token has expired (asked when fired() is). */
export const continueTtl: Probe = async (continueTtlMs) => {
  const c = await rawClient({ continueTtlMs });
  await c.send(request('list', 'first', { limit: 1 }));
  const first = c.about('first').find((m) => m.t === 'page');
  const token = first?.t === 'page' ? first.page.metadata?.continue : undefined;
  if (!token) throw new Error('the first page has no continue token');
  let asked = 0;
  return {
    fired: async () => {
      const id = `next-${++asked}`;
      await c.send(request('list', id, { limit: 1, continue: token }));
      return c.about(id).some((m) => m.t === 'error');
    },
    stop: c.stop,
  };
};

/** A list at a resourceVersion the cache has not reached: fired when the server stops waiting (an error). */
export const rvWait: Probe = async (rvWaitMs) => {
  const c = await rawClient({ rvWaitMs });
  await c.send(request('list', 'future', { resourceVersion: '99', resourceVersionMatch: 'NotOlderThan' }));
  return { fired: () => c.about('future').some((m) => m.t === 'error'), stop: c.stop };
};

/**
 * A server whose informer changed 1,100 times at the start (more than it keeps whatever their age):
 * fired once a watch from before those changes is answered 410, its events having aged out.
 */
export const serverHistory: Probe = async (historyMs) => {
  const watch$ = new Subject<WatchItem>();
  const c = await rawClient({ historyMs }, watch$);
  await c.send(request('list', 'follow', {})); // the server follows the informer from now on
  for (let rv = 3; rv <= 1102; rv++) watch$.next({ type: 'MODIFIED', object: testObject('a', String(rv)) });
  await settle();
  let asked = 0;
  return {
    fired: async () => {
      const id = `w${++asked}`;
      await c.send(request('watch', id, { resourceVersion: '2' }));
      return c.about(id).some((m) => m.t === 'error');
    },
    stop: c.stop,
  };
};

/** A watch of a server that batches its events: started (a batch longer than the limit is refused). */
export const serverBatch: Probe = async (batchMs) => {
  const c = await rawClient({ batchMs });
  await c.send(request('watch', 'w', { resourceVersion: '2' }));
  return { fired: () => c.about('w').some((m) => m.t === 'events'), stop: c.stop };
};

/** A client that says nothing after its hello: fired when the server closes the connection. */
export const serverIdle: Probe = async (idleTimeoutMs) => {
  const c = await rawClient({ idleTimeoutMs });
  return { fired: c.closed, stop: c.stop };
};

/**
 * A watch through the channel ListerWatcher with `options`: the server's side of the connection is
 * recorded (what the client sent, and whether the client closed it).
 */
async function channelWatch(options: ChannelClientOptions): Promise<Started & { pings(): number; closed(): boolean }> {
  const s = server({});
  let pings = 0;
  let closed = false;
  const connect = (): ChannelConnection => {
    const [client, end] = inProcessConnections({ scheduler: asapScheduler });
    const messages$ = end.messages$.pipe(
      tap((m) => (m as { t?: string }).t === 'ping' && pings++),
      finalize(() => (closed = true)),
    );
    s.served.serve({ ...end, messages$ });
    return client;
  };
  const lw = channelListerWatcherSource(connect, { random: () => 0, ...options })(pods, {});
  const sub = lw.watch({ resourceVersion: '2' }).subscribe({ error: () => {} });
  await settle();
  return { fired: () => false, stop: () => (sub.unsubscribe(), s.stop()), pings: () => pings, closed: () => closed };
}

/** The client's heartbeat: fired at its first ping. */
export const clientHeartbeat: Probe = async (heartbeatMs) => {
  const w = await channelWatch({ heartbeatMs, idleTimeoutMs: QUIET });
  return { ...w, fired: () => w.pings() > 0 };
};

/** A server that sends nothing (the client never pings): fired when the client gives the connection up. */
export const clientIdle: Probe = async (idleTimeoutMs) => {
  const w = await channelWatch({ idleTimeoutMs, heartbeatMs: QUIET });
  return { ...w, fired: w.closed };
};

/**
 * The channel's test kit: a server over a shared informer of the in-memory `ModelServer`, and a
 * raw client that sends any value and records every answer, all in a TestScheduler's virtual time.
 */
import type { VirtualTimeScheduler } from 'rxjs';
import { createInformerServer, type InformerServer, type InformerServerOptions } from '../src/channel/informerServer.ts';
import { inProcessConnections, type ChannelConnection } from '../src/channel/connection.ts';
import type { ServerMessage } from '../src/channel/protocol.ts';
import { createSharedInformer, type SharedInformer } from '../src/informer/sharedInformer.ts';
import type { ReflectorOptions } from '../src/reflector/reflectorOptions.ts';
import type { KubeObject, ListerWatcher, ListerWatcherSource, ResourceDescriptor } from '../src/types.ts';
import { ModelServer } from './modelServer.ts';

/** Runs what is due up to virtual time `to`, and sets the clock to `to` (flushTo leaves it at the last action run). */
export function advance(ts: VirtualTimeScheduler, to: number): void {
  ts.schedule(() => undefined, Math.max(0, to - ts.now()));
  ts.maxFrames = to;
  ts.flush();
}

/** The source of a factory whose every informer lists and watches `lw` (scopes ignored). */
export const sourceOf = (lw: ListerWatcher<KubeObject>): ListerWatcherSource => (() => lw) as unknown as ListerWatcherSource;

/** The resource every channel test asks for. */
export const PODS: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** A server of one informer over a `ModelServer`, and how often the informer called the API. */
export interface ServedInformer {
  readonly api: ModelServer;
  readonly calls: { list: number; watch: number };
  readonly informer: SharedInformer<KubeObject>;
  readonly server: InformerServer;
}

/** Starts an informer over a new `ModelServer` (synced at once) and a server of it. */
export function servedInformer(
  ts: VirtualTimeScheduler,
  options: Partial<InformerServerOptions> = {},
  reflector: Omit<ReflectorOptions, 'scheduler'> = {},
): ServedInformer {
  const api = new ModelServer();
  const calls = { list: 0, watch: 0 };
  const lw: ListerWatcher<KubeObject> = {
    list: (o) => (calls.list++, api.list(o)),
    watch: (o) => (calls.watch++, api.watch(o)),
  };
  // Paged (one list call): the tests count the API calls of the informer's own list beside the
  // channel's, which never reach the API.
  const informer = createSharedInformer(lw, {
    scheduler: ts,
    reflector: { random: () => 0, stallCheck: false, useStreamingList: false, ...reflector },
  });
  const server = createInformerServer({ informerFor: () => informer, scheduler: ts, ...options });
  return { api, calls, informer, server };
}

/** A client that sends anything and records what comes back. */
export interface RawClient {
  readonly connection: ChannelConnection;
  /** Every message received, in order. */
  readonly received: ServerMessage[];
  /** True once the server closed the connection. */
  readonly closed: boolean;
  send(message: unknown): void;
  /** The messages about stream `id`. */
  of(id: string): ServerMessage[];
  /** The events received on stream `id`, as `TYPE name@rv` (BOOKMARK: `BOOKMARK @rv`). */
  events(id: string): string[];
}

/** Connects a raw client to `server` (saying hello unless `hello` is false). */
export function rawClient(server: InformerServer, ts: VirtualTimeScheduler, hello = true): RawClient {
  const [client, end] = inProcessConnections({ scheduler: ts });
  server.serve(end);
  const received: ServerMessage[] = [];
  let closed = false;
  client.messages$.subscribe({ next: (m) => received.push(m as ServerMessage), complete: () => (closed = true) });
  const raw: RawClient = {
    connection: client,
    received,
    get closed() {
      return closed;
    },
    send: (m) => client.send(m as never),
    of: (id) => received.filter((m) => 'id' in m && m.id === id),
    events: (id) =>
      raw
        .of(id)
        .flatMap((m) => (m.t === 'events' ? m.events : []))
        .map(
          (e) => `${e.type} ${e.type === 'BOOKMARK' ? '' : (e.object as KubeObject).metadata?.name}@${e.object.metadata?.resourceVersion}`,
        ),
  };
  if (hello) raw.send({ t: 'hello', v: 1 });
  return raw;
}

/**
 * watchThroughput10k: events per second delivered to a handler with N pods cached, on a
 * pre-recorded stream. The simulator holds N pods and M later updates in its history; each
 * contender lists at the revision before the updates and watches from it, so the server replays the
 * M events as fast as the socket takes them and the figure is the client's, not the server's write
 * path. Timed from the handler's last initial add (the watch starts then) to its M-th update.
 *   - rxinformer: a shared informer over the KubeConfig ListerWatcher, first page pinned at that RV;
 *   - rxinformerNoFreeze: the same with `freeze: false` (objects stored unfrozen, as client-node does);
 *   - rxinformerMetrics: the same with its informer and handler metrics registered, scraped every
 *     100 ms, and the probes checked as often (the cost of @rxinformer/prometheus on the watch path);
 *   - clientNode: `makeInformer` whose listFn lists at that RV;
 *   - limit: one watch request from that RV through the same transport, decoded (Node's StringDecoder),
 *     lines split and `JSON.parse`d;
 *   - clientGo, clientGoProtobuf (with `clientGo`): client-go's informer in a process of its own,
 *     its first list pinned at that RV, JSON or protobuf, timed the same way (see clientGo.ts);
 *   - bareCache (a reference, not a contender): the limit plus the least any cache does — the list at
 *     that RV parsed into a `Map` first, then each event's object `set` under its key. No freeze, no
 *     index, no handler: what keeping decoded objects alive costs on its own (the garbage collector
 *     copies each stored version), which no informer can go below.
 */
import { StringDecoder } from 'node:string_decoder';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeTransport } from '@rxinformer/client-node';
import { metaNamespaceKeyFunc, type KubeObject } from '@rxinformer/core';
import { errorBody } from '@rxinformer/core/http';
import { CLIENT_GO_CONTENDERS, clientGoReplayPerSecond, clientGoRun, type ClientGoContender } from './clientGo.ts';
import { clientNodeSynced, pagesParsed, rxinformerSynced, within, type Synced } from './clients.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** Who the watch metric runs, in this order (then rotated). */
export type WatchContender = 'rxinformer' | 'rxinformerNoFreeze' | 'rxinformerMetrics' | 'clientNode' | 'limit' | 'bareCache';

/** The outcomes of `measureWatchThroughput` (client-go's only when asked for). */
export type WatchOutcomes = Record<WatchContender, Outcome> & Partial<Record<ClientGoContender, Outcome>>;

/** What is replayed: `pods` cached at `listAt`, then `updates` events. */
export interface RecordedStream {
  pods: number;
  listAt: string;
  updates: number;
}

/** Events/s of one contender: sync at `listAt`, then wait for the stream's `updates` to be handled. */
async function replayed(
  what: string,
  stream: RecordedStream,
  timeoutMs: number,
  sync: (onUpdate: () => void) => Promise<Synced>,
): Promise<number> {
  let handled = 0;
  let doneAt = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const synced = await within(
    sync(() => {
      if (++handled === stream.updates) {
        doneAt = performance.now();
        finish();
      }
    }),
    timeoutMs,
    `${what} sync`,
  );
  try {
    await within(finished, timeoutMs, `${what} replay of ${stream.updates} events`);
  } finally {
    await synced.close();
  }
  if (synced.count !== stream.pods) throw new Error(`${what} cached ${synced.count} of ${stream.pods} pods`);
  return (stream.updates * 1000) / (doneAt - synced.syncedAt);
}

/**
 * The limit: the watch from `listAt` read as it arrives, split into lines, each `JSON.parse`d. With
 * `cache`, the bare-cache reference: the list at `listAt` is parsed into `cache` first (untimed), and
 * each event's object is `set` in it.
 */
async function parsedStream(kc: KubeConfig, stream: RecordedStream, cache?: Map<string, KubeObject>): Promise<number> {
  const transport = createKubeTransport(kc);
  const abort = new AbortController();
  if (cache) {
    const items: KubeObject[] = [];
    await pagesParsed(transport, items, `resourceVersion=${stream.listAt}&resourceVersionMatch=Exact`);
    for (const item of items) cache.set(metaNamespaceKeyFunc(item), item);
    if (cache.size !== stream.pods) throw new Error(`the bare cache listed ${cache.size} of ${stream.pods} pods`);
  }
  const t0 = performance.now();
  let events = 0;
  try {
    const response = await transport.get(`/api/v1/pods?watch=true&resourceVersion=${stream.listAt}`, abort.signal, 'watch');
    if (response.status !== 200)
      throw new Error(`the watch answered ${response.status}: ${await errorBody(response, '/api/v1/pods?watch=true')}`);
    // Node's StringDecoder: the fastest UTF-8 decoding of a byte stream here (it does not validate).
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for await (const chunk of response.chunks()) {
      rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let start = 0;
      for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
        const event = JSON.parse(rest.slice(start, end)) as { type: string; object: KubeObject };
        if (event.type === 'MODIFIED') {
          events++;
          cache?.set(metaNamespaceKeyFunc(event.object), event.object);
        }
        start = end + 1;
      }
      rest = rest.slice(start);
      if (events >= stream.updates) break;
    }
  } finally {
    abort.abort();
    await transport.close();
  }
  if (events < stream.updates) throw new Error(`the watch ended after ${events} of ${stream.updates} events`);
  return (events * 1000) / (performance.now() - t0);
}

/**
 * Measures the replay of a recorded stream for the three contenders, rxinformer with `freeze: false`,
 * and the bare-cache reference (and client-go with `clientGo`).
 *
 * @example
 * const { resourceVersion } = await sim.send({ cmd: 'state' });
 * await sim.send({ cmd: 'update', count: 20_000 });
 * const out = await measureWatchThroughput(kc, { pods: 10_000, listAt: resourceVersion, updates: 20_000 });
 *
 * Caveat: the simulator's history must still hold every update (its size and age bounds).
 */
export function measureWatchThroughput(
  kc: KubeConfig,
  stream: RecordedStream,
  options: RotatingOptions & { timeoutMs?: number; clientGo?: boolean } = {},
): Promise<WatchOutcomes> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const listAt = stream.listAt;
  return runRotating(
    {
      rxinformer: () => replayed('rxinformer', stream, timeoutMs, (onUpdate) => rxinformerSynced(kc, { listAt, onUpdate })),
      rxinformerNoFreeze: () =>
        replayed('rxinformer (freeze: false)', stream, timeoutMs, (onUpdate) => rxinformerSynced(kc, { listAt, onUpdate, freeze: false })),
      rxinformerMetrics: () =>
        replayed('rxinformer with metrics', stream, timeoutMs, (onUpdate) => rxinformerSynced(kc, { listAt, onUpdate, metrics: true })),
      clientNode: () => replayed('client-node', stream, timeoutMs, (onUpdate) => clientNodeSynced(kc, stream.pods, { listAt, onUpdate })),
      limit: () => within(parsedStream(kc, stream), timeoutMs, 'limit watch'),
      bareCache: () => within(parsedStream(kc, stream, new Map()), timeoutMs, 'bare cache watch'),
      ...(options.clientGo &&
        Object.fromEntries(CLIENT_GO_CONTENDERS.map((c) => [c, () => clientGoReplayPerSecond(clientGoRun(kc, c, timeoutMs), stream)]))),
    },
    options,
  ) as Promise<WatchOutcomes>;
}

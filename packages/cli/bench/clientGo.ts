/**
 * client-go as a contender: the client-go peer (`packages/testing/clientgo`, client-go v0.36.3's
 * typed pod informer, all namespaces) run in a process of its own for each measurement, with JSON
 * (`clientGo`) or protobuf (`clientGoProtobuf`). Each run is the peer's `bench` mode, whose last line
 * is its measurement (see the peer's README):
 *   - sync: `storeSyncMs`, from `factory.Start` to the informer's `HasSynced` (the store filled: what
 *     rxinformer's `waitForCacheSync()` waits for). client-go's defaults otherwise: WatchListClient on,
 *     so the initial state comes as a watch with `sendInitialEvents`;
 *   - heap: `runtime.GC()` twice then `MemStats.HeapAlloc`, before the informer starts and once it
 *     has synced; the difference over the pods;
 *   - watch: the first list pinned at the recorded revision (`--list-at`, so `--watch-list off`),
 *     then the recorded updates counted in its handler; events over the time from its sync to the last.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { startClientGoPeer, type ClientGoPeerOptions, type ResultLine } from '@rxinformer/testing/servers';

/** The two client-go contenders. */
export type ClientGoContender = 'clientGo' | 'clientGoProtobuf';

/** Both, in the order they run. */
export const CLIENT_GO_CONTENDERS: readonly ClientGoContender[] = ['clientGo', 'clientGoProtobuf'];

/** What one run of the peer needs: the server, the content type, how long it may take. */
export interface ClientGoRun {
  kubeConfig: KubeConfig;
  protobuf: boolean;
  timeoutMs: number;
}

/** Runs one bench of the peer to its end and returns its result line; throws what went wrong otherwise. */
export async function clientGoResult(
  run: ClientGoRun,
  mode: 'sync' | 'heap' | 'watch',
  extra: Partial<ClientGoPeerOptions> = {},
): Promise<ResultLine> {
  const peer = await startClientGoPeer({
    kubeConfig: run.kubeConfig,
    mode: `bench ${mode}`,
    resource: 'pods',
    protobuf: run.protobuf,
    timeoutMs: run.timeoutMs,
    ...extra,
  });
  // The peer ends itself after its result; its stdin stays open until then (EOF would stop it).
  const ended = await peer.exited;
  const result = ended.result;
  const fatal = ended.lines.find((l) => l.event === 'fatal');
  if (!result) {
    const why = fatal && 'message' in fatal ? fatal.message : `exit ${String(ended.code ?? ended.signal)}: ${ended.stderr.slice(-300)}`;
    throw new Error(`client-go ${mode}: ${why}`);
  }
  if (result.timedOut)
    throw new Error(`client-go ${mode}: ${result.events ?? 0} of ${String(extra.events)} events within ${run.timeoutMs} ms`);
  return result;
}

/** Checks that the peer held the pods expected. */
function holding(result: ResultLine, expected: number): ResultLine {
  if (result.objects !== expected) throw new Error(`client-go ${result.mode} synced ${result.objects} of ${expected} pods`);
  return result;
}

/** Initial sync in ms (`storeSyncMs`) of `expected` pods. */
export async function clientGoSyncMs(run: ClientGoRun, expected: number): Promise<number> {
  return holding(await clientGoResult(run, 'sync'), expected).storeSyncMs;
}

/** Heap per cached pod in bytes: `HeapAlloc` after GC once synced, minus before the start, over the pods. */
export async function clientGoHeapPerObject(run: ClientGoRun, expected: number): Promise<number> {
  const result = holding(await clientGoResult(run, 'heap'), expected);
  if (result.bytesPerObject === undefined) throw new Error('client-go heap: no bytesPerObject in its result');
  return result.bytesPerObject;
}

/** Events per second of a recorded replay: listed at `listAt`, then `updates` handler calls, timed from its sync. */
export async function clientGoReplayPerSecond(
  run: ClientGoRun,
  stream: { pods: number; listAt: string; updates: number },
): Promise<number> {
  const result = holding(
    await clientGoResult(run, 'watch', { listAt: stream.listAt, watchList: false, events: stream.updates }),
    stream.pods,
  );
  if (result.events !== stream.updates || !result.sinceSyncMs)
    throw new Error(`client-go watch: ${String(result.events)} of ${stream.updates} events`);
  return (stream.updates * 1000) / result.sinceSyncMs;
}

/** The options of a contender: JSON for `clientGo`, protobuf for `clientGoProtobuf`. */
export function clientGoRun(kubeConfig: KubeConfig, contender: ClientGoContender, timeoutMs: number): ClientGoRun {
  return { kubeConfig, protobuf: contender === 'clientGoProtobuf', timeoutMs };
}

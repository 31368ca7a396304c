/**
 * initialSync10k / initialSync100k: milliseconds from start to a complete cache of N pods.
 *   - rxinformer: `createKubeInformerFactory(kc).informerFor(pods)`, start → `waitForCacheSync()`;
 *   - rxinformerMetadata (with `metadata`): the same with `informerFor(metadataOnly(pods))`;
 *   - clientNode: `makeInformer(kc, '/api/v1/pods', listFn)`, start → the N-th `add`;
 *   - limit: the same pages rxinformer fetches (limit=500 + continue), `JSON.parse` only;
 *   - clientGo, clientGoProtobuf (with `clientGo`): client-go's informer in a process of its own,
 *     with JSON or protobuf, its own `storeSyncMs` (see clientGo.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { CLIENT_GO_CONTENDERS, clientGoRun, clientGoSyncMs, type ClientGoContender } from './clientGo.ts';
import { clientNodeSynced, limitSynced, rxinformerSynced, within, type Synced } from './clients.ts';
import { runRotating, type Outcome, type RotatingOptions } from './rounds.ts';

/** Times one sync: from the call to `syncedAt`, checking that all `expected` objects arrived. */
async function timed(what: string, expected: number, timeoutMs: number, sync: () => Promise<Synced>): Promise<number> {
  const t0 = performance.now();
  const synced = await within(sync(), timeoutMs, `${what} initial sync`);
  await synced.close();
  if (synced.count !== expected) throw new Error(`${what} synced ${synced.count} of ${expected} pods`);
  return synced.syncedAt - t0;
}

/** Options of `measureInitialSync`: the rounds, plus how long one sync may take (default 10 min). */
export interface InitialSyncOptions extends RotatingOptions {
  timeoutMs?: number;
  /** Also a metadata-only informer (`rxinformerMetadata`). Default false. */
  metadata?: boolean;
  /** Also client-go, with JSON and with protobuf (`clientGo`, `clientGoProtobuf`). Default false. */
  clientGo?: boolean;
}

/** The outcomes of `measureInitialSync` (client-go's only when asked for). */
export type SyncOutcomes = Record<'rxinformer' | 'rxinformerMetadata' | 'clientNode' | 'limit', Outcome> &
  Partial<Record<ClientGoContender, Outcome>>;

/**
 * Measures the initial sync of the `pods` the server holds, for the three contenders (and the
 * metadata-only informer and client-go when asked).
 *
 * @example
 * const out = await measureInitialSync(kc, 10_000, { rounds: 3 });
 * out.rxinformer; // { median, samples } (ms) or { error }
 *
 * Caveat: client-node's list is one unpaginated response; at 100k pods (~400 MB) it may fail,
 * which is recorded as its outcome, not thrown.
 */
export function measureInitialSync(kc: KubeConfig, pods: number, options: InitialSyncOptions = {}): Promise<SyncOutcomes> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  return runRotating(
    {
      rxinformer: () => timed('rxinformer', pods, timeoutMs, () => rxinformerSynced(kc)),
      ...(options.metadata && {
        rxinformerMetadata: () => timed('rxinformer metadata-only', pods, timeoutMs, () => rxinformerSynced(kc, { metadataOnly: true })),
      }),
      clientNode: () => timed('client-node', pods, timeoutMs, () => clientNodeSynced(kc, pods)),
      limit: () => timed('limit', pods, timeoutMs, () => limitSynced(kc)),
      ...(options.clientGo &&
        Object.fromEntries(CLIENT_GO_CONTENDERS.map((c) => [c, () => clientGoSyncMs(clientGoRun(kc, c, timeoutMs), pods)]))),
    },
    options,
  ) as Promise<SyncOutcomes>;
}

/**
 * The metrics of the initial sync and of the watch replay, built from the contenders' outcomes the
 * same way whichever server they ran against (the simulator or a real kube-apiserver).
 */
import type { measureInitialSync } from './initialSync.ts';
import { buildMetric, withReference, type Metric } from './report.ts';
import type { measureWatchThroughput } from './watchThroughput.ts';

/** What the watch metric's bare-cache reference is (see watchThroughput.ts). */
export const BARE_CACHE = 'the limit plus each object set in a Map of the 10k listed pods; no freeze, index or handler';

/**
 * `initialSync<N>k` and `initialSyncMetadata` (the metadata-only informer against client-node's
 * and, as `limit`, our full informer's sync).
 */
export function syncMetrics(pods: number, sync: Awaited<ReturnType<typeof measureInitialSync>>): Record<string, Metric> {
  const name = `initialSync${pods / 1000}k`;
  return {
    [name]: buildMetric(name, 'ms', 'lower', sync, 'initialSync10k'),
    initialSyncMetadata: buildMetric('initialSyncMetadata', 'ms', 'lower', {
      rxinformer: sync.rxinformerMetadata,
      clientNode: sync.clientNode,
      limit: sync.rxinformer,
    }),
  };
}

/**
 * `watchThroughput<N>k` (with the bare-cache reference), the same run's rxinformer with
 * `freeze: false` (`…NoFreeze`), and with @rxinformer/prometheus wired (`watchThroughputWithMetrics`,
 * against the plain one as `limit`).
 */
export function watchMetrics(pods: number, replays: Awaited<ReturnType<typeof measureWatchThroughput>>): Record<string, Metric> {
  const name = `watchThroughput${pods / 1000}k`;
  const { rxinformerNoFreeze, ...peers } = replays;
  return {
    [name]: withReference(
      buildMetric(name, 'events/s', 'higher', replays, 'watchThroughput10k'),
      'bareCache',
      BARE_CACHE,
      replays.bareCache,
    ),
    [`${name}NoFreeze`]: withReference(
      buildMetric(`${name}NoFreeze`, 'events/s', 'higher', { ...peers, rxinformer: rxinformerNoFreeze }, 'watchThroughput10kNoFreeze'),
      'bareCache',
      BARE_CACHE,
      replays.bareCache,
    ),
    watchThroughputWithMetrics: buildMetric(
      'watchThroughputWithMetrics',
      'events/s',
      'higher',
      { rxinformer: replays.rxinformerMetrics, limit: replays.rxinformer },
      'watchThroughputWithMetrics',
    ),
  };
}

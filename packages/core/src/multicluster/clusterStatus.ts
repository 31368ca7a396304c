/**
 * The status of a multi-cluster view as one `ReflectorStatus`: what its least healthy cluster is
 * doing, for code that reads any informer's status (a readiness probe, a status bar).
 */
import type { ReflectorPhase, ReflectorStatus } from '../types.ts';

/** From least to most healthy: the view's phase is its clusters' first in this order. */
const ORDER: readonly ReflectorPhase[] = ['backingOff', 'listing', 'connecting', 'watching', 'stopped'];

/**
 * One status for the clusters' statuses: the phase of the least healthy (a cluster backing off
 * makes the view `backingOff`, with that cluster's `lastError`), the relists summed; `stopped`
 * with no cluster. `hasSynced` is the view's.
 */
export function aggregateStatus(statuses: readonly ReflectorStatus[], hasSynced: boolean): ReflectorStatus {
  let worst: ReflectorStatus | undefined;
  let relistCount = 0;
  for (const s of statuses) {
    relistCount += s.relistCount;
    if (worst === undefined || ORDER.indexOf(s.phase) < ORDER.indexOf(worst.phase)) worst = s;
  }
  const lastError = worst?.lastError ?? statuses.find((s) => s.lastError !== undefined)?.lastError;
  return { phase: worst?.phase ?? 'stopped', relistCount, hasSynced, ...(lastError !== undefined && { lastError }) };
}

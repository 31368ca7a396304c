/**
 * The page's view model, free of the DOM: the pod rows a store snapshot shows, kubectl-style ages,
 * a one-line reflector status and the recent-events log. Pure functions, so they are tested in
 * Node and the DOM code only copies their results into elements.
 */
import { objectOf, type Delta, type KubeObject, type ReflectorStatus, type Store } from '@rxinformer/core';
import { formatAge } from '@rxinformer/apiserver-sim/age';

/** The slice of a pod the page shows (a `V1Pod` is assignable to it). */
export interface Pod extends KubeObject {
  status?: { phase?: string };
}

/** One table row. */
export interface PodRow {
  /** The store key, `namespace/name`: the row's identity in the DOM (`data-key`). */
  key: string;
  namespace: string;
  name: string;
  /** `status.phase`, or `Unknown` when the pod has none yet. */
  phase: string;
  /** kubectl's age of `metadata.creationTimestamp` at `now`, e.g. `5s`, `3m12s`, `2d4h`. */
  age: string;
  /** The cached object; snapshots are immutable, so a changed object is a new reference. */
  object: Pod;
}

/**
 * The rows of a snapshot, sorted by namespace then name (kubectl's order).
 *
 * @example
 * const rows = podRows(informer.getStore(), Date.now());
 *
 * Caveat: the whole store is walked; fine for the hundreds of pods a page shows, not for 100k.
 */
export function podRows(store: Store<Pod>, now: number): PodRow[] {
  const rows: PodRow[] = [];
  for (const key of store.keys()) {
    const object = store.get(key);
    if (!object) continue;
    const meta = object.metadata ?? {};
    rows.push({
      key,
      namespace: meta.namespace ?? '',
      name: meta.name ?? key,
      phase: object.status?.phase ?? 'Unknown',
      age: formatAge(meta.creationTimestamp, now),
      object,
    });
  }
  return rows.sort((a, b) => compare(a.namespace, b.namespace) || compare(a.name, b.name));
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** kubectl's age of a creation timestamp (core's `formatAge`): `45s`, `3m2s`, `5h4m`; `<unknown>` without one. */
export { formatAge };

/**
 * The reflector status as one line, e.g. `watching · synced · rv 1234 · 0 relists`, with the last
 * error (its class name, which survives minification, and message) and the backoff delay when
 * there are any. `connecting`: the watch is sent and not open yet (no change arrives).
 */
export function statusLine(status: ReflectorStatus): string {
  const parts: string[] = [status.phase, status.hasSynced ? 'synced' : 'not synced'];
  if (status.lastSyncResourceVersion) parts.push(`rv ${status.lastSyncResourceVersion}`);
  parts.push(`${status.relistCount} relist${status.relistCount === 1 ? '' : 's'}`);
  if (status.backoffMs !== undefined) parts.push(`retry in ${Math.round(status.backoffMs)} ms`);
  if (status.lastError) parts.push(`last error: ${status.lastError.name}: ${status.lastError.message}`);
  return parts.join(' · ');
}

/** One line of the events log. */
export interface EventLine {
  /** `HH:MM:SS` of `at`, in local time. */
  time: string;
  /** The delta type (`Added`, `Updated`, `Deleted`, …), as the log's CSS class. */
  type: string;
  /** e.g. `Updated default/web-1 (Running)`; tombstones say `final state unknown`. */
  text: string;
}

/** The log line of a delta received at `at` (ms since the epoch). */
export function eventLine(delta: Delta<Pod>, at: number): EventLine {
  const date = new Date(at);
  const time = [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const phase = objectOf(delta)?.status?.phase;
  const detail = delta.type === 'Deleted' && delta.deleted.finalStateUnknown ? ' (final state unknown)' : phase ? ` (${phase})` : '';
  return { time, type: delta.type, text: `${delta.type} ${delta.key}${detail}` };
}

/**
 * The page's view model, free of the DOM: the pod rows a store snapshot shows, kubectl-style ages,
 * a one-line reflector status and the recent-events log. Pure functions, so they are tested in
 * Node and the DOM code only copies their results into elements.
 */
import type { Delta, KubeObject, ReflectorStatus, Store } from '@rxinformer/core';

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

/**
 * kubectl's age of a creation timestamp at `now`: `45s`, `3m2s`, `17m`, `5h4m`, `20h`, `3d5h`,
 * `30d`, `2y10d`; `<unknown>` without a valid timestamp. A clock behind the server's gives `0s`.
 *
 * @example
 * formatAge('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:03:12Z')); // '3m12s'
 */
export function formatAge(created: string | Date | undefined, now: number): string {
  const start = created === undefined ? NaN : new Date(created).getTime();
  if (Number.isNaN(start)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - start) / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const y = Math.floor(d / 365);
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) => (small ? `${big}${bigUnit}${small}${smallUnit}` : `${big}${bigUnit}`);
  if (s < 120) return `${s}s`;
  if (m < 10) return pair(m, 'm', s % 60, 's');
  if (m < 180) return `${m}m`;
  if (h < 8) return pair(h, 'h', m % 60, 'm');
  if (h < 48) return `${h}h`;
  if (d < 8) return pair(d, 'd', h % 24, 'h');
  if (d < 730) return `${d}d`;
  if (y < 8) return pair(y, 'y', d % 365, 'd');
  return `${y}y`;
}

/**
 * The reflector status as one line, e.g. `watching · synced · rv 1234 · 0 relists`, with the last
 * error and the backoff delay when there are any.
 */
export function statusLine(status: ReflectorStatus): string {
  const parts: string[] = [status.phase, status.hasSynced ? 'synced' : 'not synced'];
  if (status.lastSyncResourceVersion) parts.push(`rv ${status.lastSyncResourceVersion}`);
  parts.push(`${status.relistCount} relist${status.relistCount === 1 ? '' : 's'}`);
  if (status.backoffMs !== undefined) parts.push(`retry in ${Math.round(status.backoffMs)} ms`);
  if (status.lastError) parts.push(`last error: ${status.lastError.message}`);
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
  const phase = delta.object.status?.phase;
  const detail = delta.finalStateUnknown ? ' (final state unknown)' : phase ? ` (${phase})` : '';
  return { time, type: delta.type, text: `${delta.type} ${delta.key}${detail}` };
}

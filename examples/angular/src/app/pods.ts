// The view model of the page, free of Angular: pod rows from a store snapshot, the phase summary,
// the status line and the lines of the change log.
import {
  KubeApiError,
  NAMESPACE_INDEX,
  type Delta,
  type KubeObject,
  type ReflectorStatus,
  type ResourceDescriptor,
  type Store,
} from '@rxinformer/core';

/** The slice of a pod the page shows. */
export interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

/** core/v1 pods. */
export const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** One row of the table. */
export interface PodRow {
  /** `namespace/name`: the row's identity (`track`, `data-key`). */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** `status.phase`, `Unknown` without one. */
  readonly phase: string;
  /** `spec.nodeName`, `-` before scheduling. */
  readonly node: string;
}

// Cached objects are frozen: a changed pod is a new object, so a row made once per object can be
// reused, and an unchanged pod keeps the very same row (compared by reference below).
const rowsByPod = new WeakMap<Pod, PodRow>();

function rowOf(key: string, pod: Pod): PodRow {
  let row = rowsByPod.get(pod);
  if (!row) {
    const meta = pod.metadata ?? {};
    row = {
      key,
      namespace: meta.namespace ?? '',
      name: meta.name ?? key,
      phase: pod.status?.phase ?? 'Unknown',
      node: pod.spec?.nodeName ?? '-',
    };
    rowsByPod.set(pod, row);
  }
  return row;
}

/** The rows of `namespace` (every namespace for `''`), sorted by namespace then name. */
export function podRows(store: Store<Pod>, namespace: string): readonly PodRow[] {
  const pods = namespace ? store.byIndex(NAMESPACE_INDEX, namespace) : store.list();
  return pods
    .map((pod) => rowOf(`${pod.metadata?.namespace}/${pod.metadata?.name}`, pod))
    .sort((a, b) => compare(a.namespace, b.namespace) || compare(a.name, b.name));
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** True when two lists hold the same elements in the same order (rows: the same objects). */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The phases in the order the summary shows them; others follow, sorted. */
const PHASES = ['Running', 'Pending', 'Succeeded', 'Failed', 'Unknown'];

/** Pods per phase. */
export interface PhaseCount {
  readonly phase: string;
  readonly count: number;
}

/** How many rows are in each phase (phases with none left out). */
export function phaseCounts(rows: readonly PodRow[]): readonly PhaseCount[] {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.phase, (counts.get(row.phase) ?? 0) + 1);
  const rank = (phase: string) => (PHASES.includes(phase) ? PHASES.indexOf(phase) : PHASES.length);
  return [...counts].map(([phase, count]) => ({ phase, count })).sort((a, b) => rank(a.phase) - rank(b.phase) || compare(a.phase, b.phase));
}

/** True when two summaries say the same. */
export function sameCounts(a: readonly PhaseCount[], b: readonly PhaseCount[]): boolean {
  return a.length === b.length && a.every((c, i) => c.phase === b[i].phase && c.count === b[i].count);
}

/** The reflector's condition in one line, e.g. `watching · synced · 1 relist · 2 reconnects`. */
export function statusLine(status: ReflectorStatus, reconnects: number): string {
  const parts: string[] = [status.phase, status.hasSynced ? 'synced' : 'not synced'];
  parts.push(`${status.relistCount} relist${status.relistCount === 1 ? '' : 's'}`);
  parts.push(`${reconnects} reconnect${reconnects === 1 ? '' : 's'}`);
  if (status.backoffMs !== undefined) parts.push(`retry in ${Math.round(status.backoffMs)} ms`);
  const error = status.lastError;
  if (error) parts.push(`last error: ${error instanceof KubeApiError ? `${error.code} ${error.reason}: ` : ''}${error.message}`);
  return parts.join(' · ');
}

/** One line of the change log. */
export interface LogLine {
  /** A number unique to the line (`track`). */
  readonly id: number;
  /** `HH:MM:SS`, local time. */
  readonly time: string;
  /** `Added`, `Updated`, `Deleted`. */
  readonly type: string;
  readonly namespace: string;
  /** e.g. `web/api-7 → Running`; a delete of an object whose final state is unknown says so. */
  readonly text: string;
}

let lastId = 0;

/** The log line of a change seen at `at` (ms since the epoch). */
export function logLine(type: Delta['type'], pod: Pod, at: number, finalStateUnknown = false): LogLine {
  const date = new Date(at);
  const time = [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const namespace = pod.metadata?.namespace ?? '';
  const phase = pod.status?.phase;
  const detail = finalStateUnknown ? ' (final state unknown)' : phase ? ` → ${phase}` : '';
  return { id: ++lastId, time, type, namespace, text: `${namespace}/${pod.metadata?.name}${detail}` };
}

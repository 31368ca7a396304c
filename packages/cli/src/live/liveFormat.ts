/**
 * Pure text formatting of the live view: ages, one-line status of any object, truncation to a
 * width, and aligned tables. No terminal escape codes are ever produced here.
 */
import { type KubeObject } from '@rxinformer/core';
import { formatAge, humanDuration } from '@rxinformer/apiserver-sim/age';

/** Control characters (a server message with a newline or an ESC) are replaced by spaces. */
export function sanitize(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/**
 * `text` cut to at most `width` characters, ending in `…` when cut; control characters removed.
 *
 * @example
 * truncate('web-000123', 6) // 'web-0…'
 */
export function truncate(text: string, width: number): string {
  const clean = sanitize(text);
  if (width <= 0) return '';
  if (clean.length <= width) return clean;
  return width === 1 ? '…' : `${clean.slice(0, width - 1)}…`;
}

export { formatAge }; // core's: kubectl's compact age of a timestamp

/** A duration in ms as `850ms`, `2.4s`, `3m2s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return humanDuration(ms);
}

type Obj = KubeObject & {
  status?: {
    phase?: string;
    reason?: string;
    replicas?: number;
    readyReplicas?: number;
    active?: number;
    succeeded?: number;
    failed?: number;
    conditions?: { type?: string; status?: string }[];
  };
  spec?: { replicas?: number };
};

/**
 * A one-word status of an object, as `kubectl get` would show it: a pod's phase (or `Terminating`,
 * or its reason), a node's readiness, a workload's ready replicas, a job's counts, else
 * `status.phase`, else `-`.
 */
export function statusOf(obj: KubeObject): string {
  const o = obj as Obj;
  const s = o.status;
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  switch (o.kind) {
    case 'Pod':
      return s?.reason ?? s?.phase ?? 'Pending';
    case 'Node': {
      const ready = s?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? 'Ready' : 'NotReady';
    }
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
      return `${s?.readyReplicas ?? 0}/${o.spec?.replicas ?? s?.replicas ?? 0} ready`;
    case 'Job':
      return s?.succeeded ? 'Complete' : s?.failed ? 'Failed' : s?.active ? 'Running' : 'Pending';
    default:
      return s?.phase ?? '-';
  }
}

/** A column of `formatTable`. */
export interface Column {
  title: string;
  /** Widest the column may grow. Default: unlimited. */
  max?: number;
  /** Narrowest the column shrinks to when the table is too wide; only the last column with `min` shrinks first. Default: no shrinking. */
  min?: number;
}

/**
 * Aligns `rows` under `columns` in at most `width` characters per line: columns as wide as their
 * widest cell (capped by `max`), separated by two spaces; when too wide, shrinkable columns give
 * up space right to left down to their `min`, then every line is cut to `width`.
 *
 * @example
 * formatTable([{ title: 'NAME' }, { title: 'STATUS' }], [['web-1', 'Running']], 80)
 * // ['NAME   STATUS', 'web-1  Running']
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[], width: number): string[] {
  const widths = columns.map((c, i) =>
    Math.min(c.max ?? Infinity, Math.max(c.title.length, ...rows.map((r) => sanitize(r[i] ?? '').length))),
  );
  const gap = 2;
  let excess = widths.reduce((a, b) => a + b, 0) + gap * (columns.length - 1) - width;
  for (let i = columns.length - 1; i >= 0 && excess > 0; i--) {
    const min = columns[i].min;
    if (min === undefined || widths[i] <= min) continue;
    const give = Math.min(excess, widths[i] - min);
    widths[i] -= give;
    excess -= give;
  }
  const line = (cells: readonly string[]) => {
    const text = columns
      .map((_, i) => {
        const cell = truncate(cells[i] ?? '', widths[i]);
        return i === columns.length - 1 ? cell : cell.padEnd(widths[i]);
      })
      .join(' '.repeat(gap));
    return truncate(text.trimEnd(), width);
  };
  return [line(columns.map((c) => c.title)), ...rows.map(line)];
}

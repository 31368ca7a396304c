/**
 * Ages as kubectl prints them (`45s`, `3m12s`, `17m`, `5h4m`, `20h`, `3d5h`, `30d`, `2y10d`): the
 * AGE column of list views (`kubectlColumns.ts`) and of the simulator's Tables, which also
 * re-exports them as `@rxinformer/apiserver-sim/age`.
 */

/**
 * A duration in ms the way kubectl prints an age: two units while the larger is small, one after.
 *
 * @example
 * humanDuration(192_000);     // '3m12s'
 * humanDuration(26 * 3600e3); // '26h'
 *
 * Caveat: a negative duration (a clock behind the server's) prints as `0s`.
 */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const y = Math.floor(d / 365);
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small ? `${big}${bigUnit}${small}${smallUnit}` : `${big}${bigUnit}`;
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
 * The age of an object created at `created` (RFC 3339, e.g. `metadata.creationTimestamp`) at
 * `nowMs`; `<unknown>` without a valid timestamp.
 *
 * @example
 * formatAge(pod.metadata?.creationTimestamp, Date.now()); // '5h4m'
 */
export function formatAge(created: string | Date | undefined, nowMs: number): string {
  const start = created === undefined ? NaN : new Date(created).getTime();
  return Number.isNaN(start) ? '<unknown>' : humanDuration(nowMs - start);
}

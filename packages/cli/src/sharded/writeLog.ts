/**
 * What the sharded demo judges from the writes it watched: each reconcile writes a start mark and
 * an end mark (the replica, and a counter) into its ConfigMap, so the writes give every reconcile's
 * interval in the server's order of writes; a leader's work writes heartbeats, checked against the
 * Lease's terms (who held it from which write on).
 */
import type { KubeObject } from '@rxinformer/core';

/** The annotation a reconcile writes: `<replica>/<n>/start`, then `<replica>/<n>/end`. */
export const RECONCILE_MARK = 'demo.rxinformer.io/reconcile';

/** One reconcile, from its start mark to its end mark (server commit times, ms). */
export interface ReconcileInterval {
  readonly key: string;
  readonly by: string;
  readonly from: number;
  /** Undefined when the replica died before its end mark. */
  readonly to?: number;
}

/** Collects reconcile intervals from committed ConfigMap writes. */
export class ReconcileLog {
  readonly #open = new Map<string, { key: string; by: string; from: number }>();
  readonly intervals: ReconcileInterval[] = [];

  /** Notes one committed write of `object` under `key` at `time`. */
  record(key: string, object: KubeObject, time: number): void {
    const mark = object.metadata?.annotations?.[RECONCILE_MARK];
    if (!mark) return;
    const [by, n, phase] = mark.split('/');
    const id = `${key} ${by}/${n}`;
    if (phase === 'start' && !this.#open.has(id)) {
      // A replica reconciles a key once at a time: its earlier reconcile of the key whose end mark
      // never came (the end write failed, and the key was queued again) is over by now.
      for (const [other, o] of this.#open)
        if (o.key === key && o.by === by) {
          this.#open.delete(other);
          this.intervals.push({ ...o, to: time });
        }
      this.#open.set(id, { key, by, from: time });
    }
    if (phase === 'end') {
      const open = this.#open.get(id);
      this.#open.delete(id);
      if (open) this.intervals.push({ ...open, to: time });
    }
  }

  /**
   * Every interval, those still open ending at `end` — or at `end(replica)`: a replica killed
   * mid-reconcile ran until it died, not on.
   */
  all(end: number | ((by: string) => number)): ReconcileInterval[] {
    const endOf = typeof end === 'number' ? () => end : end;
    return [...this.intervals, ...[...this.#open.values()].map((o) => ({ ...o, to: Math.max(o.from, endOf(o.by)) }))];
  }
}

/** Keys reconciled by two replicas at overlapping times. */
export function overlappingReconciles(intervals: readonly ReconcileInterval[], now: number): string[] {
  const byKey = new Map<string, ReconcileInterval[]>();
  for (const i of intervals) byKey.set(i.key, [...(byKey.get(i.key) ?? []), i]);
  const out: string[] = [];
  for (const [key, list] of byKey)
    for (const a of list)
      for (const b of list)
        if (a.by < b.by && a.from <= (b.to ?? now) && b.from <= (a.to ?? now))
          out.push(`${key}: ${a.by} ${a.from}-${a.to} / ${b.by} ${b.from}-${b.to}`);
  return out;
}

/** Heartbeats of leaders' work written when the Lease named another holder (or none): two leaders at once. */
export function leaderOverlaps(
  heartbeats: readonly { by: string; at: number }[],
  holderAt: (time: number) => string,
): { by: string; at: number; holder: string }[] {
  return heartbeats.flatMap((h) => {
    const holder = holderAt(h.at);
    return holder === h.by ? [] : [{ ...h, holder }];
  });
}

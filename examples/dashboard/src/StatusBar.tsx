/**
 * The status bar: what the page's informers are doing, together (connecting, watching, backing
 * off) and each kind's error (a 403 for a kind the user may not list, a dropped connection).
 */
import type { ReflectorStatus } from '@rxinformer/core';
import { useInformerStatus } from '@rxinformer/react';
import { KINDS } from './kinds.ts';

export function StatusBar() {
  // KINDS is a constant: the hooks run in the same order at every render.
  const statuses = KINDS.map((k) => [k.id, useInformerStatus(k.resource)] as const);
  const synced = statuses.filter(([, s]) => s.hasSynced).length;
  const failing = statuses.filter(([, s]) => s.lastError !== undefined);
  const summary = summaryOf(statuses.map(([, s]) => s));
  return (
    <div id="status" className={failing.length > 0 ? 'errors' : summary} data-phase={summary} data-synced={synced}>
      <span>
        {summary} · {synced} of {KINDS.length} kinds synced
      </span>
      {failing.map(([id, s]) => (
        <span key={id} className="error" data-error-kind={id}>
          {id}: {s.lastError?.message}
        </span>
      ))}
    </div>
  );
}

/** One word for them all: the least advanced phase of the kinds without an error, `watching` when all watch. */
function summaryOf(statuses: readonly ReflectorStatus[]): string {
  const healthy = statuses.filter((s) => s.lastError === undefined);
  for (const phase of ['connecting', 'listing', 'backingOff', 'stopped'] as const) if (healthy.some((s) => s.phase === phase)) return phase;
  return 'watching';
}

/**
 * The soak's outputs: the JSON object `{ rxinformer, clientNode }` and a readable table with the
 * failures underneath.
 */
import type { LibrarySummary, SoakSummary } from './soak.ts';
import type { SoakRunResult } from './soakRun.ts';

/** The `--json` answer: each library's summary with its per-run results. */
export function soakJson(summary: SoakSummary): string {
  return JSON.stringify({ rxinformer: summary.rxinformer, clientNode: summary.clientNode });
}

/** One progress line per run, e.g. `run 1 rxinformer seed 123: converged in 812 ms, 0 UID violations`. */
export function runLine(result: SoakRunResult, run: number): string {
  const outcome = result.converged ? `converged in ${result.convergeMs} ms` : `NOT converged: ${result.failure}`;
  return `run ${run + 1} ${result.library} seed ${result.seed}: ${outcome}; ${result.uidViolations} UID violations, ${result.stats.relists} relists, ${result.stats.errorsSeen} errors, ${result.faultsApplied} fault actions (${Object.values(result.faults).reduce((n, f) => n + (f?.unused ?? 0), 0)} unused in their slot)`;
}

/** The summary as a Markdown-style table, then the failures. */
export function soakTable(summary: SoakSummary): string {
  const libs = (Object.keys(summary) as (keyof SoakSummary)[]).filter((k) => summary[k].runs > 0);
  const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const ms = (v: number | undefined) => (v === undefined ? '-' : String(v));
  const header = [
    'library',
    'runs',
    'converged',
    'UID violations',
    'correct',
    'relists',
    'errors seen',
    'restarts',
    'mean converge ms',
    'max converge ms',
  ];
  const lines = [
    row(header),
    row(header.map(() => '---')),
    ...libs.map((k) => {
      const s: LibrarySummary = summary[k];
      return row([
        k,
        s.runs,
        s.converged,
        s.uidViolations,
        s.correct,
        s.relists,
        s.errorsSeen,
        s.restarts,
        ms(s.meanConvergeMs),
        ms(s.maxConvergeMs),
      ]);
    }),
  ];
  for (const k of libs) {
    for (const f of summary[k].failures) lines.push(`${k} run ${f.run + 1} (seed ${f.seed}): ${f.reason}`);
  }
  return lines.join('\n');
}

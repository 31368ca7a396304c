/**
 * The chaos soak: N runs, each with its own seed, of the same scenario against rxinformer and
 * against client-node's `makeInformer`, summed up per library.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNodeClient, type ClientNodeClientOptions } from './clientNodeClient.ts';
import { rxinformerClient, type RxinformerClientOptions } from './rxinformerClient.ts';
import type { SoakClient, SoakLibrary } from './soakClient.ts';
import { soakRun, type SoakRunOptions, type SoakRunResult } from './soakRun.ts';

/** Options of `runSoak`: the run options (without the seed) plus these. */
export interface SoakOptions extends Omit<SoakRunOptions, 'seed'> {
  /** Number of runs. Default 1. */
  runs?: number;
  /** Seed the runs' seeds derive from. Default 1. */
  seed?: number;
  /** The libraries to soak. Default both. */
  libraries?: readonly SoakLibrary[];
  rxinformer?: RxinformerClientOptions;
  clientNode?: ClientNodeClientOptions;
  /** Called after each run, e.g. for progress lines. */
  onRun?: (result: SoakRunResult, run: number) => void;
}

/** One library's results over all runs. */
export interface LibrarySummary {
  runs: number;
  /** Runs whose store and handler views all equalled the server in time. */
  converged: number;
  /** Handler updates that changed a UID, over all runs. */
  uidViolations: number;
  /** Runs that converged AND delivered every UID change as delete + add: the soak's pass rule. */
  correct: number;
  relists: number;
  errorsSeen: number;
  /** Restarts after 'error' events (client-node). */
  restarts: number;
  meanConvergeMs?: number;
  maxConvergeMs?: number;
  faultsApplied: number;
  /** Failures and watch faults that met no request or watch within their slot, over all runs (dropped there). */
  faultsUnused: number;
  failures: { run: number; seed: number; reason: string }[];
  results: SoakRunResult[];
}

/** The soak's answer: `{ rxinformer, clientNode }`. */
export type SoakSummary = Record<SoakLibrary, LibrarySummary>;

/** The seed of run `index` (0-based) of a soak seeded with `seed`: distinct per run, fixed per pair. */
export function runSeed(seed: number, index: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  return (h ^ (h >>> 15)) >>> 0;
}

/** Sums up the results of one library. */
export function summarize(results: readonly SoakRunResult[]): LibrarySummary {
  const times = results.flatMap((r) => (r.convergeMs !== undefined ? [r.convergeMs] : []));
  const sum = (f: (r: SoakRunResult) => number) => results.reduce((n, r) => n + f(r), 0);
  return {
    runs: results.length,
    converged: results.filter((r) => r.converged).length,
    uidViolations: sum((r) => r.uidViolations),
    correct: results.filter((r) => r.converged && r.uidViolations === 0).length,
    relists: sum((r) => r.stats.relists),
    errorsSeen: sum((r) => r.stats.errorsSeen),
    restarts: sum((r) => r.stats.restarts),
    ...(times.length > 0
      ? { meanConvergeMs: Math.round(times.reduce((a, b) => a + b, 0) / times.length), maxConvergeMs: Math.max(...times) }
      : {}),
    faultsApplied: sum((r) => r.faultsApplied),
    faultsUnused: sum((r) => Object.values(r.faults).reduce((n, f) => n + (f?.unused ?? 0), 0)),
    failures: results.flatMap((r, run) => (r.failure !== undefined ? [{ run, seed: r.seed, reason: r.failure }] : [])),
    results: [...results],
  };
}

/** True when every run of `summary` converged with no UID violation. */
export function passed(summary: LibrarySummary): boolean {
  return summary.runs > 0 && summary.correct === summary.runs;
}

/**
 * Runs the soak: for each run, the same seed against each library in turn.
 *
 * @example
 * const summary = await runSoak({ runs: 3, seed: 42 });
 * process.exitCode = passed(summary.rxinformer) ? 0 : 1;
 *
 * Caveat: runs are sequential and each lasts the chaos plus the convergence time (up to its deadline).
 */
export async function runSoak(options: SoakOptions = {}): Promise<SoakSummary> {
  const { runs = 1, seed = 1, libraries = ['rxinformer', 'clientNode'], rxinformer, clientNode, onRun, ...runOptions } = options;
  const clients: Record<SoakLibrary, (kc: KubeConfig) => SoakClient> = {
    rxinformer: (kc) => rxinformerClient(kc, rxinformer),
    clientNode: (kc) => clientNodeClient(kc, clientNode),
  };
  const results: Record<SoakLibrary, SoakRunResult[]> = { rxinformer: [], clientNode: [] };
  for (let run = 0; run < runs; run++) {
    for (const library of libraries) {
      const result = await soakRun(clients[library], { ...runOptions, seed: runSeed(seed, run) });
      results[library].push(result);
      onRun?.(result, run);
    }
  }
  return { rxinformer: summarize(results.rxinformer), clientNode: summarize(results.clientNode) };
}

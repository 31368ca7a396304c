/**
 * Running contenders side by side: one warm-up each, then rounds in a balanced order (`rotation`:
 * no one always runs first, or right after the same neighbour), a full GC before each run, and the median
 * of the rounds. A contender that throws is recorded as a failure with its message and not run again.
 */

/** One contender's outcome: its samples and their median, or why it failed. */
export type Outcome = { median: number; samples: number[] } | { error: string };

/** A measured figure: a number, not applicable (`null`), or a failure with its message. */
export type Figure = number | null | { error: string };

/** Options of `runRotating`. */
export interface RotatingOptions {
  /** Measured rounds per contender. Default 3. */
  rounds?: number;
  /** Unmeasured warm-up runs per contender before the rounds. Default 1. */
  warmup?: number;
  /** Called before each run (progress on stderr). Default: nothing. */
  onRun?: (name: string, round: number) => void;
}

/** The middle value (the upper middle of an even count); NaN for no values. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/**
 * The order of round `r`: row `r` of a Williams design (a balanced Latin square). Each name runs
 * once per round and, over `n` rounds, once at each position; for an even count each name also
 * runs right after each other name once, so no contender always inherits the same neighbour's heap
 * and caches (a plain rotation kept every neighbour). Three names rotate: abc, bca, cab.
 */
export function rotation<T>(names: readonly T[], r: number): T[] {
  const n = names.length;
  // The first row 0, 1, n-1, 2, n-2, ...: consecutive differences 1, -2, 3, -4, ... are distinct mod n.
  return names.map((_, k) => names[((k === 0 ? 0 : k % 2 === 1 ? (k + 1) / 2 : n - k / 2) + r) % n]);
}

/** The figure of an outcome: its median or its failure. */
export function figureOf(outcome: Outcome | undefined): Figure {
  if (!outcome) return null;
  return 'error' in outcome ? { error: outcome.error } : outcome.median;
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Runs every contender `warmup` times, then `rounds` times in a balanced order (`rotation`); each run resolves
 * with its measured value.
 *
 * @example
 * const out = await runRotating({ a: () => timeA(), b: () => timeB() }, { rounds: 5 });
 * out.a; // { median, samples } or { error }
 *
 * Caveat: run the process with --expose-gc, or the GC before each run is skipped.
 */
export async function runRotating(
  contenders: Record<string, () => Promise<number>>,
  options: RotatingOptions = {},
): Promise<Record<string, Outcome>> {
  const rounds = options.rounds ?? 3;
  const names = Object.keys(contenders);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const failed: Record<string, string> = {};
  const once = async (name: string, round: number): Promise<void> => {
    if (failed[name] !== undefined) return;
    options.onRun?.(name, round);
    gc?.();
    try {
      const value = await contenders[name]();
      if (round >= 0) samples[name].push(value);
    } catch (e) {
      failed[name] = errorMessage(e);
    }
  };
  for (let w = 0; w < (options.warmup ?? 1); w++) for (const name of names) await once(name, -1);
  for (let r = 0; r < rounds; r++) for (const name of rotation(names, r)) await once(name, r);
  return Object.fromEntries(
    names.map((n): [string, Outcome] => [
      n,
      failed[n] !== undefined ? { error: failed[n] } : { median: median(samples[n]), samples: samples[n] },
    ]),
  );
}

/** A one-line message of anything thrown, with its cause's message when there is one. */
export function errorMessage(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.name}: ${e.message}${cause}`.replace(/\s+/g, ' ').slice(0, 300);
}

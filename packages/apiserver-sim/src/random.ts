/**
 * A small seeded pseudo-random generator (mulberry32) so that every choice the simulator makes
 * (UIDs, generateName suffixes, which watch a fault hits, latency jitter) is reproducible from a seed.
 */

/** A deterministic source of random numbers in [0, 1). */
export interface Random {
  /** The next number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** A random (version 4) UUID drawn from this generator. */
  uuid(): string;
}

/**
 * Creates a seeded generator.
 *
 * @example
 * const r = seededRandom(42); r.int(10); // always the same for seed 42
 */
export function seededRandom(seed: number): Random {
  let state = (seed >>> 0) ^ 0x9e3779b9;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const hex = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(next() * 16).toString(16);
    return s;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${((8 + Math.floor(next() * 4)) as number).toString(16)}${hex(3)}-${hex(12)}`,
  };
}

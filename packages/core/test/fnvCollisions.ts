/**
 * Builds keys that all have one 32-bit FNV-1a hash, the way someone flooding the store would: FNV-1a
 * is a chain of steps over a 32-bit state, so two blocks that take one state to the same next state
 * (found by birthday search, ~80k tries) can be swapped anywhere that state is met. Chaining `bits`
 * such pairs gives 2^bits keys with one hash (a multicollision) for `bits` birthday searches.
 * Deterministic: the same arguments give the same keys.
 */

// Globals read once: inside a test runner's VM context every global lookup is slow, and the search makes millions.
const { imul, floor } = Math;
const PRIME = 0x01000193;
/** FNV-1a's offset basis: the state of the unseeded hash before any character. */
const FNV_BASIS = 0x811c9dc5;

/** FNV-1a's state after feeding `text` from `state`. */
export function fnvFrom(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = imul(h, PRIME);
  }
  return h >>> 0;
}

const BLOCK = 6; // characters of [a-z0-9] per block: 36^6 blocks, far more than a search needs
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Block number `n` (below 36^BLOCK) as its characters. */
const blockText = (n: number): string => {
  let text = '';
  for (let i = 0, m = n; i < BLOCK; i++, m = floor(m / 36)) text += ALPHABET[m % 36];
  return text;
};

/** FNV-1a's state after block number `n` from `state`, without building its text. */
const blockStep = (state: number, n: number): number => {
  let h = state;
  for (let i = 0, m = n; i < BLOCK; i++, m = floor(m / 36)) h = imul(h ^ ALPHABET.charCodeAt(m % 36), PRIME);
  return h >>> 0;
};

/** Two distinct blocks taking `state` to one next state, and that state. */
function collidingBlocks(state: number, stage: number): [string, string, number] {
  const seen = new Map<number, number>();
  for (let i = 0; ; i++) {
    // A stage-dependent walk of the block space, so stages do not retry the same blocks.
    const n = (imul(i + stage * 1_000_003, 0x9e3779b1) >>> 0) % 36 ** BLOCK;
    const next = blockStep(state, n);
    const other = seen.get(next);
    if (other !== undefined && other !== n) return [blockText(other), blockText(n), next];
    seen.set(next, n);
  }
}

/**
 * 2^`bits` distinct keys `prefix` + blocks, all with one hash under `seededFnv1a(seed)` (the
 * unseeded `fnv1a` for seed 0, whose start is FNV's offset basis). Keys are valid Kubernetes names
 * after the prefix (lowercase letters and digits).
 *
 * @example
 * const keys = collidingKeys('flood/p', 14); // 16,384 keys, one fnv1a hash
 */
export function collidingKeys(prefix: string, bits: number, seed = 0): string[] {
  let state = fnvFrom((FNV_BASIS ^ seed) >>> 0, prefix);
  let keys = [prefix];
  for (let stage = 0; stage < bits; stage++) {
    const [a, b, next] = collidingBlocks(state, stage);
    keys = keys.flatMap((k) => [k + a, k + b]);
    state = next;
  }
  return keys;
}

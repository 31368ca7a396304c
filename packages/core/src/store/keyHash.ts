/**
 * The string hashes of `PersistentMap`: FNV-1a (32 bits, over UTF-16 code units), unseeded or from
 * a seed, and the map's default, seeded at random once per process so that keys cannot be crafted
 * to collide under it (docs/architecture.md, "Keys chosen by an adversary").
 */

/**
 * A string hash for `PersistentMap`: an unsigned 32-bit integer. Keys with equal hashes are kept
 * apart by comparing them, so a poor hash costs speed (O(log n) per write), never correctness.
 *
 * @example
 * const byLength: HashFunc = (key) => key.length; // collides a lot: fine for a test
 */
export type HashFunc = (key: string) => number;

/** FNV-1a's 32-bit offset basis: the state before any code unit was hashed. */
export const FNV_BASIS = 0x811c9dc5;

/**
 * FNV-1a (32 bits, over UTF-16 code units) starting from a state that depends on `seed`: maps
 * built with different seeds spread keys differently, and keys crafted to collide under one seed
 * (or under the unseeded `fnv1a`) do not collide under another.
 *
 * @example
 * const map = PersistentMap.empty<number>(seededFnv1a(42)); // the same trie order in every process
 */
export function seededFnv1a(seed: number): HashFunc {
  const basis = (FNV_BASIS ^ seed) >>> 0;
  return (key) => fnv1aFrom(basis, key);
}

/**
 * FNV-1a (32 bits, over UTF-16 code units) of `text`, continued from `state` (a previous result,
 * or `FNV_BASIS` to start): hashing `a` then `b` from its result equals hashing `a + b`, so a long
 * text can be hashed piece by piece, as it is made.
 *
 * @example
 * fnv1aFrom(fnv1aFrom(FNV_BASIS, 'default/'), 'web') === fnv1a('default/web'); // true
 */
export function fnv1aFrom(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * FNV-1a (32 bits, over UTF-16 code units), unseeded: the same hash in every process.
 *
 * Caveat: anyone can compute keys that collide under it (thousands in under a second). A map using
 * it stays O(log n) per write even then, but `PersistentMap`'s default (a per-process seed) keeps
 * such keys apart; pass `fnv1a` only where a reproducible iteration order matters more.
 *
 * @example
 * fnv1a('default/web'); // the same number in every process
 */
export const fnv1a: HashFunc = seededFnv1a(0);

/** A random 32-bit seed: Web Crypto where there is one (browsers, Node ≥ 19), else `Math.random`. */
function randomSeed(): number {
  const cryptoApi = (globalThis as { crypto?: { getRandomValues?: (a: Uint32Array) => Uint32Array } }).crypto;
  if (typeof cryptoApi?.getRandomValues === 'function') return cryptoApi.getRandomValues(new Uint32Array(1))[0];
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/**
 * The seed of `processHash`, drawn once per process (per page in a browser).
 * @internal for tests that craft collisions under the real default hash.
 */
export const processHashSeed: number = randomSeed();

/**
 * `PersistentMap`'s default hash: `seededFnv1a(processHashSeed)`. Its iteration order differs
 * from one process to the next, like a Go map's.
 * @internal
 */
export const processHash: HashFunc = seededFnv1a(processHashSeed);

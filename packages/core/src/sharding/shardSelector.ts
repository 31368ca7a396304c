/**
 * KEP-5866's `shardSelector`: `shardRange(object.metadata.uid, '0x…', '0x…') || …`, built from a
 * set of slots, parsed (clear errors for malformed input) and matched locally — the same filter a
 * client applies itself, since a server without the `ShardedListAndWatch` gate ignores it.
 */
import { RxInformerError } from '../errors.ts';
import { HASH_SPACE_END, fnv1a64, shardKeyOf, slotRange, type ShardKeyField } from './shardHash.ts';
import type { KubeObject } from '../types.ts';

/** One `shardRange(field, lo, hi)`: objects whose hash h has lo <= h < hi. */
export interface ShardRange {
  /** The field hashed. */
  readonly field: ShardKeyField;
  /** Inclusive start. */
  readonly lo: bigint;
  /** Exclusive end (at most 2^64). */
  readonly hi: bigint;
}

/** A `shardSelector` that is not KEP-5866's grammar; `position` is where reading failed. */
export class ShardSelectorError extends RxInformerError {
  /** Always `ShardSelectorError`: set as a string, so it survives minification. */
  override readonly name: string = 'ShardSelectorError';
  /** The selector as given. */
  readonly selector: string;
  /** Offset in `selector` at which it went wrong. */
  readonly position: number;

  constructor(selector: string, position: number, detail: string) {
    super('InvalidShardSelector', `invalid shardSelector at ${position}: ${detail} (in ${JSON.stringify(selector.slice(0, 200))})`);
    this.selector = selector;
    this.position = position;
  }
}

const FIELDS: readonly ShardKeyField[] = ['object.metadata.uid', 'object.metadata.namespace'];

/** `0x` and 16 hex digits (17 for 2^64), as the KEP writes bounds. */
export function hexBound(value: bigint): string {
  return `0x${value.toString(16).padStart(16, '0')}`;
}

/**
 * The selector asking for `slots` (of `slotCount`): adjacent slots merged into one range. An empty
 * set gives `undefined` (ask for nothing: the caller must not list at all).
 *
 * @example
 * shardSelectorFor([0, 1], 4); // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 */
export function shardSelectorFor(
  slots: Iterable<number>,
  slotCount: number,
  field: ShardKeyField = 'object.metadata.uid',
): string | undefined {
  const sorted = [...new Set(slots)].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const s of sorted) {
    const last = ranges.at(-1);
    if (last && last[1] === s) last[1] = s + 1;
    else ranges.push([s, s + 1]);
  }
  if (ranges.length === 0) return undefined;
  return ranges
    .map(([a, b]) => `shardRange(${field}, '${hexBound(slotRange(a, slotCount)[0])}', '${hexBound(slotRange(b - 1, slotCount)[1])}')`)
    .join(' || ');
}

/**
 * Parses a `shardSelector` as kube-apiserver (v1.36, `ShardedListAndWatch`) reads it: one or more
 * `shardRange(field, 'lo', 'hi')` joined by `||`, all on the same field, `object.metadata.uid` or
 * `object.metadata.namespace`; bounds single- (or double-) quoted, `0x` and 16 lowercase hex
 * digits, or `'0x10000000000000000'` (2^64) — the only 17-digit one —, with lo < hi. Throws
 * `ShardSelectorError` otherwise: for everything that server answers with a 500.
 *
 * @example
 * parseShardSelector("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
 */
export function parseShardSelector(selector: string): ShardRange[] {
  const src = String(selector);
  let i = 0;
  const fail = (detail: string): never => {
    throw new ShardSelectorError(src, i, detail);
  };
  const space = () => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  const expect = (token: string) => {
    space();
    if (!src.startsWith(token, i)) fail(`expected ${JSON.stringify(token)}`);
    i += token.length;
  };
  const bound = (): bigint => {
    space();
    const quote = src[i];
    if (quote !== "'" && quote !== '"') fail("expected a quoted bound such as '0x8000000000000000'");
    const end = src.indexOf(quote, i + 1);
    if (end < 0) fail('unterminated string');
    const text = src.slice(i + 1, end);
    if (!/^0x[0-9a-fA-F]+$/.test(text)) fail(`bound ${JSON.stringify(text)} is not 0x followed by hex digits`);
    const value = BigInt(text);
    if (value > HASH_SPACE_END) fail(`bound ${text} is past 2^64`);
    if (/[A-F]/.test(text)) fail(`bound ${text} has uppercase hex digits: write ${text.toLowerCase()}`);
    if (text.length !== 18 && !(text.length === 19 && value === HASH_SPACE_END))
      fail(`bound ${text} must have 16 hex digits (${hexBound(value)}; 17 only for 2^64, 0x10000000000000000)`);
    i = end + 1;
    return value;
  };
  const ranges: ShardRange[] = [];
  if (src.trim() === '') fail('empty selector');
  do {
    expect('shardRange');
    expect('(');
    space();
    const field = FIELDS.find((f) => src.startsWith(f, i) && !/[\w.]/.test(src[i + f.length] ?? ''));
    if (!field) fail(`unsupported field: expected ${FIELDS.join(' or ')}`);
    if (ranges.length > 0 && field !== ranges[0].field) fail(`every shardRange must hash the same field, ${ranges[0].field}`);
    i += field!.length;
    expect(',');
    const lo = bound();
    expect(',');
    const at = i;
    const hi = bound();
    if (lo >= hi) {
      i = at;
      fail(`empty range: start ${hexBound(lo)} is not below end ${hexBound(hi)}`);
    }
    expect(')');
    ranges.push({ field: field!, lo, hi });
    space();
  } while (src.startsWith('||', i) && (i += 2));
  if (i < src.length) fail('expected "||" or the end');
  return ranges;
}

/** A predicate over objects for parsed ranges: true when any range holds the object's hash. */
export function shardMatcher(ranges: readonly ShardRange[]): (obj: KubeObject) => boolean {
  const fields = [...new Set(ranges.map((r) => r.field))];
  return (obj) => {
    const hashes = new Map(fields.map((f) => [f, fnv1a64(shardKeyOf(obj, f))]));
    return ranges.some((r) => {
      const h = hashes.get(r.field)!;
      return r.lo <= h && h < r.hi;
    });
  };
}

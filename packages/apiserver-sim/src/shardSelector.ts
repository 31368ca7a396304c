/**
 * KEP-5866's `shardSelector` on list and watch (alpha, `ShardedListAndWatch` gate): the `||` of
 * `shardRange(object.metadata.uid | object.metadata.namespace, '0x…', '0x…')` calls over the 64-bit
 * FNV-1a hash space. Behind an option like the feature gate: off, the parameter is ignored, as an
 * older server does; on, a malformed selector is a 500 naming the problem, as kube-apiserver 1.36 answers.
 */
import { parseShardSelector, shardMatcher, ShardSelectorError } from '@rxinformer/core/sharding';
import type { ObjectMatcher } from './selectors.ts';
import { errors } from './status.ts';

const SHARD_FIELDS = ['object.metadata.uid', 'object.metadata.namespace'];
const RANGE = /shardRange\s*\(\s*([^,()\s]*)\s*,\s*(['"])(.*?)\2\s*,\s*(['"])(.*?)\4\s*\)/g;

/**
 * A bound as kube-apiserver 1.36.3 reads it (k8s.io/apiserver pkg/sharding, `extractHexLiteral`):
 * `0x` and exactly 16 lower-case hex digits, or `0x10000000000000000` (2^64, the exclusive end of
 * the hash space). Returns the problem in its words, or undefined.
 */
function boundProblem(name: string, s: string): string | undefined {
  if (!s.startsWith('0x')) return `${name} must have '0x' prefix, got ${JSON.stringify(s)}`;
  const hex = s.slice(2);
  if (hex === '') return `${name}: hex value is required after '0x'`;
  if (hex.length > 17) return `${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`;
  const bad = [...hex].find((c) => !/[0-9a-f]/.test(c));
  if (bad !== undefined) return `${name}: invalid hex character ${JSON.stringify(bad)} in ${JSON.stringify(s)}`;
  if (hex.length === 17)
    return s === '0x10000000000000000'
      ? undefined
      : `${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${JSON.stringify(s)}`;
  if (hex.length !== 16)
    return `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(`0x${hex.padStart(16, '0')}`)}?)`;
  return undefined;
}

/**
 * The checks kube-apiserver 1.36.3 makes of the `shardRange` calls beyond the syntax, in its order:
 * each range's field, bounds and start < end, then the same field in every range. Returns the
 * problem in its words, or undefined.
 */
function rangeProblem(selector: string): string | undefined {
  const fields: string[] = [];
  for (const [, f, , start, , end] of selector.matchAll(RANGE)) {
    if (!SHARD_FIELDS.includes(f)) return `unsupported field path ${JSON.stringify(f)}; supported: ${SHARD_FIELDS.join(', ')}`;
    const problem = boundProblem('hexStart', start) ?? boundProblem('hexEnd', end);
    if (problem !== undefined) return problem;
    if (BigInt(start) >= BigInt(end)) return `shard range start ${start} must be less than end ${end}`;
    fields.push(f);
  }
  const other = fields.find((f) => f !== fields[0]);
  return other === undefined
    ? undefined
    : `all shard ranges must use the same field, got ${JSON.stringify(fields[0])} and ${JSON.stringify(other)}`;
}

/**
 * `matcher` narrowed by `shardSelector` when the gate is on and a selector is given; the same
 * matcher otherwise. A malformed selector is a 500 without a reason (`invalid shard selector: …`),
 * as kube-apiserver 1.36 answers; the wording of syntax errors (CEL's there) is the simulator's.
 *
 * @example
 * const m = withShardSelector(compileSelectors(res, ls, fs), q.str('shardSelector'), true);
 */
export function withShardSelector(matcher: ObjectMatcher, shardSelector: string | undefined, gate: boolean | undefined): ObjectMatcher {
  if (!gate || shardSelector === undefined) return matcher;
  let inShard: ReturnType<typeof shardMatcher>;
  try {
    const problem = rangeProblem(shardSelector);
    if (problem !== undefined) throw errors.unclassified(`invalid shard selector: ${problem}`);
    inShard = shardMatcher(parseShardSelector(shardSelector));
  } catch (e) {
    if (!(e instanceof ShardSelectorError)) throw e;
    throw errors.unclassified(`invalid shard selector: ${e.message}`);
  }
  return { everything: false, matches: (obj) => matcher.matches(obj) && inShard(obj) };
}

/** `ListMeta.shardInfo` of KEP-5866: present when the server applied a shard selector. */
export interface ShardInfo {
  /** The `shardSelector` of the request, echoed back. */
  selector: string;
}

/** The part of a list's metadata that carries `ShardInfo`. */
export interface WithShardInfo {
  /** The shard selector the list answer applied. */
  shardInfo: ShardInfo;
}

/** The `metadata.shardInfo` of a list answer that honoured `shardSelector` (KEP-5866 echoes it back). */
export function shardInfo(shardSelector: string | undefined, gate: boolean | undefined): WithShardInfo | undefined {
  return gate && shardSelector !== undefined ? { shardInfo: { selector: normalizedSelector(shardSelector) } } : undefined;
}

/** The selector as kube-apiserver 1.36 echoes it: `shardRange(field, 'lo', 'hi')`, a space after each comma, ` || ` between. */
function normalizedSelector(selector: string): string {
  return [...selector.matchAll(RANGE)].map(([, f, , lo, , hi]) => `shardRange(${f}, '${lo}', '${hi}')`).join(' || ');
}

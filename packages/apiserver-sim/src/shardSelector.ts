/**
 * KEP-5866's `shardSelector` on list and watch (alpha, `ShardedListAndWatch` gate): the `||` of
 * `shardRange(object.metadata.uid | object.metadata.namespace, '0x…', '0x…')` calls over the 64-bit
 * FNV-1a hash space. Behind an option like the feature gate: off, the parameter is ignored, as an
 * older server does; on, a malformed selector is a 500 naming the problem, as kube-apiserver 1.36 answers.
 */
import { parseShardSelector, shardMatcher, ShardSelectorError } from '@rxinformer/core';
import type { ObjectMatcher } from './selectors.ts';
import { errors } from './status.ts';

const SHARD_FIELDS = ['object.metadata.uid', 'object.metadata.namespace'];
const RANGE = /shardRange\s*\(\s*([^,()\s]*)\s*,\s*(['"])(.*?)\2\s*,\s*(['"])(.*?)\4\s*\)/g;

/**
 * The checks kube-apiserver 1.36 makes of each `shardRange` beyond the syntax (measured): a known
 * field, the same field in every range, and bounds of exactly 16 hex digits. Returns the problem
 * in its words, or undefined.
 */
function rangeProblem(selector: string): string | undefined {
  let field: string | undefined;
  for (const [, f, , start, , end] of selector.matchAll(RANGE)) {
    if (!SHARD_FIELDS.includes(f)) return `unsupported field path ${JSON.stringify(f)}; supported: ${SHARD_FIELDS.join(', ')}`;
    if (field !== undefined && f !== field)
      return `all shard ranges must use the same field, got ${JSON.stringify(field)} and ${JSON.stringify(f)}`;
    field = f;
    for (const [name, bound] of [
      ['hexStart', start],
      ['hexEnd', end],
    ]) {
      if (/^0x[0-9a-fA-F]{16}$/.test(bound)) continue;
      const digits = bound.replace(/^0x/i, '');
      const hint = /^[0-9a-fA-F]{1,15}$/.test(digits) ? ` (did you mean "0x${digits.padStart(16, '0')}"?)` : '';
      return `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(bound)}${hint}`;
    }
  }
  return undefined;
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

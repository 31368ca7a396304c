/**
 * KEP-5866's `shardSelector` on list and watch (alpha, `ShardedListAndWatch` gate): the `||` of
 * `shardRange(object.metadata.uid | object.metadata.namespace, '0x…', '0x…')` calls over the 64-bit
 * FNV-1a hash space. Behind an option like the feature gate: off, the parameter is ignored, as an
 * older server does; on, a malformed selector is a 400 naming the problem.
 */
import { parseShardSelector, shardMatcher, ShardSelectorError } from '@rxinformer/core';
import type { ObjectMatcher } from './selectors.ts';
import { errors } from './status.ts';

/**
 * `matcher` narrowed by `shardSelector` when the gate is on and a selector is given; the same
 * matcher otherwise. Throws a 400 `ApiStatusError` for a malformed selector.
 *
 * @example
 * const m = withShardSelector(compileSelectors(res, ls, fs), q.str('shardSelector'), true);
 */
export function withShardSelector(matcher: ObjectMatcher, shardSelector: string | undefined, gate: boolean | undefined): ObjectMatcher {
  if (!gate || shardSelector === undefined) return matcher;
  let inShard: ReturnType<typeof shardMatcher>;
  try {
    inShard = shardMatcher(parseShardSelector(shardSelector));
  } catch (e) {
    const message = e instanceof ShardSelectorError ? e.message : String(e);
    throw errors.badRequest(message, [{ reason: 'FieldValueInvalid', message, field: 'shardSelector' }]);
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
  return gate && shardSelector !== undefined ? { shardInfo: { selector: shardSelector } } : undefined;
}

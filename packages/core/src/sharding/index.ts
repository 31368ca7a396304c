/**
 * Sharding: KEP-5866's hash space, slots, and a ring of replicas on Leases that splits a resource between them.
 *
 * @module @rxinformer/core/sharding
 */
export { HASH_SPACE_END, fnv1a64, shardKeyOf, slotOf, slotOfKey, slotRange, validateSlotCount } from './shardHash.ts';
export type { ShardKeyField } from './shardHash.ts';
export { ShardSelectorError, hexBound, parseShardSelector, shardMatcher, shardSelectorFor } from './shardSelector.ts';
export type { ShardRange } from './shardSelector.ts';
export { assignSlots, slotsOf } from './shardAssignment.ts';
export { shardedListerWatcher } from './shardedListerWatcher.ts';
export {
  SHARD_CONFIG_ANNOTATION,
  SHARD_RING_LABEL,
  SHARD_SLOTS_ANNOTATION,
  ShardRingConflictError,
  decodeSlots,
  encodeSlots,
} from './shardMembers.ts';
export { startShardRing } from './shardRing.ts';
export type { ShardRing, ShardRingOptions, ShardRingState } from './shardRing.ts';

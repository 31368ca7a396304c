/** Sharding as an option of a controller. */
export type { ShardOptions } from './shard.ts';

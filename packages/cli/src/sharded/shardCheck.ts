/**
 * What the sharded demo checks of each replica's shard at the end: the server's answer to its
 * `shardSelector` (KEP-5866) holds exactly the objects our own filter by the same hash keeps, the
 * list echoes the selector as `metadata.shardInfo`, and the replica's informer cached that share.
 */
import { type KubeObject } from '@rxinformer/core';
import { pathSegment } from '@rxinformer/core/http';
import { parseShardSelector, shardMatcher } from '@rxinformer/core/sharding';
import { call } from './demoServer.ts';
import type { ServerAccess } from './serverAccess.ts';

/** One replica's shard, as the server and our filter see it. */
export interface ShardReport {
  /** `shardRange` terms of the selector its informer asked with. */
  ranges: number;
  /** Objects its informer cached. */
  cached: number;
  /** Objects the server sent its informer's last list (before our local filter). */
  listedByServer: number;
  /** Its informer's last list carried `metadata.shardInfo` with its selector. */
  echoedToInformer: boolean;
  /** Objects the server answers the selector with, now. */
  serverSubset: number;
  /** Objects our filter keeps of all of them, now. */
  localSubset: number;
  /** The two subsets hold the same objects. */
  subsetEqualsLocal: boolean;
}

/** The replica's status fields this check reads. */
export interface ShardStatus {
  selector?: string;
  shardInfo?: string;
  listed?: number;
  cached?: number;
}

const names = (items: readonly KubeObject[]) => new Set(items.map((o) => o.metadata?.name ?? ''));

/** Checks each replica's shard against the server, listing the ConfigMaps labelled `demo=sharded` in `namespace`. */
export async function checkShards(
  access: ServerAccess,
  namespace: string,
  statuses: Record<string, ShardStatus>,
): Promise<Record<string, ShardReport>> {
  const path = `/api/v1/namespaces/${pathSegment('namespace', namespace)}/configmaps?labelSelector=demo%3Dsharded`;
  const all = (await call<{ items: KubeObject[] }>(access, 'GET', path)).items;
  const out: Record<string, ShardReport> = {};
  for (const [identity, s] of Object.entries(statuses)) {
    const selector = s.selector ?? '';
    const ranges = selector ? parseShardSelector(selector) : [];
    const server = selector
      ? (await call<{ items: KubeObject[] }>(access, 'GET', `${path}&shardSelector=${encodeURIComponent(selector)}`)).items
      : [];
    const local = ranges.length > 0 ? all.filter(shardMatcher(ranges)) : [];
    const a = names(server);
    const b = names(local);
    out[identity] = {
      ranges: ranges.length,
      cached: Number(s.cached ?? 0),
      listedByServer: Number(s.listed ?? 0),
      echoedToInformer: s.shardInfo !== undefined && s.shardInfo.replace(/\s/g, '') === selector.replace(/\s/g, ''),
      serverSubset: a.size,
      localSubset: b.size,
      subsetEqualsLocal: a.size === b.size && [...a].every((n) => b.has(n)),
    };
  }
  return out;
}

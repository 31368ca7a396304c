/**
 * A ListerWatcher restricted to shard slots: it asks the server for them with KEP-5866's
 * `shardSelector`, and filters by the same hash itself, since a server without the
 * `ShardedListAndWatch` gate ignores the parameter and sends everything.
 */
import { filter, map } from 'rxjs';
import { parseShardSelector, shardMatcher } from './shardSelector.ts';
import type { KubeObject, ListerWatcher } from '../types.ts';

/**
 * Wraps `lw` so that every list and watch carries `selector()` — read at each request — as
 * `shardSelector`, and only objects in its ranges come through. `undefined` lets nothing through
 * (and asks the server for everything: stop the informer instead when a replica holds no slot).
 *
 * Caveat: change the selector only together with a restart of the informer (a list, then a watch
 * with the same selector); a watch with another selector than its list would corrupt the cache.
 *
 * @example
 * let selector = shardSelectorFor(mySlots, 256);
 * const informer = createSharedInformer(shardedListerWatcher(lw, () => selector));
 */
export function shardedListerWatcher<T extends KubeObject>(lw: ListerWatcher<T>, selector: () => string | undefined): ListerWatcher<T> {
  let cached: { selector: string | undefined; matches: (o: KubeObject) => boolean } | undefined;
  const current = () => {
    const s = selector();
    if (!cached || cached.selector !== s)
      cached = { selector: s, matches: s === undefined ? () => false : shardMatcher(parseShardSelector(s)) };
    return cached;
  };
  return {
    list: (options) => {
      const { selector: shardSelector, matches } = current();
      return lw
        .list({ ...options, ...(shardSelector !== undefined && { shardSelector }) })
        .pipe(map((page) => (Array.isArray(page?.items) ? { ...page, items: page.items.filter(matches) } : page)));
    },
    watch: (options) => {
      const { selector: shardSelector, matches } = current();
      return lw
        .watch({ ...options, ...(shardSelector !== undefined && { shardSelector }) })
        .pipe(filter((e) => e.type === 'OPENED' || e.type === 'BOOKMARK' || e.type === 'ERROR' || matches(e.object)));
    },
    watchList: lw.watchList,
  };
}

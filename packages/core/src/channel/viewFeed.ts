/**
 * A feed as one stream sees it through an `InformerView`: only the objects the view admits, each as
 * the view transforms it, in the cache, the history and the live changes. A change of which the view
 * admits nothing is left out entirely (no BOOKMARK for it: the periodic ones move the stream on).
 */
import { filter, map } from 'rxjs';
import type { InformerFeed } from './informerFeed.ts';
import type { InformerView } from './informerServer.ts';
import type { KubeObject, WatchEvent } from '../types.ts';

/**
 * `feed` through `view` (`feed` itself when the view neither filters nor transforms).
 *
 * @example
 * const mine = viewFeed(feed, { informer, admit: (o) => o.metadata?.namespace === 'team-a' });
 */
export function viewFeed(feed: InformerFeed, view: InformerView): InformerFeed {
  const { admit, transform } = view;
  if (!admit && !transform) return feed;
  const sent = (object: KubeObject): KubeObject => (transform ? transform(object) : object);
  const pass = (events: readonly WatchEvent[]): WatchEvent[] => {
    const out: WatchEvent[] = [];
    for (const e of events)
      if (e.type === 'BOOKMARK' || e.type === 'ERROR') out.push(e);
      else if (!admit || admit(e.object)) out.push({ type: e.type, object: sent(e.object) });
    return out;
  };
  return {
    ready$: feed.ready$,
    changes$: feed.changes$.pipe(
      map((change) => ({ change, events: pass(change.events) })),
      filter(({ change, events }) => events.length > 0 || change.events.length === 0),
      map(({ change, events }) => ({ events, resourceVersion: change.resourceVersion })),
    ),
    snapshot: () => {
      const { items, resourceVersion } = feed.snapshot();
      const seen = admit ? items.filter((o) => admit(o)) : items;
      return { items: transform ? seen.map(sent) : seen, resourceVersion };
    },
    resourceVersion: () => feed.resourceVersion(),
    place: (from) => {
      const placed = feed.place(from);
      return placed.type === 'replay' ? { ...placed, events: pass(placed.events) } : placed;
    },
    // The feed is the server's, shared: a view closes nothing.
    close: () => undefined,
  };
}

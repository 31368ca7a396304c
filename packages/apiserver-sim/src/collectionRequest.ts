/**
 * GET of a collection: a LIST answered with one page (`listPages.ts`), or a WATCH (`watch=true`, or
 * the legacy `/watch/` path) answered with a stream (`watchSession.ts`), from the request's query.
 */
import { listPage, parseResourceVersion, sendInitialEventsOf, validateListQuery, waitForRevision, type ListQuery } from './listPages.ts';
import { renderList, watchRendering, type Rendering } from './rendering.ts';
import type { RequestContext, ResourceCall } from './requestContext.ts';
import type { Query } from './requestUrl.ts';
import { sendJsonText } from './responses.ts';
import { checkCollectionKey } from './objectKeys.ts';
import { compileSelectors } from './selectors.ts';
import { shardInfo, withShardSelector } from './shardSelector.ts';
import { errors, forbidden } from './status.ts';
import type { WatchStart } from './watchEvents.ts';
import { WatchSession } from './watchSession.ts';

/** The list options of a request's query. */
function listQuery(q: Query, namespace: string | undefined): ListQuery {
  const lq: ListQuery = {};
  if (namespace !== undefined) lq.namespace = namespace;
  const set = <K extends keyof ListQuery>(k: K, v: ListQuery[K] | undefined) => {
    if (v !== undefined) lq[k] = v;
  };
  set('resourceVersion', q.str('resourceVersion'));
  set('resourceVersionMatch', q.str('resourceVersionMatch'));
  set('limit', limitOf(q));
  set('continue', q.str('continue'));
  set('sendInitialEvents', q.str('sendInitialEvents'));
  return lq;
}

/** `limit`: a positive integer; 0 or a negative one means no limit, as on a real server. */
function limitOf(q: Query): number | undefined {
  const v = q.str('limit');
  if (v !== undefined && /^-\d+$/.test(v)) return undefined;
  return q.int('limit') || undefined;
}

/** Answers a LIST with one page, rendered as the client asked. */
export async function serveList(ctx: RequestContext, { res, route, r, q }: ResourceCall, mode: Rendering): Promise<void> {
  const lq = listQuery(q, route.namespace);
  const shard = q.str('shardSelector');
  const matcher = withShardSelector(compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector')), shard, ctx.shardedListAndWatch);
  const page = await listPage(ctx.storage, r, lq, matcher, ctx.wait);
  sendJsonText(res, 200, renderList(mode, r, page.items, { ...page.metadata, ...shardInfo(shard, ctx.shardedListAndWatch) }));
}

/** Where a watch starts, by its resourceVersion and sendInitialEvents (waiting for a future revision first). */
async function watchStart(ctx: RequestContext, lq: ListQuery): Promise<WatchStart> {
  const rv = lq.resourceVersion ?? '';
  const initialEvents = sendInitialEventsOf(lq);
  if (initialEvents === true) {
    if (rv !== '' && rv !== '0') await waitForRevision(ctx.storage, parseResourceVersion(rv, true), ctx.wait);
    return { kind: 'initialEvents' };
  }
  if (rv !== '' && rv !== '0') return { kind: 'from', rv: parseResourceVersion(rv, true) };
  // sendInitialEvents=false: only changes from now on
  if (initialEvents === false) return { kind: 'from', rv: ctx.storage.resourceVersion };
  // RV unset or "0" with neither option: with the WatchList gate on, kube-apiserver defaults it to a
  // watch-list (sendInitialEvents=true, NotOlderThan), end bookmark included when bookmarks are allowed.
  return { kind: ctx.watchList ? 'initialEvents' : 'synthetic' };
}

/** Answers a WATCH: opens a stream that lives until its timeout, a fault, or the client leaving. */
export async function serveWatch(ctx: RequestContext, { res, route, r, q }: ResourceCall, mode: Rendering): Promise<void> {
  const lq = listQuery(q, route.namespace);
  validateListQuery(r, lq, true, ctx.watchList);
  if (lq.continue) {
    // what kube-apiserver 1.36 answers (measured): the continue check of the watch's validation
    throw errors.invalid(
      'ListOptions',
      '',
      [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided')],
      'meta.k8s.io',
    );
  }
  const matcher = withShardSelector(
    compileSelectors(r, q.str('labelSelector'), q.str('fieldSelector'), route.name),
    q.str('shardSelector'),
    ctx.shardedListAndWatch,
  );
  checkCollectionKey(r, route.namespace);
  const allowBookmarks = q.bool('allowWatchBookmarks');
  // like the real server, timeoutSeconds=0 means unset
  const timeoutSeconds = q.int('timeoutSeconds') || (ctx.watch.defaultWatchTimeoutSeconds ?? 1800);
  const start = await watchStart(ctx, lq);
  const render = watchRendering(mode, r);
  const session = new WatchSession(
    ctx.hub.nextId(),
    {
      res: r,
      ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
      matcher,
      start,
      allowBookmarks,
      timeoutSeconds,
      bookmarkIntervalMs: ctx.watch.bookmarkIntervalMs ?? 60_000,
      ...(ctx.watch.scheduler ? { scheduler: ctx.watch.scheduler } : {}),
      ...(render ? { render: render.render, renderBookmark: render.bookmark } : {}),
      ...(ctx.watch.maxWatchBufferBytes !== undefined ? { maxBufferedBytes: ctx.watch.maxWatchBufferBytes } : {}),
    },
    res,
    ctx.storage,
    ctx.hub,
  );
  session.start();
}

/**
 * The page: a shared informer on pods over `fetchListerWatcher`, against this page's own origin
 * (the example server proxies `/api` to the API server, as `kubectl proxy` or an app's backend
 * would), rendered as a table from `store$`, with the reflector status from `status$` and a log of
 * `events$`.
 */
import { animationFrameScheduler, auditTime, combineLatest, filter, scan, timer } from 'rxjs';
import { createSharedInformer, fetchListerWatcher, type ResourceDescriptor } from '@rxinformer/core';
import { createPodTable } from './podTable.ts';
import { eventLine, podRows, statusLine, type EventLine, type Pod } from './podView.ts';
import { startViews } from './views.ts';

/** How many recent events the log keeps. */
const EVENTS_SHOWN = 12;

const podsResource: ResourceDescriptor<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

const params = new URLSearchParams(location.search);
// The informer streams its lists (a watch with sendInitialEvents); `?pageSize=N` lists in pages of
// N instead (`useStreamingList: false`), here and in the views: small pages show the paged list at work.
const pageSize = Number(params.get('pageSize')) || undefined;
// `?informers=N`: N more informers in this tab (see views.ts); `?watchOpenTimeoutMs=N`: how long
// a watch may wait for its answer before it says so (default the browser's, 10 s).
const views = Number(params.get('informers')) || 0;
const watchOpenTimeoutMs = Number(params.get('watchOpenTimeoutMs')) || undefined;
const limits = watchOpenTimeoutMs === undefined ? {} : { watchOpenTimeoutMs };

const informer = createSharedInformer<Pod>(fetchListerWatcher<Pod>({ baseUrl: location.origin, resource: podsResource, ...limits }), {
  // The page never shows managedFields: dropping them before caching saves most of each pod's memory.
  transform: (pod) => {
    if (pod.metadata) delete pod.metadata.managedFields;
    return pod;
  },
  ...(pageSize !== undefined && { reflector: { pageSize, useStreamingList: false } }),
});

const element = <E extends HTMLElement>(id: string): E => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as E;
};

const table = createPodTable(element<HTMLTableSectionElement>('pods'));
const count = element('count');
const status = element('status');
const loading = element('loading');
const eventCount = element('event-count');
const events = element<HTMLUListElement>('events');

// The table follows the store, and the ages the clock; at most one render per animation frame.
combineLatest([informer.store$, timer(0, 1000)])
  .pipe(auditTime(0, animationFrameScheduler))
  .subscribe(([store]) => {
    table.render(podRows(store, Date.now()));
    count.textContent = String(store.size);
  });

// The status changes with the reflector's phase; the resource version with every event.
combineLatest([informer.status$, informer.store$])
  .pipe(auditTime(0, animationFrameScheduler))
  .subscribe(([s]) => {
    status.textContent = statusLine({ ...s, lastSyncResourceVersion: informer.lastSyncResourceVersion ?? s.lastSyncResourceVersion });
    status.dataset.phase = s.phase;
  });

informer.synced$.subscribe((synced) => {
  loading.hidden = synced;
});

// The log shows live changes; the initial list is the table itself.
informer.events$
  .pipe(
    filter((delta) => delta.type !== 'Added' || !delta.isInInitialList),
    scan(
      (acc: { total: number; recent: EventLine[] }, delta) => ({
        total: acc.total + 1,
        recent: [eventLine(delta, Date.now()), ...acc.recent].slice(0, EVENTS_SHOWN),
      }),
      { total: 0, recent: [] },
    ),
    auditTime(0, animationFrameScheduler),
  )
  .subscribe(({ total, recent }) => {
    eventCount.textContent = String(total);
    events.replaceChildren(
      ...recent.map((line) => {
        const li = document.createElement('li');
        li.className = line.type;
        li.textContent = `${line.time} ${line.text}`;
        return li;
      }),
    );
  });

informer.start();
const more = startViews(element<HTMLOListElement>('views'), { count: views, resource: podsResource, watchOpenTimeoutMs, pageSize });
// Leaving the page aborts the watch requests, freeing the connections at once.
addEventListener('pagehide', () => [informer, ...more].forEach((i) => i.stop()));

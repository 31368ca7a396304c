/**
 * More informers in the same tab, as a dashboard's widgets each hold their own: `?informers=N`
 * starts N more informers on pods, each with a selector of its own (so each makes its own list and
 * watch, as differently filtered views would), every pod matching all of them. Each is shown as one
 * line with its phase, pod count and last error, so the page tells which watches are live: over
 * HTTP/2 all of them; over HTTP/1.1 a browser keeps 6 connections per origin, and the watches past
 * them stay `connecting`.
 */
import { auditTime, animationFrameScheduler, combineLatest, filter } from 'rxjs';
import { createSharedInformer, fetchListerWatcher, type ResourceDescriptor, type SharedInformer } from '@rxinformer/core';
import { statusLine, type Pod } from './podView.ts';

/** What the views are made with. */
export interface ViewOptions {
  /** How many informers. */
  count: number;
  /** The pods resource. */
  resource: ResourceDescriptor<Pod>;
  /** `watchOpenTimeoutMs` of their ListerWatchers; default the browser's (10 s). */
  watchOpenTimeoutMs?: number;
  /** Lists in pages of this size instead of streaming them (`useStreamingList: false`). Default: streamed. */
  pageSize?: number;
}

/** The label selector of view `i`: a label no pod has, so every pod matches, but each view's requests differ. */
export const viewSelector = (i: number): string => `example.rxinformer.io/view!=${i}`;

/**
 * Starts the views into `list` (an `<ol>`): one `<li data-view="i">` each, with `data-phase`,
 * `data-count` (pods cached), `data-error` (the last error's name and reason) and, when a pod is
 * added by a watch event, `data-added` (its key) and `data-added-at` (`Date.now()` then). Returns
 * the informers, to stop with the page.
 */
export function startViews(list: HTMLOListElement, options: ViewOptions): SharedInformer<Pod>[] {
  const informers: SharedInformer<Pod>[] = [];
  for (let i = 1; i <= options.count; i++) {
    const lw = fetchListerWatcher<Pod>({
      baseUrl: location.origin,
      resource: options.resource,
      labelSelector: viewSelector(i),
      ...(options.watchOpenTimeoutMs !== undefined && { watchOpenTimeoutMs: options.watchOpenTimeoutMs }),
    });
    const paged = options.pageSize !== undefined && { reflector: { pageSize: options.pageSize, useStreamingList: false } };
    const informer = createSharedInformer<Pod>(lw, { ...paged });
    const li = document.createElement('li');
    li.dataset.view = String(i);
    list.append(li);
    combineLatest([informer.status$, informer.store$])
      .pipe(auditTime(0, animationFrameScheduler))
      .subscribe(([status, store]) => {
        li.dataset.phase = status.phase;
        li.dataset.count = String(store.size);
        const error = status.lastError as (Error & { reason?: unknown }) | undefined;
        if (error) li.dataset.error = typeof error.reason === 'string' ? `${error.name} ${error.reason}` : error.name;
        else delete li.dataset.error;
        li.textContent = `view ${i}: ${store.size} pods · ${statusLine(status)}`;
      });
    // When each view heard of a new pod: set at once, not at the next frame.
    informer.events$.pipe(filter((d) => d.type === 'Added' && !d.isInInitialList)).subscribe((d) => {
      li.dataset.added = d.key;
      li.dataset.addedAt = String(Date.now());
    });
    informer.start();
    informers.push(informer);
  }
  return informers;
}

/**
 * The answers a server gives about resource versions: a request for one the cache has not reached
 * yet waits for it a bounded time (as kube-apiserver's watch cache does), and one it cannot place
 * is a 410 `Expired`, so the client relists (from the cache) instead of retrying it forever.
 */
import { defer, filter, map, merge, of, take, type Observable, type SchedulerLike } from 'rxjs';
import { KubeApiError } from '../errors.ts';
import { timerAfter } from '../time/longTimer.ts';
import type { InformerFeed } from './informerFeed.ts';
import { failureStatus } from './protocol.ts';
import { parseRevision } from './watchHistory.ts';

/** A 410 `Expired` with kube-apiserver's message, as a `KubeApiError`. */
export function expired(message: string): KubeApiError {
  return new KubeApiError(410, { status: failureStatus(410, 'Expired', message) });
}

/**
 * Emits once when `feed` is at `resourceVersion` or past it (at once if it is), or fails after
 * `waitMs` with a 410 (a version the cache never reached: the client relists). A resource version
 * that is not an etcd revision never waits: it is placed (or refused) as it is.
 *
 * @example
 * atLeast(feed, '1234', 3000, scheduler).subscribe(() => serve());
 */
export function atLeast(feed: InformerFeed, resourceVersion: string, waitMs: number, scheduler: SchedulerLike): Observable<void> {
  return defer(() => {
    const reached = (): boolean => feed.place(resourceVersion).type !== 'future';
    if (parseRevision(resourceVersion) === undefined || reached()) return of(undefined);
    const tooLarge = expired(`too large resource version: ${resourceVersion}, the cache did not reach it within ${waitMs} ms`);
    return merge(feed.changes$.pipe(filter(reached)), timerAfter(waitMs, scheduler).pipe(map(() => tooLarge))).pipe(
      take(1),
      map((r) => {
        if (r instanceof KubeApiError) throw r;
      }),
    );
  });
}

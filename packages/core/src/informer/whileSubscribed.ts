/**
 * `whileSubscribed`: an informer's store that runs the informer only while someone reads it, for
 * views that watch a resource while they are shown (a component, a dashboard panel). Kept outside
 * the informer: the informer itself only runs between `start()` and `stop()`.
 */
import { defer, finalize, ignoreElements, merge, share, type Observable } from 'rxjs';
import type { StoreSnapshot } from '../store/indexer.ts';
import type { SharedInformer } from './sharedInformer.ts';
import type { KubeObject } from '../types.ts';

/** One shared store stream per informer, so that every caller counts towards the same subscribers. */
const perInformer = new WeakMap<object, Observable<unknown>>();

/**
 * The informer's `store$` (the latest snapshot at once, then each change), counted: the first
 * subscriber starts the informer, the last one leaving stops it (its cache stays; the next first
 * subscriber starts it again with a relist). Every call for one informer returns the same stream,
 * so subscribers of all of them count together. It completes when the informer is shut down;
 * subscribing after that fails with `InformerShutdownError`.
 *
 * Caveat: it owns the informer's `start()`/`stop()`: an informer someone else also starts (an
 * informer factory's `start()`) is stopped when the last subscriber leaves. Event handlers are no
 * subscribers: a handler alone does not keep the informer running.
 *
 * @example
 * const pods = createSharedInformer(lw);
 * const view = whileSubscribed(pods).subscribe((store) => render(store.list())); // starts the watch
 * view.unsubscribe(); // the last one: stops it
 */
export function whileSubscribed<T extends KubeObject>(informer: SharedInformer<T>): Observable<StoreSnapshot<T>> {
  let store$ = perInformer.get(informer) as Observable<StoreSnapshot<T>> | undefined;
  if (store$ === undefined) {
    // Held by every subscriber: share() counts them. It ends with the informer's streams (shutdown).
    const lease$ = defer(() => {
      informer.start();
      return informer.store$.pipe(ignoreElements());
    }).pipe(
      finalize(() => informer.stop()),
      share(),
    );
    store$ = merge(lease$, informer.store$); // the lease first: the store comes from the running informer
    perInformer.set(informer, store$);
  }
  return store$;
}

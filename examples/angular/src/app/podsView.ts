import { computed, Injectable, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { informerSignal, injectInformer } from '@rxinformer/angular';
import { NAMESPACE_INDEX } from '@rxinformer/core';
import { distinctUntilChanged, filter, map, scan } from 'rxjs';
import { phaseCounts, podRows, podsResource, sameCounts, sameItems } from './pods';

/**
 * The page's state, shared by its components: the pods informer, the namespace filter, and what
 * is selected from the cache for it. Each component reads only the signals it shows, so a change
 * re-renders only the views it changes.
 */
@Injectable()
export class PodsView {
  /** Every pod of the cluster, live (one list and one watch for the app). */
  readonly pods = injectInformer(podsResource);
  /** The namespace shown; `''` for all. */
  readonly namespace = signal('');
  /** The namespaces that have pods, and the one selected even when it has none left. */
  readonly namespaces = computed(() => {
    const selected = this.namespace();
    const known = this.#namespacesWithPods();
    return selected && !known.includes(selected) ? [...known, selected].sort() : known;
  });
  /** The rows of the namespace shown: a new list only when a row in it changes, comes or goes. */
  readonly rows = informerSignal(this.pods, (store) => podRows(store, this.namespace()), { equal: sameItems });
  /** Pods per phase among the rows. */
  readonly summary = computed(() => phaseCounts(this.rows()), { equal: sameCounts });
  /** Pods in the cache, every namespace. */
  readonly cached = informerSignal(this.pods, (store) => store.size);
  /**
   * How many times the watch came back after a failure (or a relist) since the first sync. The
   * `connecting` of each new watch is left out, so a re-watch after the server's clean close
   * (watching, connecting, watching) is no reconnect.
   */
  readonly reconnects = toSignal(
    this.pods.informer.status$.pipe(
      map((s) => s.phase),
      filter((phase) => phase !== 'connecting'),
      distinctUntilChanged(),
      scan(
        (acc, phase) => ({
          watched: acc.watched || phase === 'watching',
          count: acc.count + (acc.watched && phase === 'watching' ? 1 : 0),
        }),
        {
          watched: false,
          count: 0,
        },
      ),
      map((acc) => acc.count),
    ),
    { initialValue: 0 },
  );

  readonly #namespacesWithPods = informerSignal(this.pods, (store) => store.listIndexValues(NAMESPACE_INDEX).toSorted(), {
    equal: sameItems,
  });
}

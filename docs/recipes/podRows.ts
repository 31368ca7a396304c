/**
 * The Angular-free half of the Angular recipe: pods as table rows, derived from an informer's
 * store and emitted only when the rows change — what `toSignal` turns into a signal.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { selectFromStore, type ResourceDescriptor, type Store } from '@rxinformer/core';
import type { Observable } from 'rxjs';

/** core/v1 pods, for `fetchListerWatcher` (client-node's `pods` is the same, but not browser-safe). */
export const podsResource: ResourceDescriptor<V1Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/** One row of the pods table. */
export interface PodRow {
  /** `namespace/name`: a stable `track` expression for `@for`. */
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  readonly phase: string;
}

/** The rows of a snapshot, sorted by key. */
export function toPodRows(store: Store<V1Pod>): readonly PodRow[] {
  return store
    .list()
    .map((p) => ({
      key: `${p.metadata?.namespace}/${p.metadata?.name}`,
      name: p.metadata?.name ?? '',
      namespace: p.metadata?.namespace ?? '',
      phase: p.status?.phase ?? 'Unknown',
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** True when two row lists show the same thing. */
export function sameRows(a: readonly PodRow[], b: readonly PodRow[]): boolean {
  return a.length === b.length && a.every((r, i) => r.key === b[i].key && r.phase === b[i].phase);
}

/**
 * The rows of every snapshot of `store$`, emitted only when they change: a pod's new label or
 * resourceVersion re-runs the projection but emits nothing, so no view re-renders for it.
 *
 * Caveat: `toPodRows` walks the whole cache on every change; for large caches derive from
 * `byIndex` or keep the rows incrementally from `events$`.
 */
export function podRows(store$: Observable<Store<V1Pod>>): Observable<readonly PodRow[]> {
  return store$.pipe(selectFromStore(toPodRows, sameRows));
}

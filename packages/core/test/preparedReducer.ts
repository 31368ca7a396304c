/** The informer's prepare stage and the delta store as one reducer over raw events, for the delta store's tests. */
import { applyEvent, type DeltaStoreOptions, type DeltaStoreState } from '../src/store/deltaStore.ts';
import { createPrepare, prepareEvent } from '../src/store/prepare.ts';
import type { Delta, KubeObject, ReflectorEvent } from '../src/types.ts';

/** A state with what the last event did beside it, as the tests read it. */
export type Applied<T extends KubeObject> = DeltaStoreState<T> & { deltas: readonly Delta<T>[]; errors: readonly Error[] };

/** Prepares each raw event as the informer does (transform, freeze), then applies it. */
export function preparedReducer<T extends KubeObject = KubeObject>(
  options: DeltaStoreOptions<T> = {},
): (state: DeltaStoreState<T>, event: ReflectorEvent<T>) => Applied<T> {
  const prepare = createPrepare(options);
  return (state, event) => {
    const { store, resourceVersion, synced, restored } = state;
    const { state: next, deltas, errors } = applyEvent({ store, resourceVersion, synced, restored }, prepareEvent(prepare, event));
    return { ...next, deltas, errors };
  };
}

/** `Deleted:key:tombstone`, `Added:key`…: a summary of deltas. */
export const summary = (ds: readonly Delta[]): string[] =>
  ds.map((d) => `${d.type}:${d.key}${d.type === 'Deleted' && d.deleted.finalStateUnknown ? ':tombstone' : ''}`);

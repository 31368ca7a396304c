/**
 * The reading hooks: a resource's list (filtered on the cache by namespace and labels), one object
 * by key, an index, and the informer's sync state and status. Each re-renders only when what it
 * returns changes.
 */
import { useCallback, useMemo } from 'react';
import {
  matchesLabels,
  NAMESPACE_INDEX,
  parseLabelSelector,
  type KubeObject,
  type ReflectorStatus,
  type StoreSnapshot,
} from '@rxinformer/core';
import { useInformerOf, type InformerSource } from './informerProvider.ts';
import { shallowEqual, useInformerSnapshot, useSelection } from './storeSnapshot.ts';

/** Which cached objects `useList` returns. */
export interface ListFilter {
  /** Only the objects of this namespace (`''`: cluster-scoped ones). Default: every namespace. */
  namespace?: string;
  /** Only the objects whose labels match this selector (`'app=web,tier in (fe)'`). Default: all. */
  labelSelector?: string;
}

/**
 * The cached objects of a resource, optionally only those of a namespace or matching a label
 * selector (applied to the cache: the informer still lists and watches its whole scope). A new
 * array only when the objects in it change: a change to an object outside the filter does not
 * re-render. The objects are the cache's, frozen; one that did not change is the same object, so
 * rows under `React.memo` re-render only for their own object.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider, and
 * `LabelSelectorError` for a selector the API server would refuse.
 *
 * @example
 * const pods = useList(podsResource, { namespace: 'web', labelSelector: 'app=shop' });
 * return <ul>{pods.map((pod) => <PodRow key={pod.metadata?.uid} pod={pod} />)}</ul>;
 *
 * Caveat: the order is the cache's, none in particular: sort for display (`useMemo`). To list
 * and watch less, scope the informer instead: `useList(useInformer(podsResource, { namespace: 'web' }))`.
 */
export function useList<T extends KubeObject>(source: InformerSource<T>, filter: ListFilter = {}): readonly T[] {
  const { namespace, labelSelector } = filter;
  const selector = useMemo(() => (labelSelector === undefined ? undefined : parseLabelSelector(labelSelector)), [labelSelector]);
  const select = useCallback(
    (store: StoreSnapshot<T>): readonly T[] => {
      const inNamespace = namespace === undefined ? store.list() : objectsOf(store, namespace);
      return selector === undefined ? inNamespace : inNamespace.filter((o) => matchesLabels(selector, o.metadata?.labels));
    },
    [namespace, selector],
  );
  return useSelection(useInformerOf(source, 'useList'), select, shallowEqual);
}

/** The objects of `namespace`: through the namespace index when the store keeps it. */
function objectsOf<T extends KubeObject>(store: StoreSnapshot<T>, namespace: string): readonly T[] {
  if (store.indexNames().includes(NAMESPACE_INDEX)) return store.byIndex(NAMESPACE_INDEX, namespace);
  return store.list().filter((o) => (o.metadata?.namespace ?? '') === namespace);
}

/**
 * The cached object under `key` (`namespace/name`, or `name` when cluster-scoped), or `undefined`
 * (not there, not yet listed, or no key). Re-renders only when that object changes.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider.
 *
 * @example
 * const pod = useObject(podsResource, 'web/shop-0');
 * return pod ? <PodDetails pod={pod} /> : <p>no such pod</p>;
 *
 * Caveat: the object is frozen: copy it (`structuredClone`) before editing it in a form.
 */
export function useObject<T extends KubeObject>(source: InformerSource<T>, key: string | undefined): T | undefined {
  const select = useCallback((store: StoreSnapshot<T>) => (key === undefined ? undefined : store.get(key)), [key]);
  return useSelection(useInformerOf(source, 'useObject'), select, Object.is);
}

/**
 * The cached objects filed under `value` in the index `indexName` (client-go's `ByIndex`), a new
 * array only when they change. Add the index with the informer's `indexers` option or
 * `addIndexers`.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider, and core's
 * `IndexerError` for an index the store does not keep.
 *
 * @example
 * const byNode = { byNode: (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []) }; // outside the component
 * const pods = useInformer(podsResource, { indexers: byNode });
 * const onNode = useByIndex(pods, 'byNode', 'node-1');
 */
export function useByIndex<T extends KubeObject>(source: InformerSource<T>, indexName: string, value: string): readonly T[] {
  const select = useCallback((store: StoreSnapshot<T>) => store.byIndex(indexName, value), [indexName, value]);
  return useSelection(useInformerOf(source, 'useByIndex'), select, shallowEqual);
}

/**
 * The informer's status: its reflector's phase (`listing`, `watching`, `backingOff`…), last error,
 * relists; `stopped` while the factory does not run (and on the server). Re-renders when it changes.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider.
 *
 * @example
 * const status = useInformerStatus(podsResource);
 * if (status.phase === 'backingOff') return <p>retrying: {status.lastError?.message}</p>;
 */
export function useInformerStatus<T extends KubeObject>(source: InformerSource<T>): ReflectorStatus {
  const informer = useInformerOf(source, 'useInformerStatus');
  return useInformerSnapshot(informer, () => informer.getStatus());
}

/**
 * False until the informer's first complete list has been applied, then true (it stays true while
 * the factory is stopped: the cache is kept). Show a placeholder until then.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider.
 *
 * @example
 * if (!useHasSynced(podsResource)) return <p>loading…</p>;
 */
export function useHasSynced<T extends KubeObject>(source: InformerSource<T>): boolean {
  const informer = useInformerOf(source, 'useHasSynced');
  return useInformerSnapshot(informer, () => informer.hasSynced());
}

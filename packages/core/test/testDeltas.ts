/** Hand-built deltas and a Map-backed store for the operator tests. */
import type { Delta, DeltaType, KubeObject, Store } from '../src/types.ts';

/** A read-only store over a Map: enough for operators, which only read it. */
export function mapStore<T extends KubeObject>(entries: Record<string, T> = {}): Store<T> {
  const map = new Map(Object.entries(entries));
  const byNamespace = (value: string) => [...map.entries()].filter(([, o]) => (o.metadata?.namespace ?? '') === value);
  return {
    size: map.size,
    get: (key) => map.get(key),
    list: () => [...map.values()],
    keys: () => [...map.keys()],
    byIndex: (_index, value) => byNamespace(value).map(([, o]) => o),
    indexKeys: (_index, value) => byNamespace(value).map(([k]) => k),
    listIndexValues: () => [...new Set([...map.values()].map((o) => o.metadata?.namespace ?? ''))],
    indexNames: () => ['namespace'],
  };
}

/** An object with a namespace, name and labels. */
export const obj = (namespace: string, name: string, labels?: Record<string, string>): KubeObject => ({
  metadata: { namespace: namespace || undefined, name, labels },
});

const empty = mapStore();

/**
 * A delta of `object`, keyed `namespace/name` (or `name`): an `Added` not in the initial list, an
 * `Updated`/`Replaced` from `oldObject` (default: the same object), a `Sync`, or a `Deleted` whose
 * last known object it is (`finalStateUnknown` false unless given).
 */
export function delta(
  type: DeltaType,
  object: KubeObject,
  extra: { oldObject?: KubeObject; finalStateUnknown?: boolean; isInInitialList?: boolean } = {},
): Delta {
  const ns = object.metadata?.namespace;
  const key = ns ? `${ns}/${object.metadata?.name}` : `${object.metadata?.name}`;
  switch (type) {
    case 'Added':
      return { type, key, object, isInInitialList: extra.isInInitialList ?? false, store: empty };
    case 'Updated':
    case 'Replaced':
      return { type, key, object, oldObject: extra.oldObject ?? object, store: empty };
    case 'Sync':
      return { type, key, object, store: empty };
    case 'Deleted':
      return { type, key, deleted: { key, lastKnown: object, finalStateUnknown: extra.finalStateUnknown ?? false }, store: empty };
  }
}

/**
 * The one subscription every hook makes: `useSyncExternalStore` over an informer, notified at most
 * once per animation frame, with a snapshot read from the informer's synchronous getters.
 */
import { useCallback, useRef, useSyncExternalStore } from 'react';
import { merge, share, skip, type Observable } from 'rxjs';
import { perAnimationFrame, type KubeObject, type SharedInformer, type StoreSnapshot } from '@rxinformer/core';
import { useInformerOf, type InformerSource } from './informerProvider.ts';

/** Per informer, the one notification stream its hooks share. */
const notifications = new WeakMap<object, Observable<unknown>>();

/**
 * The changes of `informer` (its store, sync and status), at most one per animation frame (one
 * per macrotask where there is no `requestAnimationFrame`), shared by all its hooks: a burst of
 * watch events becomes one notification, which React renders in one commit.
 */
function changesOf(informer: SharedInformer<KubeObject>): Observable<unknown> {
  let changes = notifications.get(informer);
  if (changes === undefined) {
    // Each replays its current value on subscription: the hook read it already.
    const later = [informer.store$, informer.synced$, informer.status$].map((s: Observable<unknown>) => s.pipe(skip(1)));
    changes = merge(...later).pipe(perAnimationFrame(), share());
    notifications.set(informer, changes);
  }
  return changes;
}

/**
 * `read()` of `informer`, re-read when the informer changes (at most once per frame). `read` must
 * return the same value until something it reads changed (the informer's getters do). It is also
 * the server snapshot: on the server it reads the store as it is.
 * @internal
 */
export function useInformerSnapshot<T extends KubeObject, R>(informer: SharedInformer<T>, read: () => R): R {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const subscription = changesOf(informer as unknown as SharedInformer<KubeObject>).subscribe(onChange);
      return () => subscription.unsubscribe();
    },
    [informer],
  );
  return useSyncExternalStore(subscribe, read, read);
}

/**
 * True when `a` and `b` are the same value, or arrays with the same elements, or plain objects with
 * the same keys and values, each compared with `Object.is` (one level deep). The cache's objects
 * are frozen and a change is a new object, so a list of the same objects is the same list.
 *
 * @example
 * shallowEqual([pod1, pod2], [pod1, pod2]); // true
 * shallowEqual({ running: 2 }, { running: 2 }); // true
 */
export function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => Object.is(x, b[i]));
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The last selection of a hook: the store and selector it came from, and the value returned. */
interface Selection<T extends KubeObject, R> {
  readonly store: StoreSnapshot<T>;
  readonly select: (store: StoreSnapshot<T>) => R;
  readonly value: R;
}

/**
 * A value selected from the informer's store, re-rendering only when it changes: `select` runs
 * when the store (or `select` itself) is new, and when its result `isEqual`s the last one the
 * component keeps the last one and does not re-render. Default `isEqual`: `shallowEqual`, so an
 * array or plain object of the same cached objects counts as unchanged; pass `Object.is` to
 * compare by identity alone.
 *
 * Throws `InformerProviderMissingError` for a descriptor outside any provider; what `select`
 * throws reaches the nearest error boundary.
 *
 * @example
 * const running = useStoreSelector(podsResource, (store) => store.list().filter((p) => p.status?.phase === 'Running').length);
 * const names = useStoreSelector(podsResource, (store) => store.keys()); // same keys: no re-render
 *
 * Caveat: `select` runs on every new store (a burst: once per frame), so keep it cheap: `byIndex`
 * over `list()` in a large cache. An inline `select` is new on every render and runs then too.
 */
export function useStoreSelector<T extends KubeObject, R>(
  source: InformerSource<T>,
  select: (store: StoreSnapshot<T>) => R,
  isEqual: (a: R, b: R) => boolean = shallowEqual,
): R {
  return useSelection(useInformerOf(source, 'useStoreSelector'), select, isEqual);
}

/**
 * `useStoreSelector` over an informer: `select` of its store, the last value kept while `isEqual`.
 * @internal
 */
export function useSelection<T extends KubeObject, R>(
  informer: SharedInformer<T>,
  select: (store: StoreSnapshot<T>) => R,
  isEqual: (a: R, b: R) => boolean,
): R {
  const last = useRef<Selection<T, R> | undefined>(undefined);
  const read = (): R => {
    const store = informer.getStore();
    const previous = last.current;
    if (previous !== undefined && previous.store === store && previous.select === select) return previous.value;
    const selected = select(store);
    const value = previous !== undefined && isEqual(previous.value, selected) ? previous.value : selected;
    last.current = { store, select, value };
    return value;
  };
  return useInformerSnapshot(informer, read);
}

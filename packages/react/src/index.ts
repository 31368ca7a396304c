/**
 * @rxinformer/react — live Kubernetes state in React: `<InformerProvider>` (an informer factory
 * for the components below it, held running while mounted, StrictMode-safe) and hooks on
 * `useSyncExternalStore` over `@rxinformer/core`'s shared informers: `useList`, `useObject`,
 * `useByIndex`, `useStoreSelector`, `useInformerStatus`, `useHasSynced`. Each re-renders only when
 * what it returns changes, and a burst of watch events renders once per animation frame.
 *
 * @example
 * <InformerProvider factory={factory}><Pods /></InformerProvider>
 * // in Pods
 * const pods = useList(podsResource, { namespace: 'web' });
 * const synced = useHasSynced(podsResource);
 *
 * @module @rxinformer/react
 */

// Provider
export { InformerProvider, useInformer, useInformerFactory } from './informerProvider.ts';
export type { InformerProviderProps, InformerSource } from './informerProvider.ts';

// Reading hooks
export { useByIndex, useHasSynced, useInformerStatus, useList, useObject } from './storeHooks.ts';
export type { ListFilter } from './storeHooks.ts';
export { shallowEqual, useStoreSelector } from './storeSnapshot.ts';

// Errors
export { InformerProviderMissingError } from './errors.ts';

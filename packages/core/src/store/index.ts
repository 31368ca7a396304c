/**
 * The delta store and the indexer: immutable, indexed snapshots of the cache and the reducer that applies the reflector's events to them.
 *
 * @module @rxinformer/core/store
 */
export { applyEvent, initialDeltaState, initialDeltaStep } from './deltaStore.ts';
export type { DeltaStoreOptions, DeltaStoreState, DeltaStoreStep } from './deltaStore.ts';
export { createStore, StoreSnapshot } from './indexer.ts';
export type { StoreOptions } from './indexer.ts';
export { metaNamespaceKeyFunc, splitMetaNamespaceKey, namespaceIndexFunc, NAMESPACE_INDEX } from './keys.ts';
export { PersistentMap } from './persistentMap.ts';
export { fnv1a, seededFnv1a } from './keyHash.ts';
export type { HashFunc } from './keyHash.ts';
export { createPrepare, prepareEvent, prepareEvents } from './prepare.ts';
export type { Prepare, PrepareOptions } from './prepare.ts';
